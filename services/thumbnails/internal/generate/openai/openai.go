// Package openai is the image engine adapter for the OpenAI Images API:
// gpt-image-1 through /v1/images/generations (text only) and
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
	"strconv"
	"strings"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// DefaultBaseURL and DefaultModel fill a Config that leaves them empty.
const (
	DefaultBaseURL = "https://api.openai.com"
	DefaultModel   = "gpt-image-1"
)

// What every call asks for: "medium" quality is the price/quality point
// for a thumbnail, and JPEG keeps answers small (gpt-image models answer
// PNG by default).
const (
	quality      = "medium"
	outputFormat = "jpeg"
)

// limits are the API's own for edits (16 images; 50 MB each, kept far
// lower in total to bound one request).
var limits = providerkit.Limits{Images: 16, Bytes: 40 << 20}

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
	ep, err := providerkit.NewEndpoint(cfg, providerkit.Defaults{Provider: "openai", BaseURL: DefaultBaseURL, Model: DefaultModel})
	if err != nil {
		return nil, err
	}
	return &Client{ep: ep}, nil
}

// Name is "openai".
func (*Client) Name() string { return "openai" }

// Generate draws req: through generations when it has no input image,
// through edits when it has faces, references or a logo to draw from.
// Errors as engine.Generator.
func (c *Client) Generate(ctx context.Context, req engine.Request) (engine.Result, error) {
	p := providerkit.Build(req, limits)
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
	return c.edit(ctx, req, providerkit.Build(req, limits))
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
		Model: c.ep.Model(), Prompt: p.Text, N: 1, Size: size(req.Aspect),
		Quality: quality, OutputFormat: outputFormat,
	})
	if err != nil {
		return engine.Result{}, c.ep.Faultf("encode request: %v", err)
	}
	return c.call(ctx, req.Aspect, c.ep.URL("v1", "images", "generations"), "application/json", body)
}

func (c *Client) edit(ctx context.Context, req engine.Request, p providerkit.Prompt) (engine.Result, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fields := [][2]string{
		{"model", c.ep.Model()}, {"prompt", p.Text}, {"n", "1"}, {"size", size(req.Aspect)},
		{"quality", quality}, {"output_format", outputFormat},
	}
	if len(req.Faces) > 0 && !strings.Contains(c.ep.Model(), "mini") {
		// Keeps the supplied faces recognisable rather than redrawn; the
		// mini models refuse the parameter.
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
	return c.call(ctx, req.Aspect, c.ep.URL("v1", "images", "edits"), mw.FormDataContentType(), body.Bytes())
}

// imagesResponse is the answer of both endpoints.
type imagesResponse struct {
	Data []struct {
		B64JSON string `json:"b64_json"`
	} `json:"data"`
}

// errorResponse is the API's error body.
type errorResponse struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    string `json:"code"`
	} `json:"error"`
}

func (c *Client) call(ctx context.Context, a thumbnail.Aspect, u, contentType string, body []byte) (engine.Result, error) {
	status, data, err := c.ep.Post(ctx, u, contentType, body, http.Header{"Authorization": {"Bearer " + c.ep.Key()}})
	if err != nil {
		return engine.Result{}, err
	}
	if status/100 != 2 {
		return engine.Result{}, c.failure(status, data)
	}
	var resp imagesResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return engine.Result{}, c.ep.Faultf("decode answer: %v", err)
	}
	if len(resp.Data) == 0 || resp.Data[0].B64JSON == "" {
		return engine.Result{}, c.ep.Faultf("answer holds no image")
	}
	return c.ep.Picture(resp.Data[0].B64JSON, a)
}

// failure maps an error answer: the safety system's refusals are
// rejections, whatever the status says about the rest.
func (c *Client) failure(status int, data []byte) error {
	var e errorResponse
	detail := string(data)
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		detail = e.Error.Message
		if e.Error.Code != "" {
			detail = e.Error.Code + ": " + detail
		}
	}
	rejected := status == http.StatusBadRequest &&
		(e.Error.Code == "moderation_blocked" || e.Error.Code == "content_policy_violation" ||
			e.Error.Type == "image_generation_user_error" && strings.Contains(strings.ToLower(e.Error.Message), "safety"))
	return c.ep.Failure(status, detail, rejected)
}

// size is the gpt-image-1 size closest to the aspect; Fit crops the rest.
func size(a thumbnail.Aspect) string {
	w, h := 1536, 1024
	if a == thumbnail.Portrait {
		w, h = h, w
	}
	return strconv.Itoa(w) + "x" + strconv.Itoa(h)
}
