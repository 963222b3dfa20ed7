package providerfake

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// OpenAI fakes the OpenAI Images API for GPT image models:
// POST /v1/images/generations (JSON) and POST /v1/images/edits
// (multipart/form-data), bearer-key authentication, answers
// {created, data: [{b64_json}], usage, …} and errors
// {"error": {message, type, param, code}}.
type OpenAI struct {
	base[OpenAICall]
}

// OpenAICall is one request the OpenAI fake received.
type OpenAICall struct {
	Endpoint      string // "generations" or "edits"; "" for an unknown path
	Model         string
	Prompt        string
	N             int
	Size          string
	Quality       string
	OutputFormat  string
	InputFidelity string
	Images        []Upload // the edits' image parts, in order
	Outcome
}

// NewOpenAI starts a fake, closed when the test ends.
func NewOpenAI(t testing.TB) *OpenAI {
	t.Helper()
	f := &OpenAI{}
	f.start(t, "sk-fake-", f.serve)
	return f
}

// OpenAIError is an error body in the API's format; an empty code is
// null, as the API writes it.
func OpenAIError(errType, code, message string) string {
	var c any
	if code != "" {
		c = code
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": errType, "param": nil, "code": c}})
	return string(body)
}

// The values the API takes for GPT image models.
var (
	openAIModels   = []string{"gpt-image-1", "gpt-image-1-mini", "gpt-image-1.5"}
	openAISizes    = []string{"auto", "1024x1024", "1536x1024", "1024x1536"}
	openAIQuality  = []string{"auto", "low", "medium", "high"}
	openAIFormats  = []string{"png", "jpeg"} // webp is valid too, but the fake cannot encode it
	openAIFidelity = []string{"low", "high"}
	openAIBackdrop = []string{"auto", "opaque", "transparent"}
)

// openAIParams are the parameters both endpoints share, as sent.
type openAIParams struct {
	Model             *string `json:"model"`
	Prompt            *string `json:"prompt"`
	N                 *int    `json:"n"`
	Size              *string `json:"size"`
	Quality           *string `json:"quality"`
	OutputFormat      *string `json:"output_format"`
	OutputCompression *int    `json:"output_compression"`
	Background        *string `json:"background"`
	Moderation        *string `json:"moderation"`
	User              *string `json:"user"`
	InputFidelity     *string `json:"input_fidelity"` // edits only
}

// refusal is the fake's own 4xx for a request the API would refuse.
type refusal struct {
	status  int
	errType string
	code    string
	message string
}

func invalid(code, format string, args ...any) *refusal {
	return &refusal{status: http.StatusBadRequest, errType: "invalid_request_error", code: code, message: fmt.Sprintf(format, args...)}
}

func (f *OpenAI) serve(w http.ResponseWriter, r *http.Request) {
	var c OpenAICall
	ref := f.parse(r, &c)
	if ref != nil {
		c.Status, c.Problem = ref.status, ref.message
		f.record(c)
		writeBody(w, ref.status, []byte(OpenAIError(ref.errType, ref.code, ref.message)))
		return
	}
	if status, played := f.answer(w, r); played {
		c.Status = status
		f.record(c)
		return
	}
	c.Status = http.StatusOK
	n := f.record(c)
	wd, ht := 1024, 1024
	if c.Size != "auto" {
		wd, _ = strconv.Atoi(c.Size[:strings.IndexByte(c.Size, 'x')])
		ht, _ = strconv.Atoi(c.Size[strings.IndexByte(c.Size, 'x')+1:])
	}
	data := make([]map[string]string, c.N)
	for i := range data {
		img := picture(wd, ht, fmt.Sprintf("openai %d %d %s", n, i, c.Prompt))
		data[i] = map[string]string{"b64_json": base64.StdEncoding.EncodeToString(encode(img, c.OutputFormat))}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"created": time.Now().Unix(), "background": "opaque", "data": data,
		"output_format": c.OutputFormat, "quality": c.Quality, "size": c.Size,
		"usage": map[string]any{
			"input_tokens": 50 + 65*len(c.Images), "output_tokens": 1056 * c.N, "total_tokens": 50 + 65*len(c.Images) + 1056*c.N,
			"input_tokens_details": map[string]int{"text_tokens": 50, "image_tokens": 65 * len(c.Images)},
		},
	})
}

// parse checks a request as the API does and fills c; nil means valid.
func (f *OpenAI) parse(r *http.Request, c *OpenAICall) *refusal {
	switch {
	case r.Method != http.MethodPost:
		return &refusal{status: http.StatusMethodNotAllowed, errType: "invalid_request_error", message: "Not allowed to " + r.Method + " on " + r.URL.Path + "."}
	case r.Header.Get("Authorization") != "Bearer "+f.key:
		return &refusal{status: http.StatusUnauthorized, errType: "invalid_request_error", code: "invalid_api_key",
			message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."}
	}
	var p openAIParams
	var ref *refusal
	switch r.URL.Path {
	case "/v1/images/generations":
		c.Endpoint = "generations"
		ref = parseJSON(r, &p)
	case "/v1/images/edits":
		c.Endpoint = "edits"
		ref = parseForm(r, &p, c)
	default:
		return &refusal{status: http.StatusNotFound, errType: "invalid_request_error", message: "Invalid URL (POST " + r.URL.Path + ")"}
	}
	if ref != nil {
		return ref
	}
	return p.check(c)
}

func parseJSON(r *http.Request, p *openAIParams) *refusal {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return invalid("", "Invalid Content-Type header (%q), expected application/json.", r.Header.Get("Content-Type"))
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		if name := unknownField(err); name != "" {
			return invalid("unknown_parameter", "Unknown parameter: '%s'.", name)
		}
		return invalid("", "We could not parse the JSON body of your request. (%v)", err)
	}
	if p.InputFidelity != nil {
		return invalid("unknown_parameter", "Unknown parameter: 'input_fidelity'.")
	}
	return nil
}

// parseForm reads an edits form: every field once, files in image or
// image[] (and mask), nothing else.
func parseForm(r *http.Request, p *openAIParams, c *OpenAICall) *refusal {
	mr, err := r.MultipartReader()
	if err != nil {
		return invalid("", "Invalid Content-Type header, expected multipart/form-data: %v", err)
	}
	fields := map[string]string{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return invalid("", "Could not parse multipart form: %v", err)
		}
		name := part.FormName()
		data, err := io.ReadAll(io.LimitReader(part, 50<<20+1))
		if err != nil {
			return invalid("", "Could not parse multipart form: %v", err)
		}
		switch {
		case name == "image" || name == "image[]":
			if len(data) > 50<<20 {
				return invalid("invalid_value", "Invalid file '%s': files must be under 50 MB.", name)
			}
			u, why := decodeUpload(part.Header.Get("Content-Type"), data)
			if why != "" {
				return invalid("invalid_image_file", "Invalid file '%s': %s.", name, why)
			}
			c.Images = append(c.Images, u)
		case name == "mask":
		case part.FileName() != "":
			return invalid("unknown_parameter", "Unknown parameter: '%s'.", name)
		default:
			if _, dup := fields[name]; dup {
				return invalid("invalid_value", "Parameter '%s' given more than once.", name)
			}
			fields[name] = string(data)
		}
	}
	switch {
	case len(c.Images) == 0:
		return invalid("missing_required_parameter", "Missing required parameter: 'image'.")
	case len(c.Images) > 16:
		return invalid("invalid_value", "Too many images: at most 16.")
	}
	// The form's text fields obey the same names and types as the JSON body.
	obj := map[string]any{}
	for k, v := range fields {
		obj[k] = v
		if k == "n" || k == "output_compression" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return invalid("invalid_type", "Invalid type for '%s': expected an integer.", k)
			}
			obj[k] = n
		}
	}
	body, _ := json.Marshal(obj)
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		if name := unknownField(err); name != "" {
			return invalid("unknown_parameter", "Unknown parameter: '%s'.", name)
		}
		return invalid("", "Invalid form: %v", err)
	}
	return nil
}

// check applies the API's value rules and the defaults, filling c.
func (p openAIParams) check(c *OpenAICall) *refusal {
	val := func(v *string, def string) string {
		if v == nil {
			return def
		}
		return *v
	}
	c.Model, c.Prompt = val(p.Model, "dall-e-2"), val(p.Prompt, "")
	c.Size, c.Quality, c.OutputFormat = val(p.Size, "auto"), val(p.Quality, "auto"), val(p.OutputFormat, "png")
	c.InputFidelity = val(p.InputFidelity, "")
	c.N = 1
	if p.N != nil {
		c.N = *p.N
	}
	oneOf := func(param, v string, allowed []string) *refusal {
		if slices.Contains(allowed, v) {
			return nil
		}
		return invalid("invalid_value", "Invalid value: '%s'. Supported values for '%s' are: %s.", v, param, strings.Join(allowed, ", "))
	}
	switch {
	case strings.TrimSpace(c.Prompt) == "":
		return invalid("missing_required_parameter", "Missing required parameter: 'prompt'.")
	case len([]rune(c.Prompt)) > 32000:
		return invalid("string_above_max_length", "Invalid 'prompt': string too long.")
	case c.N < 1 || c.N > 10:
		return invalid("integer_out_of_range", "Invalid 'n': must be between 1 and 10.")
	}
	for _, ref := range []*refusal{
		oneOf("model", c.Model, openAIModels),
		oneOf("size", c.Size, openAISizes),
		oneOf("quality", c.Quality, openAIQuality),
		oneOf("output_format", c.OutputFormat, openAIFormats),
	} {
		if ref != nil {
			return ref
		}
	}
	if p.InputFidelity != nil {
		if c.Model == "gpt-image-1-mini" {
			return invalid("unsupported_parameter", "Unsupported parameter: 'input_fidelity' is not supported with the model gpt-image-1-mini.")
		}
		if ref := oneOf("input_fidelity", c.InputFidelity, openAIFidelity); ref != nil {
			return ref
		}
	}
	if p.Background != nil {
		return oneOf("background", *p.Background, openAIBackdrop)
	}
	return nil
}
