package httpapi

import (
	"context"
	"net/http"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/thumbnails/internal/generate/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

type slotDTO struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type templateDTO struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Category    string    `json:"category"`
	Description string    `json:"description"`
	PreviewURL  *string   `json:"previewUrl"`
	AspectRatio string    `json:"aspectRatio"`
	Slots       []slotDTO `json:"slots"`
}

func (h *api) templateOut(t template.Template) templateDTO {
	d := templateDTO{ID: t.ID, Name: t.Name, Category: t.Category, Description: t.Description,
		PreviewURL: httpx.OrNull(h.svc.URL(t.PreviewKey)), AspectRatio: string(t.Aspect), Slots: []slotDTO{}}
	for _, s := range t.Layout.Slots() {
		d.Slots = append(d.Slots, slotDTO{Name: s.Name, Kind: s.Kind})
	}
	return d
}

func (h *api) listTemplates(w http.ResponseWriter, r *http.Request) error {
	category, err := template.ParseCategory(r.URL.Query().Get("category"))
	if err != nil {
		return err
	}
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]template.Template, int, error) {
		return h.svc.Templates(ctx, category, offset, limit)
	}, h.templateOut)
}

func (h *api) remix(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	// The body is required (the OpenAPI document says so): its fields are
	// all optional, so "{}" remixes the template as it is, but an empty
	// body or null is refused before anything is charged.
	var in *struct {
		Prompt      *string `json:"prompt"`
		Headline    *string `json:"headline"`
		AspectRatio *string `json:"aspectRatio"`
		refsIn
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if in == nil {
		return apierr.New(apierr.InvalidRequest, "request body must be a JSON object")
	}
	t, err := h.svc.Remix(r.Context(), caller(r), id, thumbnail.RemixInput{
		Prompt: in.Prompt, Headline: in.Headline, AspectRatio: in.AspectRatio, Refs: in.refs(),
	})
	if err != nil {
		return err
	}
	return httpx.Created(w, h.thumbnailOut(t))
}
