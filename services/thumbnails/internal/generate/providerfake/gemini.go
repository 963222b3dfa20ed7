package providerfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/vendorapi/contract"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
)

// Gemini fakes the Gemini API's generateContent for image models:
// POST /v1beta/models/{model}:generateContent with the key in the
// x-goog-api-key header (the fake refuses it in the query string, where it
// would leak into logs), parts of text and inline_data (or inlineData),
// generationConfig with responseModalities and imageConfig.aspectRatio.
// It answers a candidate with a text part and an inlineData PNG, and
// errors as {"error": {code, message, status}}; GET
// /v1beta/models/{model} answers the model. Every request and answer is
// checked against the vendor contract (pkg/ai/vendorapi/contract), and the
// model's entry of providerkit.GeminiImages bounds the input images
// (count, bytes each) and the aspect ratios. A model the catalogue does
// not list, one the vendor shut down, or one retired by the test
// (Retire) answers 404 NOT_FOUND, as the API does.
type Gemini struct {
	base[GeminiCall]
}

// GeminiCall is one request the Gemini fake received.
type GeminiCall struct {
	Model       string
	Text        string   // the text parts, joined by newlines
	Images      []Upload // the inline images, in order
	Modalities  []string
	AspectRatio string
	Seed        *int32
	Outcome
	sizes []int // the inline images' bytes
}

// NewGemini starts a fake, closed when the test ends.
func NewGemini(t testing.TB) *Gemini {
	t.Helper()
	f := &Gemini{}
	f.start(t, "AIza-fake-", contract.Gemini, f.serve)
	return f
}

// GeminiError is an error body in the API's format.
func GeminiError(code int, status, message string) string {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": message, "status": status}})
	return string(body)
}

// The request, as the fake accepts it: proto JSON takes both spellings of
// a field, so inline data is accepted in both; anything unknown is an
// error, as in the real API.
type (
	geminiRequest struct {
		Contents          []geminiContent     `json:"contents"`
		GenerationConfig  *geminiGenConfig    `json:"generationConfig"`
		SafetySettings    []map[string]string `json:"safetySettings"`
		SystemInstruction *geminiContent      `json:"systemInstruction"`
	}
	geminiContent struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	}
	geminiPart struct {
		Text       *string     `json:"text"`
		InlineData *geminiBlob `json:"inline_data"`
		Inline     *geminiBlob `json:"inlineData"`
	}
	geminiBlob struct {
		MimeType string `json:"mime_type"`
		Mime     string `json:"mimeType"`
		Data     string `json:"data"`
	}
	geminiGenConfig struct {
		ResponseModalities []string `json:"responseModalities"`
		ImageConfig        *struct {
			AspectRatio string `json:"aspectRatio"`
		} `json:"imageConfig"`
		Seed           *int32   `json:"seed"`
		Temperature    *float64 `json:"temperature"`
		CandidateCount *int     `json:"candidateCount"`
	}
)

// geminiSizes are the Gemini 3 image models' pictures at 1K by aspect
// ratio.
var geminiSizes = map[string][2]int{
	"1:1": {1024, 1024}, "2:3": {848, 1264}, "3:2": {1264, 848}, "3:4": {896, 1200}, "4:3": {1200, 896},
	"4:5": {928, 1152}, "5:4": {1152, 928}, "9:16": {768, 1376}, "16:9": {1376, 768}, "21:9": {1584, 672},
	"1:4": {512, 2064}, "4:1": {2064, 512}, "1:8": {352, 2928}, "8:1": {2928, 352},
}

var geminiModelPath = regexp.MustCompile(`^/v1beta/models/([A-Za-z0-9._-]+)$`)

// geminiStatuses name the API's error statuses by HTTP status.
var geminiStatuses = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusForbidden: "PERMISSION_DENIED",
	http.StatusNotFound: "NOT_FOUND", http.StatusMethodNotAllowed: "INVALID_ARGUMENT",
}

// notFound is the API's answer for a model it does not serve.
func notFound(model string) string {
	return GeminiError(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent. "+
		"Call ListModels to see the list of available models and their supported methods.", model))
}

// serves reports whether the API serves model today.
func (f *Gemini) serves(model string) bool {
	_, listed := providerkit.GeminiImages.Lookup(model)
	_, shut := contract.Gemini.Models.ShutDown[model]
	return listed && !shut && !f.isRetired(model)
}

var geminiPath = regexp.MustCompile(`^/v1beta/models/([A-Za-z0-9._-]+):generateContent$`)

func (f *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	if m := geminiModelPath.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodGet {
		f.lookup(w, r, m[1])
		return
	}
	var c GeminiCall
	if status, why := f.parse(r, &c); why != "" {
		c.Status, c.Problem = status, why
		f.record(c)
		body := GeminiError(status, geminiStatuses[status], why)
		if status == http.StatusNotFound && c.Model != "" {
			body = notFound(c.Model)
		}
		f.reply(w, "generateContent", status, []byte(body))
		return
	}
	if status, played := f.answer(w, r, "generateContent"); played {
		c.Status = status
		f.record(c)
		return
	}
	c.Status = http.StatusOK
	n := f.record(c)
	size, ok := geminiSizes[c.AspectRatio]
	if !ok {
		size = geminiSizes["1:1"]
	}
	img := f.picture(size[0], size[1], fmt.Sprintf("gemini %d %s", n, c.Text), c.Text)
	f.replyJSON(w, "generateContent", http.StatusOK, map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{
				map[string]any{"text": "Here is the thumbnail."},
				map[string]any{"inlineData": map[string]string{"mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(encode(img, "png"))}},
			}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 20 + 258*len(c.Images), "candidatesTokenCount": 1290, "totalTokenCount": 1310 + 258*len(c.Images)},
		"modelVersion":  c.Model,
		"responseId":    fmt.Sprintf("fake-%d", n),
	})
}

// parse checks a request as the API does and fills c; an empty reason
// means valid.
func (f *Gemini) parse(r *http.Request, c *GeminiCall) (int, string) {
	m := geminiPath.FindStringSubmatch(r.URL.Path)
	switch {
	case r.Method != http.MethodPost:
		return http.StatusMethodNotAllowed, "method " + r.Method + " not allowed"
	case m == nil:
		return http.StatusNotFound, "path " + r.URL.Path + " is not a generateContent method"
	case r.URL.Query().Has("key"):
		return http.StatusBadRequest, "the fake takes the key in the x-goog-api-key header only"
	case r.Header.Get("x-goog-api-key") == "":
		return http.StatusForbidden, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
	case r.Header.Get("x-goog-api-key") != f.key:
		return http.StatusBadRequest, "API key not valid. Please pass a valid API key."
	}
	c.Model = m[1]
	if !f.serves(c.Model) {
		return http.StatusNotFound, "model not served"
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return http.StatusBadRequest, "Invalid Content-Type, expected application/json"
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return http.StatusBadRequest, "could not read the body: " + err.Error()
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return http.StatusBadRequest, "Invalid JSON payload received. " + err.Error()
	}
	var req geminiRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if name := unknownField(err); name != "" {
			return http.StatusBadRequest, fmt.Sprintf("Invalid JSON payload received. Unknown name %q: Cannot find field.", name)
		}
		return http.StatusBadRequest, "Invalid JSON payload received. " + err.Error()
	}
	if why := c.readContents(req.Contents); why != "" {
		return http.StatusBadRequest, why
	}
	if g := req.GenerationConfig; g != nil {
		c.Modalities, c.Seed = g.ResponseModalities, g.Seed
		if g.ImageConfig != nil {
			c.AspectRatio = g.ImageConfig.AspectRatio
		}
	}
	for _, mod := range c.Modalities {
		if mod != "TEXT" && mod != "IMAGE" {
			return http.StatusBadRequest, fmt.Sprintf("Invalid value at 'generation_config.response_modalities' (%q)", mod)
		}
	}
	model, _ := providerkit.GeminiImages.Lookup(c.Model)
	if c.AspectRatio != "" && !slices.Contains(model.AspectRatios, c.AspectRatio) {
		return http.StatusBadRequest, fmt.Sprintf("Unsupported aspect ratio %q.", c.AspectRatio)
	}
	if len(c.Images) > model.Images {
		return http.StatusBadRequest, fmt.Sprintf("Too many input images: %s takes at most %d, got %d.", c.Model, model.Images, len(c.Images))
	}
	for i, size := range c.sizes {
		if size > model.ImageBytes {
			return http.StatusBadRequest, fmt.Sprintf("Inline image %d is %d bytes; %s takes at most %d.", i+1, size, c.Model, model.ImageBytes)
		}
	}
	if !slices.Contains(c.Modalities, "IMAGE") {
		// Without it the model answers text only; the fake refuses so an
		// adapter that forgets it fails rather than getting a picture.
		return http.StatusBadRequest, "the fake answers image requests only: generationConfig.responseModalities must include IMAGE"
	}
	// The vendor's contract is the last word on anything the checks above
	// let through.
	if problems := contract.Gemini.CheckRequest("generateContent", doc); len(problems) > 0 {
		return http.StatusBadRequest, "Invalid JSON payload received. " + strings.Join(problems, "; ")
	}
	return 0, ""
}

// readContents checks the conversation and collects its text and images.
func (c *GeminiCall) readContents(contents []geminiContent) string {
	if len(contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	var text []string
	for i, content := range contents {
		if content.Role != "" && content.Role != "user" && content.Role != "model" {
			return fmt.Sprintf("Please use a valid role: user, model (contents[%d].role %q).", i, content.Role)
		}
		if len(content.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		for j, p := range content.Parts {
			blob := p.InlineData
			if blob == nil {
				blob = p.Inline
			}
			switch {
			case (p.Text != nil) == (blob != nil) || p.InlineData != nil && p.Inline != nil:
				return fmt.Sprintf("contents[%d].parts[%d]: a part holds exactly one of text or inline data", i, j)
			case p.Text != nil:
				text = append(text, *p.Text)
				continue
			}
			mt := blob.MimeType
			if mt == "" {
				mt = blob.Mime
			}
			data, err := base64.StdEncoding.DecodeString(blob.Data)
			if err != nil {
				return fmt.Sprintf("Invalid value at 'contents[%d].parts[%d].inline_data.data' (TYPE_BYTES), Base64 decoding failed", i, j)
			}
			u, why := decodeUpload(mt, data)
			if why != "" {
				return fmt.Sprintf("contents[%d].parts[%d].inline_data: %s", i, j, why)
			}
			c.Images = append(c.Images, u)
			c.sizes = append(c.sizes, len(data))
		}
	}
	c.Text = strings.Join(text, "\n")
	return ""
}

// lookup answers GET /v1beta/models/{model}.
func (f *Gemini) lookup(w http.ResponseWriter, r *http.Request, model string) {
	if r.Header.Get("x-goog-api-key") != f.key {
		f.reply(w, "getModel", http.StatusBadRequest, []byte(GeminiError(http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")))
		return
	}
	if !f.serves(model) {
		f.reply(w, "getModel", http.StatusNotFound, []byte(GeminiError(http.StatusNotFound, "NOT_FOUND", "models/"+model+" is not found for API version v1beta")))
		return
	}
	f.replyJSON(w, "getModel", http.StatusOK, map[string]any{
		"name": "models/" + model, "version": "1.0", "displayName": model, "inputTokenLimit": 131072, "outputTokenLimit": 32768,
		"supportedGenerationMethods": []string{"generateContent", "countTokens"},
	})
}
