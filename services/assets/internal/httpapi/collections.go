package httpapi

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/assets/internal/collection"
)

type collectionDTO struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Description    *string   `json:"description"`
	ThumbnailCount int       `json:"thumbnailCount"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

type thumbnailDTO struct {
	ID       string    `json:"id"`
	ImageURL string    `json:"imageUrl"`
	Prompt   string    `json:"prompt"`
	AddedAt  time.Time `json:"addedAt"`
}

type collectionDetailDTO struct {
	collectionDTO
	Thumbnails []thumbnailDTO `json:"thumbnails"`
}

func collectionOut(c collection.Collection) collectionDTO {
	return collectionDTO{ID: c.ID, Name: c.Name, Description: httpx.OrNull(c.Description), ThumbnailCount: c.ThumbnailCount,
		CreatedAt: utc(c.CreatedAt), UpdatedAt: utc(c.UpdatedAt)}
}

func detailOut(c collection.Collection, thumbs []collection.Thumbnail) collectionDetailDTO {
	d := collectionDetailDTO{collectionDTO: collectionOut(c), Thumbnails: make([]thumbnailDTO, len(thumbs))}
	d.ThumbnailCount = len(thumbs)
	for i, t := range thumbs {
		d.Thumbnails[i] = thumbnailDTO{ID: t.ID, ImageURL: t.ImageURL, Prompt: t.Prompt, AddedAt: utc(t.AddedAt)}
	}
	return d
}

func (h *api) createCollection(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	c, err := h.svc.CreateCollection(r.Context(), principal.Org(r), collection.Draft{Name: in.Name, Description: in.Description})
	if err != nil {
		return err
	}
	return httpx.Created(w, detailOut(c, nil))
}

func (h *api) listCollections(w http.ResponseWriter, r *http.Request) error {
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]collection.Collection, int, error) {
		return h.svc.Collections(ctx, principal.Org(r), offset, limit)
	}, collectionOut)
}

func (h *api) detail(w http.ResponseWriter, r *http.Request, id string) error {
	c, thumbs, err := h.svc.Collection(r.Context(), principal.Org(r), id)
	if err != nil {
		return err
	}
	return httpx.OK(w, detailOut(c, thumbs))
}

func (h *api) getCollection(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	return h.detail(w, r, id)
}

func (h *api) updateCollection(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if _, err := h.svc.UpdateCollection(r.Context(), principal.Org(r), id, collection.Patch{Name: in.Name, Description: in.Description}); err != nil {
		return err
	}
	return h.detail(w, r, id)
}

// membership decodes {thumbnailId} or {thumbnailIds} and the path id.
func membership(r *http.Request) (string, []string, error) {
	id, err := chix.PathID(r, "id")
	if err != nil {
		return "", nil, err
	}
	var in struct {
		ThumbnailID  *string   `json:"thumbnailId"`
		ThumbnailIDs *[]string `json:"thumbnailIds"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return "", nil, err
	}
	var list []string
	if in.ThumbnailIDs != nil {
		list = *in.ThumbnailIDs
	}
	ids, err := collection.ThumbnailIDs(in.ThumbnailID, list, in.ThumbnailIDs != nil)
	return id, ids, err
}

// addThumbnails answers POST /collections/{id}/thumbnails with the
// collection as it is afterwards.
func (h *api) addThumbnails(w http.ResponseWriter, r *http.Request) error {
	id, ids, err := membership(r)
	if err != nil {
		return err
	}
	if err := h.svc.AddThumbnails(r.Context(), principal.Org(r), id, ids); err != nil {
		return err
	}
	return h.detail(w, r, id)
}

// removeThumbnails answers DELETE /collections/{id}/thumbnails with the
// collection as it is afterwards.
func (h *api) removeThumbnails(w http.ResponseWriter, r *http.Request) error {
	id, ids, err := membership(r)
	if err != nil {
		return err
	}
	if err := h.svc.RemoveThumbnails(r.Context(), principal.Org(r), id, ids); err != nil {
		return err
	}
	return h.detail(w, r, id)
}
