package httpapi

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/assets/internal/brand"
)

type brandDTO struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Colors    []string  `json:"colors"`
	LogoURL   *string   `json:"logoUrl"`
	Fonts     []string  `json:"fonts"`
	Domain    *string   `json:"domain"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func (h *api) brandOut(b brand.Brand) brandDTO {
	return brandDTO{ID: b.ID, Name: b.Name, Colors: nonNil(b.Colors), LogoURL: httpx.OrNull(h.svc.URL(b.LogoKey)), Fonts: nonNil(b.Fonts),
		Domain: httpx.OrNull(b.Domain), CreatedAt: utc(b.CreatedAt), UpdatedAt: utc(b.UpdatedAt)}
}

// brandIn is the body of POST and PATCH /brands: by hand
// {name, colors, logoUrl?, fonts?} or an import {name?, domain}.
type brandIn struct {
	Name    *string   `json:"name"`
	Colors  *[]string `json:"colors"`
	LogoURL *string   `json:"logoUrl"`
	Fonts   *[]string `json:"fonts"`
	Domain  *string   `json:"domain"`
}

func (in brandIn) draft() brand.Draft {
	return brand.Draft{Name: in.Name, Colors: in.Colors, LogoURL: in.LogoURL, Fonts: in.Fonts, Domain: in.Domain}
}

func (h *api) createBrand(w http.ResponseWriter, r *http.Request) error {
	var in brandIn
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	b, err := h.svc.CreateBrand(r.Context(), principal.Org(r), in.draft())
	if err != nil {
		return err
	}
	return httpx.Created(w, h.brandOut(b))
}

func (h *api) listBrands(w http.ResponseWriter, r *http.Request) error {
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]brand.Brand, int, error) {
		return h.svc.Brands(ctx, principal.Org(r), offset, limit)
	}, h.brandOut)
}

func (h *api) updateBrand(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	var in brandIn
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	b, err := h.svc.UpdateBrand(r.Context(), principal.Org(r), id, in.draft())
	if err != nil {
		return err
	}
	return httpx.OK(w, h.brandOut(b))
}
