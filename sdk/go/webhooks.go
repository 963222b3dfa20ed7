package hookline

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// The webhooks API, as issue 23 describes it: endpoints with a signing
// secret each, test sends, and the deliveries with their attempts. Verify
// what arrives with a WebhookVerifier.

// Webhook is an endpoint that receives events.
type Webhook struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	EventTypes  []string `json:"eventTypes"`
	Enabled     bool     `json:"enabled"`
	Description string   `json:"description"`
	// CreditsLowThreshold is the balance under which credits.low is sent.
	CreditsLowThreshold *int      `json:"creditsLowThreshold"`
	CreatedAt           time.Time `json:"createdAt"`
	UpdatedAt           time.Time `json:"updatedAt"`
	// Secret (whsec_…) is only in the answer of CreateWebhook.
	Secret string `json:"secret,omitempty"`
}

// WebhookCreate is the body of CreateWebhook; no EventTypes means all.
type WebhookCreate struct {
	URL                 string   `json:"url"`
	EventTypes          []string `json:"eventTypes,omitempty"`
	Enabled             *bool    `json:"enabled,omitempty"`
	Description         string   `json:"description,omitempty"`
	CreditsLowThreshold *int     `json:"creditsLowThreshold,omitempty"`
}

// WebhookUpdate is the body of UpdateWebhook: the fields to change.
type WebhookUpdate struct {
	URL                 string   `json:"url,omitempty"`
	EventTypes          []string `json:"eventTypes,omitempty"`
	Enabled             *bool    `json:"enabled,omitempty"`
	Description         *string  `json:"description,omitempty"`
	CreditsLowThreshold *int     `json:"creditsLowThreshold,omitempty"`
}

// WebhookSecret is a new signing secret; the previous one stays valid
// until PreviousExpiresAt.
type WebhookSecret struct {
	Secret            string     `json:"secret"`
	PreviousExpiresAt *time.Time `json:"previousExpiresAt"`
}

// WebhookDelivery is one event sent (or being sent) to an endpoint.
type WebhookDelivery struct {
	ID           string     `json:"id"`
	EventID      string     `json:"eventId"`
	EventType    string     `json:"eventType"`
	Status       string     `json:"status"`
	Attempts     int        `json:"attempts"`
	ResponseCode *int       `json:"responseCode"`
	LatencyMS    *int       `json:"latencyMs"`
	CreatedAt    time.Time  `json:"createdAt"`
	NextAttempt  *time.Time `json:"nextAttemptAt"`
}

// ListWebhooks returns a page of the organization's endpoints.
func (c *Client) ListWebhooks(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Webhook], error) {
	return listPage[Webhook](ctx, c, "/api/v1/webhooks", params, false, opts)
}

// AllWebhooks walks the endpoints from params' page to the end.
func (c *Client) AllWebhooks(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Webhook, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Webhook], error) {
		return c.ListWebhooks(ctx, p, opts...)
	})
}

// CreateWebhook registers an endpoint; the answer holds its secret, shown
// only this once.
func (c *Client) CreateWebhook(ctx context.Context, req *WebhookCreate, opts ...RequestOption) (*Webhook, error) {
	return sendData[Webhook](ctx, c, call{method: http.MethodPost, path: "/api/v1/webhooks", body: req}, opts)
}

// GetWebhook returns an endpoint.
func (c *Client) GetWebhook(ctx context.Context, id string, opts ...RequestOption) (*Webhook, error) {
	return getData[Webhook](ctx, c, "/api/v1/webhooks/"+pathID(id), nil, opts)
}

// UpdateWebhook changes an endpoint.
func (c *Client) UpdateWebhook(ctx context.Context, id string, req *WebhookUpdate, opts ...RequestOption) (*Webhook, error) {
	return sendData[Webhook](ctx, c, call{method: http.MethodPatch, path: "/api/v1/webhooks/" + pathID(id), body: req}, opts)
}

// DeleteWebhook removes an endpoint.
func (c *Client) DeleteWebhook(ctx context.Context, id string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/api/v1/webhooks/" + pathID(id)}, nil, opts)
}

// RotateWebhookSecret issues a new secret; the old one stays valid 24 h.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, opts ...RequestOption) (*WebhookSecret, error) {
	return sendData[WebhookSecret](ctx, c, call{method: http.MethodPost, path: "/api/v1/webhooks/" + pathID(id) + "/rotate-secret"}, opts)
}

// TestWebhook sends a test event to an endpoint.
func (c *Client) TestWebhook(ctx context.Context, id string, opts ...RequestOption) (*WebhookDelivery, error) {
	return sendData[WebhookDelivery](ctx, c, call{method: http.MethodPost, path: "/api/v1/webhooks/" + pathID(id) + "/test"}, opts)
}

// ListWebhookDeliveries returns a page of an endpoint's deliveries.
func (c *Client) ListWebhookDeliveries(ctx context.Context, id string, params *ListParams, opts ...RequestOption) (*Page[WebhookDelivery], error) {
	return listPage[WebhookDelivery](ctx, c, "/api/v1/webhooks/"+pathID(id)+"/deliveries", params, false, opts)
}

// AllWebhookDeliveries walks an endpoint's deliveries from params' page to
// the end.
func (c *Client) AllWebhookDeliveries(ctx context.Context, id string, params *ListParams, opts ...RequestOption) iter.Seq2[WebhookDelivery, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[WebhookDelivery], error) {
		return c.ListWebhookDeliveries(ctx, id, p, opts...)
	})
}

// RetryWebhookDelivery sends a delivery again now.
func (c *Client) RetryWebhookDelivery(ctx context.Context, id, deliveryID string, opts ...RequestOption) (*WebhookDelivery, error) {
	return sendData[WebhookDelivery](ctx, c, call{method: http.MethodPost, path: "/api/v1/webhooks/" + pathID(id) + "/deliveries/" + pathID(deliveryID) + "/retry"}, opts)
}
