// Package httpapi is the thumbnails service's HTTP edge: the thumbnails
// and templates endpoints behind the principal check, their DTOs, and the
// one function mapping domain errors to the envelope.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/chix"
	"hookline.dev/pkg/credits"
	"hookline.dev/pkg/httpx"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/principal"
	"hookline.dev/services/thumbnails/internal/asset"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/internal/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Handler serves the thumbnails API.
func Handler(svc *service.Service, secret []byte, ready func(context.Context) error, log *slog.Logger) http.Handler {
	h := &api{svc: svc}
	a := httpx.Adapter{Log: log, MapError: MapError}
	return chix.ServiceRouter(a, ready, secret, func(r chi.Router) {
		r.Get("/thumbnails", a.Wrap(h.list))
		r.Post("/thumbnails", a.Wrap(h.generate))
		r.Post("/thumbnails/variations", a.Wrap(h.variations))
		r.Get("/thumbnails/{id}", a.Wrap(h.get))
		r.Delete("/thumbnails/{id}", a.Wrap(h.remove))

		r.Get("/templates", a.Wrap(h.templates))
		r.Post("/templates/{id}/remix", a.Wrap(h.remix))
	})
}

type api struct{ svc *service.Service }

func who(r *http.Request) principal.Principal {
	p, _ := principal.From(r.Context())
	return p
}

func pathID(r *http.Request) (string, error) {
	id, err := httpx.ParseUUID("id", chi.URLParam(r, "id"))
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// MapError translates domain errors into API errors; everything else
// passes through (apierr values as they are, the rest as internal).
func MapError(err error) error {
	var invalid *thumbnail.InvalidError
	var missing *asset.NotFoundError
	switch {
	case errors.As(err, &invalid):
		fields := apierr.Fields{}
		for _, p := range invalid.Problems {
			fields.Add(p.Field, p.Reason)
		}
		return fields.Err()
	case errors.As(err, &missing):
		return apierr.New(apierr.NotFound, string(missing.Kind)+" not found").With("field", missing.Field)
	case errors.Is(err, thumbnail.ErrNotFound):
		return apierr.New(apierr.NotFound, "thumbnail not found")
	case errors.Is(err, template.ErrNotFound):
		return apierr.New(apierr.NotFound, "template not found")
	case errors.Is(err, credits.ErrSettled):
		return apierr.Wrap(apierr.Unavailable, "the request took too long and was not charged; retry", err)
	}
	return pgkit.MapUnavailable(err)
}

// thumbnailDTO is a thumbnail on the wire: every field always present,
// null when unset.
type thumbnailDTO struct {
	ID           string    `json:"id"`
	ImageURL     string    `json:"imageUrl"`
	Prompt       string    `json:"prompt"`
	Kind         string    `json:"kind"`
	ParentID     *string   `json:"parentId"`
	AspectRatio  string    `json:"aspectRatio"`
	Width        int       `json:"width"`
	Height       int       `json:"height"`
	StyleID      *string   `json:"styleId"`
	BrandID      *string   `json:"brandId"`
	FaceIDs      []string  `json:"faceIds"`
	CollectionID *string   `json:"collectionId"`
	TemplateID   *string   `json:"templateId"`
	Engine       string    `json:"engine"`
	CreatedAt    time.Time `json:"createdAt"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (h *api) out(t thumbnail.Thumbnail) thumbnailDTO {
	faces := t.FaceIDs
	if faces == nil {
		faces = []string{}
	}
	return thumbnailDTO{
		ID: t.ID, ImageURL: h.svc.URL(t.ImageKey), Prompt: t.Prompt, Kind: string(t.Kind), ParentID: strOrNil(t.ParentID),
		AspectRatio: string(t.Aspect), Width: t.Width, Height: t.Height, StyleID: strOrNil(t.StyleID), BrandID: strOrNil(t.BrandID),
		FaceIDs: faces, CollectionID: strOrNil(t.CollectionID), TemplateID: strOrNil(t.TemplateID), Engine: t.Engine,
		CreatedAt: t.CreatedAt.UTC(),
	}
}

// inputs are the asset fields shared by generation and remix bodies.
type inputs struct {
	StyleID      string   `json:"styleId"`
	BrandID      string   `json:"brandId"`
	FaceIDs      []string `json:"faceIds"`
	CollectionID string   `json:"collectionId"`
}

func (in inputs) raw() service.RawInputs {
	return service.RawInputs{StyleID: in.StyleID, BrandID: in.BrandID, FaceIDs: in.FaceIDs, CollectionID: in.CollectionID}
}

func (h *api) generate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Prompt             string   `json:"prompt"`
		AspectRatio        string   `json:"aspectRatio"`
		ReferenceImageURLs []string `json:"referenceImageUrls"`
		inputs
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	raw := in.raw()
	raw.ReferenceURLs = in.ReferenceImageURLs
	req, err := service.CheckGenerate(in.Prompt, in.AspectRatio, raw)
	if err != nil {
		return err
	}
	p := who(r)
	t, err := h.svc.Generate(r.Context(), p.OrgID, credits.KeyOf(p), req)
	if err != nil {
		return err
	}
	return httpx.Created(w, h.out(t))
}

func (h *api) variations(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ThumbnailID string `json:"thumbnailId"`
		Count       *int   `json:"count"`
		Prompt      string `json:"prompt"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	req, err := service.CheckVariations(in.ThumbnailID, in.Count, in.Prompt)
	if err != nil {
		return err
	}
	p := who(r)
	ts, err := h.svc.Variations(r.Context(), p.OrgID, credits.KeyOf(p), req)
	if err != nil {
		return err
	}
	out := make([]thumbnailDTO, len(ts))
	for i, t := range ts {
		out[i] = h.out(t)
	}
	return httpx.Created(w, out)
}

func (h *api) get(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	t, err := h.svc.Thumbnail(r.Context(), who(r).OrgID, id)
	if err != nil {
		return err
	}
	return httpx.OK(w, h.out(t))
}

func (h *api) remove(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := h.svc.Delete(r.Context(), who(r).OrgID, id); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// listFilter reads the list filters: kind (an enum) and collectionId (a
// uuid); a repeated or malformed one is a 400.
func listFilter(q url.Values) (thumbnail.Filter, error) {
	var f thumbnail.Filter
	var p thumbnail.Problems
	if v, ok := q["kind"]; ok {
		f.Kind = thumbnail.Kind(v[0])
		if len(v) != 1 || !f.Kind.Valid() {
			p.Add("kind", "must be one of generated, variation, remix, optimized, edit")
		}
	}
	if v, ok := q["collectionId"]; ok {
		if len(v) != 1 || v[0] == "" {
			p.Add("collectionId", "must be a uuid")
		} else {
			f.CollectionID = thumbnail.ID(&p, "collectionId", v[0])
		}
	}
	return f, p.Err()
}

func (h *api) list(w http.ResponseWriter, r *http.Request) error {
	f, err := listFilter(r.URL.Query())
	if err != nil {
		return err
	}
	org := who(r).OrgID
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]thumbnail.Thumbnail, int, error) {
		return h.svc.Thumbnails(ctx, org, f, offset, limit)
	}, h.out)
}

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
	slots := make([]slotDTO, 0, len(t.Layout.Slots()))
	for _, s := range t.Layout.Slots() {
		slots = append(slots, slotDTO{Name: s.Name, Kind: s.Kind})
	}
	return templateDTO{ID: t.ID, Name: t.Name, Category: t.Category, Description: t.Description,
		PreviewURL: strOrNil(h.svc.URL(t.PreviewKey)), AspectRatio: string(t.Aspect), Slots: slots}
}

func (h *api) templates(w http.ResponseWriter, r *http.Request) error {
	var f template.Filter
	if v, ok := r.URL.Query()["category"]; ok {
		if len(v) != 1 || v[0] == "" || len(v[0]) > 64 {
			return apierr.Field("category", "must be one category name")
		}
		f.Category = v[0]
	}
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]template.Template, int, error) {
		return h.svc.Templates(ctx, f, offset, limit)
	}, h.templateOut)
}

func (h *api) remix(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var in struct {
		Prompt      string `json:"prompt"`
		Headline    string `json:"headline"`
		AspectRatio string `json:"aspectRatio"`
		inputs
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	req, err := service.CheckRemix(id, in.Prompt, in.Headline, in.AspectRatio, in.raw())
	if err != nil {
		return err
	}
	p := who(r)
	t, err := h.svc.Remix(r.Context(), p.OrgID, credits.KeyOf(p), req)
	if err != nil {
		return err
	}
	return httpx.Created(w, h.out(t))
}
