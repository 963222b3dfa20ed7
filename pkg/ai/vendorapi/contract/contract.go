// Package contract holds, as test data, the contract of every vendor
// operation Hookline calls — paths, fields, types, enums, required fields,
// limits, error shapes and the vendor's model lists — written from the
// vendors' own published definitions (each file cites file, commit and
// date), and a small validator. The fakes check every request they
// receive and every answer they give against it, so an adapter or a fake
// that drifts from the vendor fails its tests.
//
// The schema language is a subset of JSON Schema: type (one or a list;
// "binary" is an uploaded file), properties, required,
// additionalProperties (false closes an object), enum, pattern, minimum,
// maximum, minItems, maxItems, maxLength, items, $ref into definitions,
// and maxBytes for files and base64 strings.
package contract

import (
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

//go:embed testdata/*.json
var files embed.FS

// Schema is one node of a contract schema.
type Schema struct {
	Ref                  string             `json:"$ref"`
	Type                 types              `json:"type"`
	Properties           map[string]*Schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Enum                 []any              `json:"enum"`
	Pattern              string             `json:"pattern"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	MinItems             *int               `json:"minItems"`
	MaxItems             *int               `json:"maxItems"`
	MaxLength            *int               `json:"maxLength"`
	MaxBytes             *int               `json:"maxBytes"`
	ContentType          []string           `json:"contentType"`
	Format               string             `json:"format"`
	Items                *Schema            `json:"items"`
}

// types is "type": one name or a list.
type types []string

func (t *types) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = types{one}
		return nil
	}
	var many []string
	err := json.Unmarshal(b, &many)
	*t = many
	return err
}

// Operation is one vendor operation.
type Operation struct {
	Method           string  `json:"method"`
	Path             string  `json:"path"`
	ContentType      string  `json:"content_type"`
	Request          *Schema `json:"request"`
	Response         *Schema `json:"response"`
	ResponseDiarized *Schema `json:"response_diarized"`
}

// Models are the vendor's model lists, by what they do, and the models it
// shut down (name → date).
type Models struct {
	Image                 []string          `json:"image"`
	ImageEdit             []string          `json:"image_edit"`
	ImageAnySize          []string          `json:"image_any_size"`
	ImageNoInputFidelity  []string          `json:"image_no_input_fidelity"`
	Chat                  []string          `json:"chat"`
	Transcription         []string          `json:"transcription"`
	TranscriptionJSONOnly []string          `json:"transcription_json_only"`
	TranscriptionDiarized []string          `json:"transcription_diarized"`
	ShutDown              map[string]string `json:"shut_down"`
	ShuttingDown          map[string]string `json:"shutting_down"`
}

// Contract is one vendor's.
type Contract struct {
	Vendor      string               `json:"vendor"`
	Models      Models               `json:"models"`
	Operations  map[string]Operation `json:"operations"`
	Definitions map[string]*Schema   `json:"definitions"`
	Error       struct {
		Status []int               `json:"status"`
		Body   *Schema             `json:"body"`
		Codes  map[string][]string `json:"codes"`
	} `json:"error"`
}

// The contracts, loaded once.
var (
	OpenAI = load("openai")
	Gemini = load("gemini")
)

func load(vendor string) *Contract {
	data, err := files.ReadFile("testdata/" + vendor + ".json")
	if err != nil {
		panic(err)
	}
	var c Contract
	if err := json.Unmarshal(data, &c); err != nil {
		panic(fmt.Sprintf("contract %s: %v", vendor, err))
	}
	return &c
}

// File is an uploaded file of a multipart request, as the validator sees
// it.
type File struct {
	ContentType string
	Size        int
}

// Op returns the named operation; it panics on a name the contract lacks,
// a mistake in the caller's code.
func (c *Contract) Op(name string) Operation {
	op, ok := c.Operations[name]
	if !ok {
		panic(fmt.Sprintf("contract %s: no operation %q", c.Vendor, name))
	}
	return op
}

// CheckRequest validates a decoded request body (JSON decoded into any,
// or a multipart form as map[string]any of strings, numbers, []any and
// File) against operation op. It returns every problem found, sorted.
func (c *Contract) CheckRequest(op string, body any) []string {
	return c.check(c.Op(op).Request, body)
}

// CheckResponse validates a 2xx answer of op; for a non-2xx status the
// vendor's error body and status are checked instead.
func (c *Contract) CheckResponse(op string, status int, body []byte) []string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []string{"answer is not JSON: " + err.Error()}
	}
	if status/100 != 2 {
		var problems []string
		if !slices.Contains(c.Error.Status, status) {
			problems = append(problems, fmt.Sprintf("status %d is not one the vendor documents", status))
		}
		return append(problems, c.check(c.Error.Body, v)...)
	}
	s := c.Op(op).Response
	if op == "createTranscription" {
		if m, ok := v.(map[string]any); ok && m["task"] == "transcribe" && m["segments"] != nil && m["language"] == nil {
			s = c.Op(op).ResponseDiarized
		}
	}
	return c.check(s, v)
}

// CheckModel reports why the vendor would refuse model for a kind of
// operation ("image", "image_edit", "chat", "transcription"): "" when it
// lists it and has not shut it down.
func (c *Contract) CheckModel(kind, model string) string {
	if d, ok := c.Models.ShutDown[model]; ok {
		return fmt.Sprintf("%s was shut down on %s", model, d)
	}
	list := map[string][]string{"image": c.Models.Image, "image_edit": c.Models.ImageEdit, "chat": c.Models.Chat, "transcription": c.Models.Transcription}[kind]
	if !slices.Contains(list, model) {
		return fmt.Sprintf("%s is not a %s model of %s", model, kind, c.Vendor)
	}
	return ""
}

func (c *Contract) check(s *Schema, v any) []string {
	var problems []string
	c.walk(s, v, "", &problems)
	sort.Strings(problems)
	return problems
}

func (c *Contract) walk(s *Schema, v any, at string, problems *[]string) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		c.walk(c.Definitions[s.Ref], v, at, problems)
		return
	}
	fail := func(format string, args ...any) {
		where := at
		if where == "" {
			where = "body"
		}
		*problems = append(*problems, where+": "+fmt.Sprintf(format, args...))
	}
	integerAsNumber := typeOf(v) == "integer" && slices.Contains(s.Type, "number")
	if len(s.Type) > 0 && !slices.Contains(s.Type, typeOf(v)) && !integerAsNumber {
		fail("%s, want %s", typeOf(v), strings.Join(s.Type, " or "))
		return
	}
	if len(s.Enum) > 0 && v != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		fail("%v is not one of %v", v, s.Enum)
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				fail("required field %q missing", r)
			}
		}
		for k, fv := range x {
			ps, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					fail("unknown field %q", k)
				}
				continue
			}
			c.walk(ps, fv, join(at, k), problems)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			fail("%d items, want at least %d", len(x), *s.MinItems)
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			fail("%d items, want at most %d", len(x), *s.MaxItems)
		}
		for i, e := range x {
			c.walk(s.Items, e, fmt.Sprintf("%s[%d]", at, i), problems)
		}
	case string:
		if s.MaxLength != nil && len([]rune(x)) > *s.MaxLength {
			fail("%d characters, want at most %d", len([]rune(x)), *s.MaxLength)
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(x) {
			fail("%q does not match %s", x, s.Pattern)
		}
		if s.Format == "base64" {
			raw, err := decodeBase64(x)
			if err != nil {
				fail("not base64")
			} else if s.MaxBytes != nil && len(raw) > *s.MaxBytes {
				fail("%d bytes, want at most %d", len(raw), *s.MaxBytes)
			}
		}
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			fail("%v below the minimum %v", x, *s.Minimum)
		}
		if s.Maximum != nil && x > *s.Maximum {
			fail("%v above the maximum %v", x, *s.Maximum)
		}
	case File:
		if s.MaxBytes != nil && x.Size > *s.MaxBytes {
			fail("file of %d bytes, want at most %d", x.Size, *s.MaxBytes)
		}
		if len(s.ContentType) > 0 && !slices.Contains(s.ContentType, x.ContentType) {
			fail("file of type %q, want one of %v", x.ContentType, s.ContentType)
		}
	}
}

// decodeBase64 reads bytes as proto JSON writes them: standard or
// URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		var raw []byte
		if raw, err = enc.DecodeString(s); err == nil {
			return raw, nil
		}
	}
	return nil, err
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// typeOf names v's JSON type; a whole float64 is an integer.
func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case int:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case File:
		return "binary"
	}
	return fmt.Sprintf("%T", v)
}
