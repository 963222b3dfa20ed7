// Package gemini is the image engine adapter for the Gemini API: one
// generateContent call with the prompt and the input images as inline
// data, answering the picture as an inline-data part, which is fitted to
// the thumbnail size.
package gemini

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
)

// DefaultBaseURL and DefaultModel fill a Config that leaves them empty.
const (
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	DefaultModel   = "gemini-2.5-flash-image"
)

// limits keep one request under the API's 20 MB inline-data limit, with
// room for base64's third more; the image models take up to 14 inputs.
var limits = providerkit.Limits{Images: 14, Bytes: 14 << 20}

// Config configures the adapter: APIKey is required; BaseURL defaults to
// DefaultBaseURL, Model to DefaultModel, Timeout to
// providerkit.DefaultTimeout.
type Config = providerkit.Config

// Client implements engine.Engine over the provider's API.
type Client struct {
	ep *providerkit.Endpoint
}

var _ engine.Engine = (*Client)(nil)

// New checks cfg and returns a client. The errors never show the key.
func New(cfg Config) (*Client, error) {
	ep, err := providerkit.NewEndpoint(cfg, providerkit.Defaults{Provider: "gemini", BaseURL: DefaultBaseURL, Model: DefaultModel})
	if err != nil {
		return nil, err
	}
	return &Client{ep: ep}, nil
}

// Name is "gemini".
func (*Client) Name() string { return "gemini" }

// Generate draws req. Errors as engine.Generator; an answer without a
// picture (a safety block, a refusal in words) is engine.ErrRejected.
func (c *Client) Generate(ctx context.Context, req engine.Request) (engine.Result, error) {
	return c.call(ctx, req)
}

// Vary draws a variation of req.Parent, sent as the first input image.
// Errors as Generate.
func (c *Client) Vary(ctx context.Context, req engine.Request) (engine.Result, error) {
	if req.Parent == nil {
		return engine.Result{}, c.ep.Faultf("a variation needs its parent image")
	}
	return c.call(ctx, req)
}

// The request body, in the spellings of the API's REST reference.
type (
	request struct {
		Contents         []content        `json:"contents"`
		GenerationConfig generationConfig `json:"generationConfig"`
	}
	content struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	part struct {
		Text       string `json:"text,omitempty"`
		InlineData *blob  `json:"inline_data,omitempty"`
	}
	blob struct {
		MimeType string `json:"mime_type"`
		Data     []byte `json:"data"` // base64 on the wire
	}
	generationConfig struct {
		ResponseModalities []string    `json:"responseModalities"`
		ImageConfig        imageConfig `json:"imageConfig"`
		// Seed makes two variations of one parent two different pictures.
		Seed int32 `json:"seed"`
	}
	imageConfig struct {
		AspectRatio string `json:"aspectRatio"`
	}
)

// The answer. The REST API writes camelCase, but proto JSON allows
// snake_case and proxies use it, so inline data is read in both spellings
// (encoding/json matches case but not underscores).
type (
	response struct {
		Candidates []struct {
			Content struct {
				Parts []answerPart `json:"parts"`
			} `json:"content"`
			FinishReason  string `json:"finishReason"`
			FinishMessage string `json:"finishMessage"`
		} `json:"candidates"`
		PromptFeedback struct {
			BlockReason        string `json:"blockReason"`
			BlockReasonMessage string `json:"blockReasonMessage"`
		} `json:"promptFeedback"`
	}
	answerPart struct {
		Text       string      `json:"text"`
		Thought    bool        `json:"thought"`
		InlineData *answerBlob `json:"inlineData"`
		Inline     *answerBlob `json:"inline_data"`
	}
	answerBlob struct {
		MimeType string `json:"mimeType"`
		Mime     string `json:"mime_type"`
		Data     string `json:"data"`
	}
	errorResponse struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
)

func (c *Client) call(ctx context.Context, req engine.Request) (engine.Result, error) {
	p := providerkit.Build(req, limits)
	parts := []part{{Text: p.Text}}
	for _, im := range p.Images {
		parts = append(parts, part{InlineData: &blob{MimeType: im.ContentType, Data: im.Data}})
	}
	body, err := json.Marshal(request{
		Contents: []content{{Role: "user", Parts: parts}},
		GenerationConfig: generationConfig{
			ResponseModalities: []string{"IMAGE"},
			ImageConfig:        imageConfig{AspectRatio: string(req.Aspect)},
			Seed:               int32(req.Seed & 0x7fffffff), //nolint:gosec // masked to 31 bits
		},
	})
	if err != nil {
		return engine.Result{}, c.ep.Faultf("encode request: %v", err)
	}
	u := c.ep.URL("v1beta", "models", c.ep.Model()+":generateContent")
	status, data, err := c.ep.Post(ctx, u, "application/json", body, http.Header{"X-Goog-Api-Key": {c.ep.Key()}})
	if err != nil {
		return engine.Result{}, err
	}
	if status/100 != 2 {
		return engine.Result{}, c.failure(status, data)
	}
	var resp response
	if err := json.Unmarshal(data, &resp); err != nil {
		return engine.Result{}, c.ep.Faultf("decode answer: %v", err)
	}
	pic, why := picture(resp)
	if pic == "" {
		return engine.Result{}, c.ep.Failure(status, why, true)
	}
	return c.ep.Picture(pic, req.Aspect)
}

// picture finds the first image of the first candidate (skipping the
// drafts thinking models show as thought parts), or says why there is
// none: a blocked prompt, a stopped candidate, or the model's words.
func picture(resp response) (data, why string) {
	if r := resp.PromptFeedback.BlockReason; r != "" {
		return "", strings.TrimSpace("prompt blocked: " + r + " " + resp.PromptFeedback.BlockReasonMessage)
	}
	if len(resp.Candidates) == 0 {
		return "", "no candidate"
	}
	cand := resp.Candidates[0]
	var said []string
	for _, p := range cand.Content.Parts {
		b := p.InlineData
		if b == nil {
			b = p.Inline
		}
		switch {
		case p.Thought:
		case b != nil && b.Data != "" && strings.HasPrefix(b.MimeType+b.Mime, "image/"):
			return b.Data, ""
		case p.Text != "":
			said = append(said, p.Text)
		}
	}
	why = "no image"
	if cand.FinishReason != "" {
		why += ", finish reason " + cand.FinishReason
	}
	if cand.FinishMessage != "" {
		why += ": " + cand.FinishMessage
	}
	if len(said) > 0 {
		why += "; the model said: " + strings.Join(said, " ")
	}
	return "", why
}

// failure maps an error answer. Gemini reports safety in 200 answers, so
// no status here is a rejection.
func (c *Client) failure(status int, data []byte) error {
	var e errorResponse
	detail := string(data)
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		detail = e.Error.Status + ": " + e.Error.Message
	}
	return c.ep.Failure(status, detail, false)
}
