package service

import (
	"context"
	"fmt"
	"path"
	"strings"

	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/render"
)

// Broll is the b-roll library (*postgres.Store). Every method may return a
// database failure.
type Broll interface {
	AddFootage(ctx context.Context, f render.Footage) error
	// Footage returns a page of the library, newest first, and the total.
	Footage(ctx context.Context, offset, limit int) ([]render.Footage, int, error)
	AllFootage(ctx context.Context) ([]render.Footage, error)
}

// maxFootageBytes bounds a b-roll file.
const maxFootageBytes = 200 << 20

// AddFootage fetches a video into the b-roll library (the operator,
// through the gateway's admin API).
func (s *API) AddFootage(ctx context.Context, p principal.Principal, in render.FootageInput) (render.Footage, error) {
	if !p.Admin {
		return render.Footage{}, errAdminOnly
	}
	name, url, keywords, err := render.ValidateFootage(in)
	if err != nil {
		return render.Footage{}, err
	}
	key := "broll/" + newID()
	info, ext, err := s.ingest(ctx, url, key, maxFootageBytes, []string{".mp4", ".mov", ".webm", ".mkv", ".m4v"}, func(in media.Info) error {
		if !in.HasVideo || in.Duration < cutawaySeconds {
			return fmt.Errorf("not a video of at least %.1f seconds", cutawaySeconds)
		}
		return nil
	})
	if err != nil {
		return render.Footage{}, err
	}
	f := render.Footage{ID: strings.TrimPrefix(key, "broll/"), Name: name, Keywords: keywords, Key: key + ext, Duration: info.Duration,
		SourceURL: url, CreatedAt: s.now()}
	return f, s.Broll.AddFootage(ctx, f)
}

// ListFootage lists the b-roll library (the operator only).
func (s *API) ListFootage(ctx context.Context, p principal.Principal, offset, limit int) ([]render.Footage, int, error) {
	if !p.Admin {
		return nil, 0, errAdminOnly
	}
	return s.Broll.Footage(ctx, offset, limit)
}

// footageFor turns the keyword cutaways that the library has footage for
// into footage cutaways; the others stay kinetic typography.
func (s *Worker) footageFor(ctx context.Context, cuts []captions.Cutaway) ([]captions.Cutaway, []ffrender.Footage, error) {
	if len(cuts) == 0 {
		return cuts, nil, nil
	}
	library, err := s.Broll.AllFootage(ctx)
	if err != nil || len(library) == 0 {
		return cuts, nil, err
	}
	var typo []captions.Cutaway
	var foot []ffrender.Footage
	for _, c := range cuts {
		f, ok := render.Match(library, c.Text)
		if !ok {
			typo = append(typo, c)
			continue
		}
		file, err := s.cached(ctx, f.Key, path.Ext(f.Key))
		if err != nil {
			return nil, nil, err
		}
		foot = append(foot, ffrender.Footage{Start: c.Start, End: c.End, File: file})
	}
	return typo, foot, nil
}
