package providerfake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Gemini fakes the Gemini API's generateContent for image models:
// POST /v1beta/models/{model}:generateContent with the key in the
// x-goog-api-key header (the fake refuses it in the query string, where it
// would leak into logs), parts of text and inline_data (or inlineData),
// generationConfig with responseModalities and imageConfig.aspectRatio.
// It answers a candidate with a text part and an inlineData PNG, and
// errors as {"error": {code, message, status}}.
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
}

// NewGemini starts a fake, closed when the test ends.
func NewGemini(t testing.TB) *Gemini {
	t.Helper()
	f := &Gemini{}
	f.start(t, "AIza-fake-", f.serve)
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

// geminiSizes are gemini-2.5-flash-image's output sizes by aspect ratio.
var geminiSizes = map[string][2]int{
	"1:1": {1024, 1024}, "2:3": {832, 1248}, "3:2": {1248, 832}, "3:4": {864, 1184}, "4:3": {1184, 864},
	"4:5": {896, 1152}, "5:4": {1152, 896}, "9:16": {768, 1344}, "16:9": {1344, 768}, "21:9": {1536, 672},
}

var geminiPath = regexp.MustCompile(`^/v1beta/models/([A-Za-z0-9._-]+):generateContent$`)

func (f *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	var c GeminiCall
	if status, why := f.parse(r, &c); why != "" {
		c.Status, c.Problem = status, why
		f.record(c)
		writeBody(w, status, []byte(GeminiError(status, map[int]string{
			http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusForbidden: "PERMISSION_DENIED",
			http.StatusNotFound: "NOT_FOUND", http.StatusMethodNotAllowed: "INVALID_ARGUMENT",
		}[status], why)))
		return
	}
	if status, played := f.answer(w, r); played {
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
	img := picture(size[0], size[1], fmt.Sprintf("gemini %d %s", n, c.Text))
	writeJSON(w, http.StatusOK, map[string]any{
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
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return http.StatusBadRequest, "Invalid Content-Type, expected application/json"
	}
	var req geminiRequest
	dec := json.NewDecoder(r.Body)
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
	if _, ok := geminiSizes[c.AspectRatio]; c.AspectRatio != "" && !ok {
		return http.StatusBadRequest, fmt.Sprintf("Unsupported aspect ratio %q.", c.AspectRatio)
	}
	if !slices.Contains(c.Modalities, "IMAGE") {
		// Without it the model answers text only; the fake refuses so an
		// adapter that forgets it fails rather than getting a picture.
		return http.StatusBadRequest, "the fake answers image requests only: generationConfig.responseModalities must include IMAGE"
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
		}
	}
	c.Text = strings.Join(text, "\n")
	return ""
}
