package providerfake

import (
	"bytes"
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

	"hookline.dev/pkg/ai/vendorapi/contract"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
)

// OpenAI fakes the OpenAI Images API for GPT image models:
// POST /v1/images/generations (JSON) and POST /v1/images/edits
// (multipart/form-data), GET /v1/models/{model}, bearer-key
// authentication, answers {created, data: [{b64_json}], usage, …} and
// errors {"error": {message, type, param, code}}. Every request is
// checked against the vendor contract (pkg/ai/vendorapi/contract) and the
// model's entry of providerkit.OpenAIImages: its sizes, image count and
// size, input_fidelity. A model it does not list is refused as the API
// refuses it (400 invalid_value on the model); a retired one (Retire)
// answers 404 model_not_found.
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
	f.start(t, "sk-fake-", contract.OpenAI, f.serve)
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
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/models/") {
		f.lookup(w, r)
		return
	}
	var c OpenAICall
	ref := f.parse(r, &c)
	if ref == nil && f.isRetired(c.Model) {
		ref = &refusal{status: http.StatusNotFound, errType: "invalid_request_error", code: "model_not_found",
			message: fmt.Sprintf("The model '%s' does not exist or you do not have access to it.", c.Model)}
	}
	op := map[string]string{"generations": "createImage", "edits": "createImageEdit"}[c.Endpoint]
	if op == "" {
		op = "createImage"
	}
	if ref != nil {
		c.Status, c.Problem = ref.status, ref.message
		f.record(c)
		f.reply(w, op, ref.status, []byte(OpenAIError(ref.errType, ref.code, ref.message)))
		return
	}
	if status, played := f.answer(w, r, op); played {
		c.Status = status
		f.record(c)
		return
	}
	c.Status = http.StatusOK
	n := f.record(c)
	wd, ht := 1024, 1024
	if c.Size != "auto" {
		wd, ht, _ = parseSize(c.Size)
	}
	data := make([]map[string]string, c.N)
	for i := range data {
		img := f.picture(wd, ht, fmt.Sprintf("openai %d %d %s", n, i, c.Prompt), c.Prompt)
		data[i] = map[string]string{"b64_json": base64.StdEncoding.EncodeToString(encode(img, c.OutputFormat))}
	}
	quality := c.Quality
	if quality == "auto" {
		quality = "medium"
	}
	f.replyJSON(w, op, http.StatusOK, map[string]any{
		"created": time.Now().Unix(), "background": "opaque", "data": data,
		"output_format": c.OutputFormat, "quality": quality, "size": fmt.Sprintf("%dx%d", wd, ht),
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
	var (
		p   openAIParams
		ref *refusal
		doc any
		op  string
	)
	switch r.URL.Path {
	case "/v1/images/generations":
		c.Endpoint, op = "generations", "createImage"
		doc, ref = parseJSON(r, &p)
	case "/v1/images/edits":
		c.Endpoint, op = "edits", "createImageEdit"
		doc, ref = parseForm(r, &p, c)
	default:
		return &refusal{status: http.StatusNotFound, errType: "invalid_request_error", message: "Invalid URL (POST " + r.URL.Path + ")"}
	}
	if ref == nil {
		ref = p.check(c)
	}
	if ref != nil {
		return ref
	}
	// The vendor's contract is the last word on anything the checks above
	// let through.
	if problems := contract.OpenAI.CheckRequest(op, doc); len(problems) > 0 {
		return invalid("invalid_request", "Invalid request: %s.", strings.Join(problems, "; "))
	}
	return nil
}

func parseJSON(r *http.Request, p *openAIParams) (any, *refusal) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return nil, invalid("", "Invalid Content-Type header (%q), expected application/json.", r.Header.Get("Content-Type"))
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, invalid("", "Could not read the body: %v", err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, invalid("", "We could not parse the JSON body of your request. (%v)", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		if name := unknownField(err); name != "" {
			return nil, invalid("unknown_parameter", "Unknown parameter: '%s'.", name)
		}
		return nil, invalid("", "We could not parse the JSON body of your request. (%v)", err)
	}
	if p.InputFidelity != nil {
		return nil, invalid("unknown_parameter", "Unknown parameter: 'input_fidelity'.")
	}
	return doc, nil
}

// parseForm reads an edits form: every field once, files in image or
// image[] (and mask), nothing else.
func parseForm(r *http.Request, p *openAIParams, c *OpenAICall) (any, *refusal) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, invalid("", "Invalid Content-Type header, expected multipart/form-data: %v", err)
	}
	fields := map[string]string{}
	doc := map[string]any{}
	var files []any
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, invalid("", "Could not parse multipart form: %v", err)
		}
		name := part.FormName()
		data, err := io.ReadAll(io.LimitReader(part, 50<<20+1))
		if err != nil {
			return nil, invalid("", "Could not parse multipart form: %v", err)
		}
		if part.FileName() != "" {
			file := contract.File{ContentType: part.Header.Get("Content-Type"), Size: len(data)}
			if name == "image" || name == "image[]" {
				files = append(files, file)
			} else {
				doc[name] = file
			}
		} else if _, dup := doc[name]; !dup {
			doc[name] = formValue(name, string(data))
		}
		switch {
		case name == "image" || name == "image[]":
			if len(data) > 50<<20 {
				return nil, invalid("invalid_value", "Invalid file '%s': files must be under 50 MB.", name)
			}
			u, why := decodeUpload(part.Header.Get("Content-Type"), data)
			if why != "" {
				return nil, invalid("invalid_image_file", "Invalid file '%s': %s.", name, why)
			}
			c.Images = append(c.Images, u)
		case name == "mask":
		case part.FileName() != "":
			return nil, invalid("unknown_parameter", "Unknown parameter: '%s'.", name)
		default:
			if _, dup := fields[name]; dup {
				return nil, invalid("invalid_value", "Parameter '%s' given more than once.", name)
			}
			fields[name] = string(data)
		}
	}
	if files != nil {
		doc["image"] = files
	}
	switch {
	case len(c.Images) == 0:
		return nil, invalid("missing_required_parameter", "Missing required parameter: 'image'.")
	case len(c.Images) > 16:
		return nil, invalid("invalid_value", "Too many images: at most 16.")
	}
	// The form's text fields obey the same names and types as the JSON body.
	obj := map[string]any{}
	for k, v := range fields {
		obj[k] = v
		if k == "n" || k == "output_compression" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, invalid("invalid_type", "Invalid type for '%s': expected an integer.", k)
			}
			obj[k] = n
		}
	}
	body, _ := json.Marshal(obj)
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		if name := unknownField(err); name != "" {
			return nil, invalid("unknown_parameter", "Unknown parameter: '%s'.", name)
		}
		return nil, invalid("", "Invalid form: %v", err)
	}
	return doc, nil
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
	m, listed := providerkit.OpenAIImages.Lookup(c.Model)
	if !listed {
		return invalid("invalid_value", "Invalid value for 'model': '%s'. Supported values are: %s.", c.Model, strings.Join(providerkit.OpenAIImages.Names(), ", "))
	}
	if c.Endpoint == "edits" && len(c.Images) > m.Images {
		return invalid("invalid_value", "Too many images: %s takes at most %d.", c.Model, m.Images)
	}
	sizeRef := oneOf("size", c.Size, openAISizes)
	if slices.Contains(contract.OpenAI.Models.ImageAnySize, c.Model) {
		sizeRef = anySize(c.Size)
	}
	for _, ref := range []*refusal{
		sizeRef,
		oneOf("quality", c.Quality, openAIQuality),
		oneOf("output_format", c.OutputFormat, openAIFormats),
	} {
		if ref != nil {
			return ref
		}
	}
	if p.InputFidelity != nil {
		if !m.InputFidelity {
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

// lookup answers GET /v1/models/{model}: the Model object for a model the
// catalogue lists, 404 model_not_found for any other or a retired one.
func (f *OpenAI) lookup(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+f.key {
		f.reply(w, "retrieveModel", http.StatusUnauthorized, []byte(OpenAIError("invalid_request_error", "invalid_api_key", "Incorrect API key provided.")))
		return
	}
	model := strings.TrimPrefix(r.URL.Path, "/v1/models/")
	if _, listed := providerkit.OpenAIImages.Lookup(model); !listed || f.isRetired(model) {
		f.reply(w, "retrieveModel", http.StatusNotFound, []byte(OpenAIError("invalid_request_error", "model_not_found",
			fmt.Sprintf("The model '%s' does not exist or you do not have access to it.", model))))
		return
	}
	f.replyJSON(w, "retrieveModel", http.StatusOK, map[string]any{"id": model, "object": "model", "created": 1745000000, "owned_by": "system", "shutdown_date": nil})
}

// anySize checks a gpt-image-2 size: WIDTHxHEIGHT with both sides
// divisible by 16, a ratio between 1:3 and 3:1, at most 3840x2160
// (CreateImageRequest.size).
func anySize(size string) *refusal {
	if size == "auto" {
		return nil
	}
	w, h, ok := parseSize(size)
	switch {
	case !ok || w%16 != 0 || h%16 != 0:
		return invalid("invalid_value", "Invalid 'size': '%s': width and height must both be divisible by 16.", size)
	case w > 3*h || h > 3*w:
		return invalid("invalid_value", "Invalid 'size': '%s': the aspect ratio must be between 1:3 and 3:1.", size)
	case max(w, h) > 3840 || w*h > 3840*2160:
		return invalid("invalid_value", "Invalid 'size': '%s': above the maximum resolution 3840x2160.", size)
	}
	return nil
}

func parseSize(size string) (w, h int, ok bool) {
	ws, hs, found := strings.Cut(size, "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	return w, h, found && errW == nil && errH == nil && w > 0 && h > 0
}

// formValue is a form field as the contract sees it: the API reads its
// integer parameters as numbers.
func formValue(name, v string) any {
	if n, err := strconv.ParseFloat(v, 64); err == nil && (name == "n" || name == "output_compression" || name == "partial_images") {
		return n
	}
	return v
}
