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

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
)

// DefaultBaseURL fills a Config that leaves it empty; the default model
// is providerkit.GeminiImages.Default.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// Config configures the adapter: APIKey is required; BaseURL defaults to
// DefaultBaseURL, Model to the catalogue's default, Timeout to
// providerkit.DefaultTimeout.
type Config = providerkit.Config

// Client implements engine.Engine over the provider's API.
type Client struct {
	ep *providerkit.Endpoint
}

var _ engine.Engine = (*Client)(nil)

// New checks cfg and returns a client. The errors never show the key.
func New(cfg Config) (*Client, error) {
	ep, err := providerkit.NewEndpoint(cfg, providerkit.Defaults{
		Provider: "gemini", BaseURL: DefaultBaseURL, Dialect: vendorapi.Gemini, Catalogue: providerkit.GeminiImages,
		Header: func(key string) http.Header { return http.Header{"X-Goog-Api-Key": {key}} },
	})
	if err != nil {
		return nil, err
	}
	return &Client{ep: ep}, nil
}

// Name is "gemini".
func (*Client) Name() string { return "gemini" }

// Model is the configured model's name.
func (c *Client) Model() string { return c.ep.Model().Name }

// CheckModel looks the model up (GET /v1beta/models/{model}); errors as
// engine.ModelChecker.
func (c *Client) CheckModel(ctx context.Context) error { return c.ep.CheckModel(ctx) }

// Generate draws req. Errors as engine.Generator; an answer without a
// picture is engine.ErrRejected when the prompt or the candidate was
// blocked for its content, and engine.ErrUnavailable (ReasonNoImage)
// when it stopped for any other reason.
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
)

func (c *Client) call(ctx context.Context, req engine.Request) (engine.Result, error) {
	p := providerkit.Build(req, c.ep.Model())
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
	data, err := c.ep.Call(ctx, c.ep.URL("models", c.ep.Model().Name+":generateContent"), "application/json", body, nil)
	if err != nil {
		return engine.Result{}, err
	}
	var resp response
	if err := json.Unmarshal(data, &resp); err != nil {
		return engine.Result{}, c.ep.Faultf("decode answer: %v", err)
	}
	pic, why, refusal := picture(resp)
	switch {
	case pic != "":
		return c.ep.Picture(pic, req.Aspect)
	case refusal:
		return engine.Result{}, c.ep.Refused(why)
	}
	return engine.Result{}, c.ep.Unavailable(engine.ReasonNoImage, 0, why)
}

// contentStops are the finish and block reasons that are a refusal of
// the request's content (go-genai's FinishReason and BlockedReason):
// anything else (NO_IMAGE, OTHER, MAX_TOKENS, RECITATION, IMAGE_OTHER...)
// is the model failing to draw, which a retry may mend.
var contentStops = map[string]bool{
	"SAFETY": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "MODEL_ARMOR": true, "JAILBREAK": true,
}

// picture finds the first image of the first candidate (skipping the
// drafts thinking models show as thought parts), or says why there is
// none (a blocked prompt, a stopped candidate, or the model's words) and
// whether that is a refusal of the content.
func picture(resp response) (data, why string, refusal bool) {
	if r := resp.PromptFeedback.BlockReason; r != "" {
		return "", strings.TrimSpace("prompt blocked: " + r + " " + resp.PromptFeedback.BlockReasonMessage), r != "OTHER"
	}
	if len(resp.Candidates) == 0 {
		return "", "no candidate", false
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
			return b.Data, "", false
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
	// A candidate that stopped normally with words instead of a picture
	// is the model declining in words.
	inWords := len(said) > 0 && (cand.FinishReason == "STOP" || cand.FinishReason == "")
	return "", why, contentStops[cand.FinishReason] || inWords
}
