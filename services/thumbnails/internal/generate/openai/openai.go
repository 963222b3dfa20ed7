// Package openai is the image engine adapter for the OpenAI Images API:
// the GPT image models through /v1/images/generations (text only) and
// /v1/images/edits (with input images: faces, references, a brand logo,
// the parent of a variation). Both answer base64 pictures, which are
// fitted to the thumbnail size.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// DefaultBaseURL fills a Config that leaves it empty; the default model
// is providerkit.OpenAIImages.Default.
const DefaultBaseURL = "https://api.openai.com"

// What every call asks for: "medium" quality is the price/quality point
// for a thumbnail, and JPEG keeps answers small (gpt-image models answer
// PNG by default).
const (
	quality      = "medium"
	outputFormat = "jpeg"
)

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
		Provider: "openai", BaseURL: DefaultBaseURL, Dialect: vendorapi.OpenAI, Catalogue: providerkit.OpenAIImages,
		Header: func(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} },
	})
	if err != nil {
		return nil, err
	}
	return &Client{ep: ep}, nil
}

// Name is "openai".
func (*Client) Name() string { return "openai" }

// Model is the configured model's name.
func (c *Client) Model() string { return c.ep.Model().Name }

// CheckModel looks the model up (GET /v1/models/{model}); errors as
// engine.ModelChecker.
func (c *Client) CheckModel(ctx context.Context) error { return c.ep.CheckModel(ctx) }

// Generate draws req: through generations when it has no input image,
// through edits when it has faces, references or a logo to draw from.
// Errors as engine.Generator.
func (c *Client) Generate(ctx context.Context, req engine.Request) (engine.Result, error) {
	p := providerkit.Build(req, c.ep.Model())
	if len(p.Images) == 0 {
		return c.generate(ctx, req, p)
	}
	return c.edit(ctx, req, p)
}

// Vary draws a variation of req.Parent through edits, the parent first
// among the input images. Errors as engine.Varier.
func (c *Client) Vary(ctx context.Context, req engine.Request) (engine.Result, error) {
	if req.Parent == nil {
		return engine.Result{}, c.ep.Faultf("a variation needs its parent image")
	}
	return c.edit(ctx, req, providerkit.Build(req, c.ep.Model()))
}

// generationRequest is the body of POST /v1/images/generations.
type generationRequest struct {
	Model        string `json:"model"`
	Prompt       string `json:"prompt"`
	N            int    `json:"n"`
	Size         string `json:"size"`
	Quality      string `json:"quality"`
	OutputFormat string `json:"output_format"`
}

func (c *Client) generate(ctx context.Context, req engine.Request, p providerkit.Prompt) (engine.Result, error) {
	body, err := json.Marshal(generationRequest{
		Model: c.ep.Model().Name, Prompt: p.Text, N: 1, Size: c.ep.Model().Size(req.Aspect).String(),
		Quality: quality, OutputFormat: outputFormat,
	})
	if err != nil {
		return engine.Result{}, c.ep.Faultf("encode request: %v", err)
	}
	return c.call(ctx, req.Aspect, c.ep.URL("images", "generations"), "application/json", body)
}

func (c *Client) edit(ctx context.Context, req engine.Request, p providerkit.Prompt) (engine.Result, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fields := [][2]string{
		{"model", c.ep.Model().Name}, {"prompt", p.Text}, {"n", "1"}, {"size", c.ep.Model().Size(req.Aspect).String()},
		{"quality", quality}, {"output_format", outputFormat},
	}
	if len(req.Faces) > 0 && c.ep.Model().InputFidelity {
		// Keeps the supplied faces recognisable rather than redrawn; the
		// mini model refuses the parameter.
		fields = append(fields, [2]string{"input_fidelity", "high"})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return engine.Result{}, c.ep.Faultf("encode request: %v", err)
		}
	}
	for i, im := range p.Images {
		// The API checks each file's declared type, so it is set rather
		// than left to CreateFormFile's application/octet-stream.
		h := textproto.MIMEHeader{}
		ext := strings.TrimPrefix(im.ContentType, "image/")
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="image[]"; filename="%s-%d.%s"`, im.Role, i+1, ext))
		h.Set("Content-Type", im.ContentType)
		part, err := mw.CreatePart(h)
		if err == nil {
			_, err = part.Write(im.Data)
		}
		if err != nil {
			return engine.Result{}, c.ep.Faultf("encode request: %v", err)
		}
	}
	if err := mw.Close(); err != nil {
		return engine.Result{}, c.ep.Faultf("encode request: %v", err)
	}
	return c.call(ctx, req.Aspect, c.ep.URL("images", "edits"), mw.FormDataContentType(), body.Bytes())
}

// imagesResponse is the answer of both endpoints.
type imagesResponse struct {
	Data []struct {
		B64JSON string `json:"b64_json"`
	} `json:"data"`
}

func (c *Client) call(ctx context.Context, a thumbnail.Aspect, u, contentType string, body []byte) (engine.Result, error) {
	data, err := c.ep.Call(ctx, u, contentType, body, refused)
	if err != nil {
		return engine.Result{}, err
	}
	var resp imagesResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return engine.Result{}, c.ep.Faultf("decode answer: %v", err)
	}
	if len(resp.Data) == 0 || resp.Data[0].B64JSON == "" {
		return engine.Result{}, c.ep.Unavailable(engine.ReasonNoImage, 0, "the answer holds no image")
	}
	return c.ep.Picture(resp.Data[0].B64JSON, a)
}

// refused tells the safety system's refusals, which are the request's
// fault whatever the status says about the rest.
func refused(f *vendorapi.Failure) bool {
	return f.Status == http.StatusBadRequest &&
		(f.Code == "moderation_blocked" || f.Code == "content_policy_violation" ||
			f.Code == "image_generation_user_error" && strings.Contains(strings.ToLower(f.Message), "safety"))
}
