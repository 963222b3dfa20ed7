package httpapi

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/assets/internal/face"
)

type faceDTO struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	ImageURLs    []string  `json:"imageUrls"`
	ThumbnailURL string    `json:"thumbnailUrl"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func (h *api) faceOut(f face.Face) faceDTO {
	return faceDTO{ID: f.ID, Name: f.Name, ImageURLs: h.svc.URLs(f.ImageKeys), ThumbnailURL: h.svc.URL(f.ThumbnailKey),
		CreatedAt: utc(f.CreatedAt), UpdatedAt: utc(f.UpdatedAt)}
}

func (h *api) createFace(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name      string   `json:"name"`
		ImageURLs []string `json:"imageUrls"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	f, err := h.svc.CreateFace(r.Context(), principal.Org(r), face.Draft{Name: in.Name, ImageURLs: in.ImageURLs})
	if err != nil {
		return err
	}
	return httpx.Created(w, h.faceOut(f))
}

func (h *api) listFaces(w http.ResponseWriter, r *http.Request) error {
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]face.Face, int, error) {
		return h.svc.Faces(ctx, principal.Org(r), offset, limit)
	}, h.faceOut)
}

func (h *api) updateFace(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Name      *string   `json:"name"`
		ImageURLs *[]string `json:"imageUrls"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	f, err := h.svc.UpdateFace(r.Context(), principal.Org(r), id, face.Patch{Name: in.Name, ImageURLs: in.ImageURLs})
	if err != nil {
		return err
	}
	return httpx.OK(w, h.faceOut(f))
}
