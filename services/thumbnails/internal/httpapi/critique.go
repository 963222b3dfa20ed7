package httpapi

import (
	"net/http"
	"time"

	"hookline.dev/pkg/httpx"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
)

// critiqueDTO is the spec's critique object.
type critiqueDTO struct {
	ID string `json:"id"`
	critique.Critique
	CreditsCost int       `json:"creditsCost"`
	Engine      string    `json:"engine"`
	CreatedAt   time.Time `json:"createdAt"`
}

func (h *api) critique(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ImageURL *string `json:"imageUrl"`
		Niche    *string `json:"niche"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	c, err := h.svc.Critique(r.Context(), caller(r), in.ImageURL, in.Niche)
	if err != nil {
		return err
	}
	return httpx.OK(w, critiqueDTO{ID: c.ID, Critique: c.Critique, CreditsCost: 1, Engine: c.Engine, CreatedAt: utc(c.CreatedAt)})
}
