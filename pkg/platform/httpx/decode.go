package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
)

// MaxBody is the default cap on request bodies a service decodes.
const MaxBody = 1 << 20

// Decode reads r's JSON body into dst strictly: unknown fields, wrong types,
// trailing data, an empty body and bodies over MaxBody are all 400s that
// name the problem; a body declared as anything but JSON is a 415.
func Decode(r *http.Request, dst any) error {
	if err := RequireJSON(r); err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apierr.New(apierr.InvalidRequest, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit)).With("maxBytes", mbe.Limit)
		}
		return apierr.Wrap(apierr.InvalidRequest, "could not read request body", err)
	}
	return DecodeBytes(body, dst)
}

// RequireJSON refuses a request whose Content-Type names something other
// than JSON (application/json or application/*+json, any parameters) with
// 415 unsupported_media_type. A missing Content-Type is accepted: the body
// is then parsed as JSON and any other content fails as malformed JSON.
func RequireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return apierr.New(apierr.UnsupportedMediaType, "Content-Type must be application/json").With("contentType", ct)
}

// DecodeBytes is Decode for a body already in memory.
func DecodeBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return apierr.New(apierr.InvalidRequest, "request body is empty; a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if dec.More() {
		return apierr.New(apierr.InvalidRequest, "malformed JSON: unexpected data after the object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(apierr.InvalidRequest, "malformed JSON: unexpected data after the object")
	}
	// The text rule (package textcheck) holds for every string a client
	// sends: invalid UTF-8, NUL and control characters other than tab and
	// line breaks are a 400 naming the field.
	return checkText(body)
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return apierr.New(apierr.InvalidRequest, fmt.Sprintf("malformed JSON at byte %d", syn.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.New(apierr.InvalidRequest, "malformed JSON: unexpected end of input")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return apierr.New(apierr.InvalidRequest, "request body must be a JSON object")
		}
		return apierr.Field(field, "must be "+jsonKind(typ.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.Field(name, "unknown field")
	default:
		return apierr.Wrap(apierr.InvalidRequest, "malformed JSON", err)
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	default:
		return "of another type"
	}
}

// ParseUUID validates a uuid from a path or body field; a malformed one is
// a 400 naming the field.
func ParseUUID(field, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, apierr.Field(field, "must be a uuid")
	}
	return id, nil
}
