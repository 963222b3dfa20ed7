package httpapi

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/assets/internal/style"
)

type swatchDTO struct {
	Hex    string  `json:"hex"`
	Weight float64 `json:"weight"`
}

type profileDTO struct {
	Palette    []swatchDTO `json:"palette"`
	Brightness float64     `json:"brightness"`
	Contrast   float64     `json:"contrast"`
	Saturation float64     `json:"saturation"`
	Warmth     float64     `json:"warmth"`
}

type styleDTO struct {
	ID                 string     `json:"id"`
	Name               string     `json:"name"`
	Description        *string    `json:"description"`
	ReferenceImageURLs []string   `json:"referenceImageUrls"`
	Profile            profileDTO `json:"profile"`
	CreatedAt          time.Time  `json:"createdAt"`
	UpdatedAt          time.Time  `json:"updatedAt"`
}

func (h *api) styleOut(s style.Style) styleDTO {
	p := profileDTO{Brightness: s.Profile.Brightness, Contrast: s.Profile.Contrast, Saturation: s.Profile.Saturation, Warmth: s.Profile.Warmth,
		Palette: make([]swatchDTO, len(s.Profile.Palette))}
	for i, sw := range s.Profile.Palette {
		p.Palette[i] = swatchDTO{Hex: sw.Hex, Weight: sw.Weight}
	}
	return styleDTO{ID: s.ID, Name: s.Name, Description: httpx.OrNull(s.Description), ReferenceImageURLs: h.svc.URLs(s.ReferenceKeys),
		Profile: p, CreatedAt: utc(s.CreatedAt), UpdatedAt: utc(s.UpdatedAt)}
}

func (h *api) createStyle(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name               string   `json:"name"`
		Description        string   `json:"description"`
		ReferenceImageURLs []string `json:"referenceImageUrls"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	s, err := h.svc.CreateStyle(r.Context(), principal.Org(r), style.Draft{Name: in.Name, Description: in.Description, ReferenceImageURLs: in.ReferenceImageURLs})
	if err != nil {
		return err
	}
	return httpx.Created(w, h.styleOut(s))
}

func (h *api) listStyles(w http.ResponseWriter, r *http.Request) error {
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]style.Style, int, error) {
		return h.svc.Styles(ctx, principal.Org(r), offset, limit)
	}, h.styleOut)
}

func (h *api) updateStyle(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Name               *string   `json:"name"`
		Description        *string   `json:"description"`
		ReferenceImageURLs *[]string `json:"referenceImageUrls"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	s, err := h.svc.UpdateStyle(r.Context(), principal.Org(r), id, style.Patch{Name: in.Name, Description: in.Description, ReferenceImageURLs: in.ReferenceImageURLs})
	if err != nil {
		return err
	}
	return httpx.OK(w, h.styleOut(s))
}
