// Package httpapi is the webhooks service's HTTP edge: the /webhooks
// endpoints behind the principal check, their DTOs, and the one function
// mapping domain errors to the envelope.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/service"
)

// Handler serves the webhooks API.
func Handler(svc *service.Service, secret []byte, ready func(context.Context) error, log *slog.Logger) http.Handler {
	h := &api{svc: svc}
	a := httpx.Adapter{Log: log, MapError: MapError}
	return chix.ServiceRouter(a, ready, secret, func(r chi.Router) {
		r.Get("/webhooks", a.Wrap(h.list))
		r.Post("/webhooks", a.Wrap(h.create))
		r.Get("/webhooks/{id}", a.Wrap(chix.GetOne("id", h.svc.Endpoint, endpointOut)))
		r.Patch("/webhooks/{id}", a.Wrap(h.update))
		r.Delete("/webhooks/{id}", a.Wrap(chix.DeleteOne("id", h.svc.DeleteEndpoint)))
		r.Post("/webhooks/{id}/rotate-secret", a.Wrap(h.rotate))
		r.Post("/webhooks/{id}/test", a.Wrap(h.test))
		r.Get("/webhooks/{id}/deliveries", a.Wrap(h.deliveries))
		r.Post("/webhooks/{id}/deliveries/{deliveryId}/retry", a.Wrap(h.retry))
	})
}

type api struct{ svc *service.Service }

// MapError translates domain errors into API errors; everything else
// passes through (apierr values as they are, the rest as internal).
func MapError(err error) error {
	switch {
	case errors.Is(err, endpoint.ErrNotFound):
		return apierr.New(apierr.NotFound, "webhook endpoint not found")
	case errors.Is(err, delivery.ErrNotFound):
		return apierr.New(apierr.NotFound, "webhook delivery not found")
	}
	return pgkit.MapUnavailable(err)
}

type endpointDTO struct {
	ID                  string    `json:"id"`
	URL                 string    `json:"url"`
	Description         *string   `json:"description"`
	EventTypes          []string  `json:"eventTypes"`
	Enabled             bool      `json:"enabled"`
	CreditsLowThreshold int64     `json:"creditsLowThreshold"`
	DisabledReason      *string   `json:"disabledReason"`
	CreatedAt           time.Time `json:"createdAt"`
	UpdatedAt           time.Time `json:"updatedAt"`
	// Secret is shown at creation and rotation only.
	Secret                  string     `json:"secret,omitempty"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
}

func endpointOut(e endpoint.Endpoint) endpointDTO {
	return endpointDTO{ID: e.ID, URL: e.URL, Description: httpx.OrNull(e.Description), EventTypes: e.EventTypes, Enabled: e.Enabled,
		CreditsLowThreshold: e.CreditsLow, DisabledReason: httpx.OrNull(e.DisabledReason), CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC()}
}

// withSecret is the one response that shows the secret.
func withSecret(e endpoint.Endpoint) endpointDTO {
	d := endpointOut(e)
	d.Secret = e.Secret
	if e.PreviousSecret != "" {
		t := e.PreviousSecretExpiresAt.UTC()
		d.PreviousSecretExpiresAt = &t
	}
	return d
}

type endpointIn struct {
	URL                 *string   `json:"url"`
	Description         *string   `json:"description"`
	EventTypes          *[]string `json:"eventTypes"`
	Enabled             *bool     `json:"enabled"`
	CreditsLowThreshold *int64    `json:"creditsLowThreshold"`
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (h *api) create(w http.ResponseWriter, r *http.Request) error {
	var in endpointIn
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	e, err := h.svc.CreateEndpoint(r.Context(), principal.Org(r), endpoint.Draft{URL: deref(in.URL), Description: deref(in.Description),
		EventTypes: deref(in.EventTypes), Enabled: in.Enabled, CreditsLow: in.CreditsLowThreshold})
	if err != nil {
		return err
	}
	return httpx.Created(w, withSecret(e))
}

func (h *api) list(w http.ResponseWriter, r *http.Request) error {
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]endpoint.Endpoint, int, error) {
		return h.svc.Endpoints(ctx, principal.Org(r), offset, limit)
	}, endpointOut)
}

func (h *api) update(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	var in endpointIn
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	e, err := h.svc.UpdateEndpoint(r.Context(), principal.Org(r), id, endpoint.Patch{URL: in.URL, Description: in.Description,
		EventTypes: in.EventTypes, Enabled: in.Enabled, CreditsLow: in.CreditsLowThreshold})
	if err != nil {
		return err
	}
	return httpx.OK(w, endpointOut(e))
}

func (h *api) rotate(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	e, err := h.svc.RotateSecret(r.Context(), principal.Org(r), id)
	if err != nil {
		return err
	}
	return httpx.OK(w, withSecret(e))
}

type attemptDTO struct {
	Attempt      int       `json:"attempt"`
	AttemptedAt  time.Time `json:"attemptedAt"`
	ResponseCode *int      `json:"responseCode"`
	LatencyMS    float64   `json:"latencyMs"`
	Error        *string   `json:"error"`
}

type deliveryDTO struct {
	ID            string          `json:"id"`
	EndpointID    string          `json:"endpointId"`
	EventType     string          `json:"eventType"`
	EventID       string          `json:"eventId"`
	Status        string          `json:"status"`
	Attempts      int             `json:"attempts"`
	ResponseCode  *int            `json:"responseCode"`
	LatencyMS     *float64        `json:"latencyMs"`
	LastError     *string         `json:"lastError"`
	NextAttemptAt *time.Time      `json:"nextAttemptAt"`
	CreatedAt     time.Time       `json:"createdAt"`
	DeliveredAt   *time.Time      `json:"deliveredAt"`
	Payload       json.RawMessage `json:"payload"`
	History       []attemptDTO    `json:"history"`
}

func intOrNil(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func deliveryOut(d delivery.Delivery) deliveryDTO {
	out := deliveryDTO{ID: d.ID, EndpointID: d.EndpointID, EventType: d.Message.Type, EventID: d.Message.EventID, Status: string(d.Status),
		Attempts: d.Attempts, ResponseCode: intOrNil(d.LastCode), LastError: httpx.OrNull(d.LastError), CreatedAt: d.CreatedAt.UTC(),
		Payload: d.Message.Body, History: make([]attemptDTO, len(d.History))}
	if d.Attempts > 0 {
		l := float64(d.LastLatency) / float64(time.Millisecond)
		out.LatencyMS = &l
	}
	if d.Status == delivery.Pending {
		t := d.NextAttemptAt.UTC()
		out.NextAttemptAt = &t
	}
	if d.DeliveredAt != nil {
		t := d.DeliveredAt.UTC()
		out.DeliveredAt = &t
	}
	for i, a := range d.History {
		out.History[i] = attemptDTO{Attempt: a.N, AttemptedAt: a.At.UTC(), ResponseCode: intOrNil(a.Code),
			LatencyMS: float64(a.Latency) / float64(time.Millisecond), Error: httpx.OrNull(a.Error)}
	}
	return out
}

func (h *api) test(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	d, err := h.svc.Test(r.Context(), principal.Org(r), id)
	if err != nil {
		return err
	}
	return httpx.Data(w, http.StatusAccepted, deliveryOut(d))
}

func (h *api) deliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]delivery.Delivery, int, error) {
		return h.svc.Deliveries(ctx, principal.Org(r), id, offset, limit)
	}, deliveryOut)
}

func (h *api) retry(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	did, err := chix.PathID(r, "deliveryId")
	if err != nil {
		return err
	}
	d, err := h.svc.Retry(r.Context(), principal.Org(r), id, did)
	if err != nil {
		return err
	}
	return httpx.Data(w, http.StatusAccepted, deliveryOut(d))
}
