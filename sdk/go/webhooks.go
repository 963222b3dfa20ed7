package hookline

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"
)

// The webhooks API: endpoints with a signing secret each, test sends, and
// the deliveries with their attempts. Verify what arrives with a
// WebhookVerifier.

// Webhook is an endpoint that receives events.
type Webhook struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	EventTypes  []string `json:"eventTypes"`
	Enabled     bool     `json:"enabled"`
	Description *string  `json:"description"`
	// CreditsLowThreshold is the balance under which credits.low is sent.
	CreditsLowThreshold int `json:"creditsLowThreshold"`
	// DisabledReason says why the service disabled the endpoint after
	// repeated failures; nil otherwise.
	DisabledReason *string   `json:"disabledReason"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// WebhookWithSecret is an endpoint with its signing secret (whsec_…): the
// answer of CreateWebhook and RotateWebhookSecret, the only times the
// secret is shown.
type WebhookWithSecret struct {
	Webhook
	Secret string `json:"secret"`
	// PreviousSecretExpiresAt is, after a rotation, until when the previous
	// secret also signs.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
}

// WebhookCreate is the body of CreateWebhook.
type WebhookCreate struct {
	URL                 string   `json:"url"`
	EventTypes          []string `json:"eventTypes"`
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

// WebhookDelivery is one event sent (or being sent) to an endpoint; its ID
// is the webhook-id header of every attempt.
type WebhookDelivery struct {
	ID           string          `json:"id"`
	EndpointID   string          `json:"endpointId"`
	EventID      string          `json:"eventId"`
	EventType    string          `json:"eventType"`
	Status       string          `json:"status"` // pending, succeeded, failed
	Attempts     int             `json:"attempts"`
	ResponseCode *int            `json:"responseCode"`
	LatencyMS    *float64        `json:"latencyMs"`
	LastError    *string         `json:"lastError"`
	NextAttempt  *time.Time      `json:"nextAttemptAt"`
	CreatedAt    time.Time       `json:"createdAt"`
	DeliveredAt  *time.Time      `json:"deliveredAt"`
	Payload      json.RawMessage `json:"payload"`
	// History is every attempt, oldest first (empty in the answers of
	// TestWebhook and RetryWebhookDelivery).
	History []WebhookAttempt `json:"history"`
}

// WebhookAttempt is one attempt of a delivery.
type WebhookAttempt struct {
	Attempt      int       `json:"attempt"`
	AttemptedAt  time.Time `json:"attemptedAt"`
	ResponseCode *int      `json:"responseCode"`
	LatencyMS    float64   `json:"latencyMs"`
	Error        *string   `json:"error"`
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
func (c *Client) CreateWebhook(ctx context.Context, req *WebhookCreate, opts ...RequestOption) (*WebhookWithSecret, error) {
	return sendData[WebhookWithSecret](ctx, c, call{method: http.MethodPost, path: "/api/v1/webhooks", body: req}, opts)
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
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, opts ...RequestOption) (*WebhookWithSecret, error) {
	return sendData[WebhookWithSecret](ctx, c, call{method: http.MethodPost, path: "/api/v1/webhooks/" + pathID(id) + "/rotate-secret"}, opts)
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
