package httpapi

import (
	"net/http"

	"hookline.dev/pkg/httpx"
)

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
	return httpx.OK(w, critiqueOut(c))
}
