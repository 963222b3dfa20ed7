package httpapi

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// thumbnailDTO is a thumbnail as every endpoint returns it: all fields
// always present, null when unset.
type thumbnailDTO struct {
	ID           string   `json:"id"`
	ImageURL     string   `json:"imageUrl"`
	Prompt       string   `json:"prompt"`
	Kind         string   `json:"kind"`
	ParentID     *string  `json:"parentId"`
	AspectRatio  *string  `json:"aspectRatio"`
	Width        int      `json:"width"`
	Height       int      `json:"height"`
	StyleID      *string  `json:"styleId"`
	BrandID      *string  `json:"brandId"`
	FaceIDs      []string `json:"faceIds"`
	CollectionID *string  `json:"collectionId"`
	TemplateID   *string  `json:"templateId"`
	Engine       string   `json:"engine"`
	// Warning is set, only in the answer that made it, when the local
	// engine stood in for a provider whose model is missing.
	Warning string `json:"warning,omitempty"`
	// Operation, Params and Applied: the edit that made it and what it
	// applied (null, {} and [] for the other kinds); Applied of a local
	// generation lists what it used of the prompt.
	Operation *string           `json:"operation"`
	Params    map[string]string `json:"params"`
	Applied   []string          `json:"applied"`
	CreatedAt time.Time         `json:"createdAt"`
}

func (h *api) thumbnailOut(t thumbnail.Thumbnail) thumbnailDTO {
	faces := t.FaceIDs
	if faces == nil {
		faces = []string{}
	}
	params := t.Params
	if params == nil {
		params = map[string]string{}
	}
	applied := t.Applied
	if applied == nil {
		applied = []string{}
	}
	return thumbnailDTO{ID: t.ID, ImageURL: h.svc.URL(t.ImageKey), Prompt: t.Prompt, Kind: string(t.Kind), ParentID: httpx.OrNull(t.ParentID),
		AspectRatio: httpx.OrNull(string(t.Aspect)), Width: t.Width, Height: t.Height, StyleID: httpx.OrNull(t.StyleID), BrandID: httpx.OrNull(t.BrandID),
		FaceIDs: faces, CollectionID: httpx.OrNull(t.CollectionID), TemplateID: httpx.OrNull(t.TemplateID), Engine: t.Engine, Warning: t.Warning,
		Operation: httpx.OrNull(string(t.Operation)), Params: params, Applied: applied, CreatedAt: utc(t.CreatedAt)}
}

// refsIn are the record fields shared by generate and remix bodies.
type refsIn struct {
	StyleID      *string  `json:"styleId"`
	BrandID      *string  `json:"brandId"`
	FaceIDs      []string `json:"faceIds"`
	CollectionID *string  `json:"collectionId"`
}

func (r refsIn) refs() thumbnail.Refs {
	return thumbnail.Refs{StyleID: r.StyleID, BrandID: r.BrandID, CollectionID: r.CollectionID, FaceIDs: r.FaceIDs}
}

func (h *api) generate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Prompt             *string  `json:"prompt"`
		ReferenceImageURLs []string `json:"referenceImageUrls"`
		AspectRatio        *string  `json:"aspectRatio"`
		refsIn
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	t, err := h.svc.Generate(r.Context(), caller(r), thumbnail.GenerateInput{
		Prompt: in.Prompt, AspectRatio: in.AspectRatio, ReferenceImageURLs: in.ReferenceImageURLs, Refs: in.refs(),
	})
	if err != nil {
		return err
	}
	return httpx.Created(w, h.thumbnailOut(t))
}

func (h *api) variations(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ThumbnailID *string `json:"thumbnailId"`
		Count       *int    `json:"count"`
		Prompt      *string `json:"prompt"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	ts, err := h.svc.Variations(r.Context(), caller(r), thumbnail.VariationsInput{ThumbnailID: in.ThumbnailID, Count: in.Count, Prompt: in.Prompt})
	if err != nil {
		return err
	}
	out := make([]thumbnailDTO, len(ts))
	for i, t := range ts {
		out[i] = h.thumbnailOut(t)
	}
	return httpx.Created(w, out)
}

func (h *api) listThumbnails(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	kind, err := thumbnail.ParseKind(q.Get("kind"))
	if err != nil {
		return err
	}
	f := thumbnail.Filter{Kind: kind}
	if c := q.Get("collectionId"); c != "" {
		id, err := httpx.ParseUUID("collectionId", c)
		if err != nil {
			return err
		}
		f.CollectionID = id.String()
	}
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]thumbnail.Thumbnail, int, error) {
		return h.svc.Thumbnails(ctx, caller(r).OrgID, f, offset, limit)
	}, h.thumbnailOut)
}
