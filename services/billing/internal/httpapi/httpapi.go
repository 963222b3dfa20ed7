// Package httpapi is billing's HTTP edge: the account endpoints behind the
// principal check, plus health probes.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"hookline.dev/pkg/httpx"
	"hookline.dev/pkg/principal"
	"hookline.dev/services/billing/internal/postgres"
)

// Ready reports whether the service's dependencies answer.
type Ready func(ctx context.Context) error

// Handler builds the router.
func Handler(store *postgres.Store, secret []byte, ready Ready, log *slog.Logger) http.Handler {
	api := &api{store: store}
	a := httpx.Adapter{Log: log, MapError: mapError}
	r := chi.NewRouter()
	r.NotFound(httpx.NotFound)
	r.MethodNotAllowed(httpx.MethodNotAllowed)
	r.Get("/healthz", a.Wrap(httpx.Healthz))
	r.Get("/readyz", a.Wrap(httpx.Readyz(ready)))
	r.Group(func(r chi.Router) {
		r.Use(principal.Require(secret))
		r.Get("/account/credits", a.Wrap(api.credits))
		r.Get("/account/usage", a.Wrap(api.usage))
	})
	return httpx.RequestID(r)
}

type api struct{ store *postgres.Store }

type creditsDTO struct {
	Tier    string `json:"tier"`
	Credits struct {
		Total        int64 `json:"total"`
		Purchased    int64 `json:"purchased"`
		Subscription int64 `json:"subscription"`
	} `json:"credits"`
	CanGenerate  bool   `json:"canGenerate"`
	BillingCycle string `json:"billingCycle"`
}

func (h *api) credits(w http.ResponseWriter, r *http.Request) error {
	p, _ := principal.From(r.Context())
	b, err := h.store.Balance(r.Context(), p.OrgID)
	if errors.Is(err, postgres.ErrNoAccount) {
		// The account opens asynchronously after the organization is
		// created; until then it holds nothing.
		b, err = postgres.Balance{Tier: p.Tier, BillingCycle: "monthly"}, nil
	}
	if err != nil {
		return err
	}
	var d creditsDTO
	d.Tier, d.BillingCycle = b.Tier, b.BillingCycle
	d.Credits.Subscription, d.Credits.Purchased = b.Subscription, b.Purchased
	d.Credits.Total = b.Subscription + b.Purchased
	d.CanGenerate = d.Credits.Total >= 1
	return httpx.OK(w, d)
}

type usageDTO struct {
	ID           string     `json:"id"`
	Operation    string     `json:"operation"`
	Credits      int64      `json:"credits"`
	Status       string     `json:"status"`
	ResourceType string     `json:"resourceType"`
	ResourceID   string     `json:"resourceId"`
	CreatedAt    time.Time  `json:"createdAt"`
	SettledAt    *time.Time `json:"settledAt"`
}

func (h *api) usage(w http.ResponseWriter, r *http.Request) error {
	page, err := httpx.ParsePage(r)
	if err != nil {
		return err
	}
	p, _ := principal.From(r.Context())
	items, total, err := h.store.UsagePage(r.Context(), p.OrgID, page.Offset(), page.Limit)
	if err != nil {
		return err
	}
	out := make([]usageDTO, len(items))
	for i, u := range items {
		out[i] = usageDTO{ID: u.ID, Operation: u.Operation, Credits: u.Credits, Status: u.Status, ResourceType: u.ResourceType,
			ResourceID: u.ResourceID, CreatedAt: u.CreatedAt.UTC(), SettledAt: utc(u.SettledAt)}
	}
	return httpx.List(w, out, page, total)
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// mapError has nothing to translate yet: billing's HTTP endpoints only
// read, and their failures are internal.
func mapError(err error) error { return err }
