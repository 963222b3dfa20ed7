package hookline

import (
	"context"
	"encoding/json"
	"net/http"
)

// GetOpenAPIDocument returns the API's OpenAPI 3.1 document as JSON.
func (c *Client) GetOpenAPIDocument(ctx context.Context, opts ...RequestOption) (json.RawMessage, error) {
	raw, err := c.send(ctx, call{method: http.MethodGet, path: "/api/v1/openapi.json"}, opts)
	return json.RawMessage(raw), err
}

// GetDocs returns the document rendered as a self-contained HTML page.
func (c *Client) GetDocs(ctx context.Context, opts ...RequestOption) (string, error) {
	raw, err := c.send(ctx, call{method: http.MethodGet, path: "/docs", accept: "text/html"}, opts)
	return string(raw), err
}

// GetHealthz asks the gateway whether it is alive.
func (c *Client) GetHealthz(ctx context.Context, opts ...RequestOption) (*Probe, error) {
	return getData[Probe](ctx, c, "/healthz", nil, opts)
}

// GetReadyz asks the gateway whether it is ready to serve.
func (c *Client) GetReadyz(ctx context.Context, opts ...RequestOption) (*Probe, error) {
	return getData[Probe](ctx, c, "/readyz", nil, opts)
}

// VerifyKey returns the caller's organization and key.
func (c *Client) VerifyKey(ctx context.Context, opts ...RequestOption) (*Verification, error) {
	return getData[Verification](ctx, c, "/api/v1/auth/verify", nil, opts)
}
