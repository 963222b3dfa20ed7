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

	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/billing/internal/ledger"
)

// Handler builds the router. table supplies the billing cycle of an
// account that is not open yet.
func Handler(store ledger.Projections, table *tiers.Table, secret []byte, ready func(context.Context) error, log *slog.Logger) http.Handler {
	api := &api{store: store, tiers: table}
	a := httpx.Adapter{Log: log, MapError: pgkit.MapUnavailable}
	return chix.ServiceRouter(a, ready, secret, func(r chi.Router) {
		r.Get("/account/credits", a.Wrap(api.credits))
		r.Get("/account/usage", a.Wrap(api.usage))
	})
}

type api struct {
	store ledger.Projections
	tiers *tiers.Table
}

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
	if errors.Is(err, ledger.ErrNoAccount) {
		// The account opens asynchronously after the organization is
		// created; until then it holds nothing.
		b, err = ledger.Balance{Tier: p.Tier, BillingCycle: h.tiers.Resolve(p.Tier).BillingCycle}, nil
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
	p, _ := principal.From(r.Context())
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]ledger.Usage, int, error) {
		return h.store.UsagePage(ctx, p.OrgID, offset, limit)
	}, func(u ledger.Usage) usageDTO {
		return usageDTO{ID: u.ID, Operation: u.Operation, Credits: u.Credits, Status: u.Status, ResourceType: u.ResourceType,
			ResourceID: u.ResourceID, CreatedAt: u.CreatedAt.UTC(), SettledAt: utc(u.SettledAt)}
	})
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
