package httpapi

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/render"
)

// trackDTO is a music track of the library.
type trackDTO struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Moods     []string  `json:"moods"`
	Duration  float64   `json:"duration"`
	SourceURL string    `json:"sourceUrl"`
	CreatedAt time.Time `json:"createdAt"`
}

func trackOut(t render.Track) trackDTO {
	return trackDTO{ID: t.ID, Name: t.Name, Moods: t.Moods, Duration: t.Duration, SourceURL: t.SourceURL, CreatedAt: t.CreatedAt.UTC()}
}

func (h *api) addTrack(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name  *string  `json:"name"`
		URL   *string  `json:"url"`
		Moods []string `json:"moods"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	p, _ := principal.From(r.Context())
	t, err := h.svc.AddTrack(r.Context(), p, render.TrackInput{Name: in.Name, URL: in.URL, Moods: in.Moods})
	if err != nil {
		return err
	}
	return httpx.Created(w, trackOut(t))
}

func (h *api) listTracks(w http.ResponseWriter, r *http.Request) error {
	p, _ := principal.From(r.Context())
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]render.Track, int, error) {
		return h.svc.Tracks(ctx, p, offset, limit)
	}, trackOut)
}

// footageDTO is a b-roll clip of the library.
type footageDTO struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Keywords  []string  `json:"keywords"`
	Duration  float64   `json:"duration"`
	SourceURL string    `json:"sourceUrl"`
	CreatedAt time.Time `json:"createdAt"`
}

func footageOut(f render.Footage) footageDTO {
	return footageDTO{ID: f.ID, Name: f.Name, Keywords: f.Keywords, Duration: f.Duration, SourceURL: f.SourceURL, CreatedAt: f.CreatedAt.UTC()}
}

func (h *api) addFootage(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name     *string  `json:"name"`
		URL      *string  `json:"url"`
		Keywords []string `json:"keywords"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	p, _ := principal.From(r.Context())
	f, err := h.svc.AddFootage(r.Context(), p, render.FootageInput{Name: in.Name, URL: in.URL, Keywords: in.Keywords})
	if err != nil {
		return err
	}
	return httpx.Created(w, footageOut(f))
}

func (h *api) listFootage(w http.ResponseWriter, r *http.Request) error {
	p, _ := principal.From(r.Context())
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]render.Footage, int, error) {
		return h.svc.ListFootage(ctx, p, offset, limit)
	}, footageOut)
}
