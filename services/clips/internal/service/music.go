package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/render"
)

// Music is the music library (*postgres.Store). Every method may return a
// database failure.
type Music interface {
	AddTrack(ctx context.Context, t render.Track) error
	// Track errors: render.ErrNoTrack.
	Track(ctx context.Context, id string) (render.Track, error)
	// Tracks returns a page of the library, newest first, and the total.
	Tracks(ctx context.Context, offset, limit int) ([]render.Track, int, error)
	AllTracks(ctx context.Context) ([]render.Track, error)
}

// Limits of a music track.
const (
	maxTrackBytes   = 50 << 20
	minTrackSeconds = 5
)

// errAdminOnly hides the admin endpoints from organizations' principals.
var errAdminOnly = apierr.New(apierr.NotFound, "not found")

// AddTrack fetches an audio file into the music library (the operator,
// through the gateway's admin API).
func (s *API) AddTrack(ctx context.Context, p principal.Principal, in render.TrackInput) (render.Track, error) {
	if !p.Admin {
		return render.Track{}, errAdminOnly
	}
	name, url, moods, err := render.ValidateTrack(in)
	if err != nil {
		return render.Track{}, err
	}
	key := "music/" + newID()
	info, ext, err := s.ingest(ctx, url, key, maxTrackBytes, []string{".mp3", ".wav", ".m4a", ".aac", ".ogg", ".opus", ".flac"}, func(in media.Info) error {
		if !in.HasAudio || in.Duration < minTrackSeconds {
			return fmt.Errorf("not an audio file of at least %d seconds", minTrackSeconds)
		}
		return nil
	})
	if err != nil {
		return render.Track{}, err
	}
	t := render.Track{ID: strings.TrimPrefix(key, "music/"), Name: name, Moods: moods, Key: key + ext, Duration: info.Duration,
		SourceURL: url, CreatedAt: s.now()}
	return t, s.Music.AddTrack(ctx, t)
}

// ingest fetches an operator's file at url (through the safe fetcher, at
// most maxBytes), checks it with ffprobe and check, and stores it at key +
// its extension (one of exts, else ".bin"). Failures the operator can fix
// are 400s naming url.
func (s *API) ingest(ctx context.Context, url, key string, maxBytes int64, exts []string, check func(media.Info) error) (media.Info, string, error) {
	dir, err := os.MkdirTemp(s.WorkDir, "clips-ingest-")
	if err != nil {
		return media.Info{}, "", err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ext := strings.ToLower(path.Ext(strings.SplitN(url, "?", 2)[0]))
	if !slices.Contains(exts, ext) {
		ext = ".bin"
	}
	file := filepath.Join(dir, "file"+ext)
	f, err := os.Create(file) //nolint:gosec // G304: a path the service chose
	if err != nil {
		return media.Info{}, "", err
	}
	_, _, err = s.Fetch.Stream(ctx, url, f, maxBytes)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, safefetch.ErrTooLarge):
		return media.Info{}, "", apierr.Field("url", fmt.Sprintf("the file is over %d MB", maxBytes>>20))
	case errors.Is(err, safefetch.ErrForbiddenAddress), errors.Is(err, safefetch.ErrScheme), errors.Is(err, safefetch.ErrInvalidURL):
		return media.Info{}, "", apierr.Field("url", "this address may not be fetched")
	case err != nil:
		return media.Info{}, "", apierr.Field("url", "could not be fetched")
	}
	info, err := s.Media.Probe(ctx, file)
	if errors.Is(err, media.ErrCorrupt) {
		return info, "", apierr.Field("url", "not a playable media file")
	}
	if err != nil {
		return info, "", err
	}
	if err := check(info); err != nil {
		return info, "", apierr.Field("url", err.Error())
	}
	return info, ext, s.putFile(ctx, file, key+ext, "application/octet-stream")
}

// Tracks lists the music library (the operator only).
func (s *API) Tracks(ctx context.Context, p principal.Principal, offset, limit int) ([]render.Track, int, error) {
	if !p.Admin {
		return nil, 0, errAdminOnly
	}
	return s.Music.Tracks(ctx, offset, limit)
}

// musicFor picks r's track and fetches it to the worker ("" and a note when
// the library has none).
func (s *Worker) musicFor(ctx context.Context, r render.Render, mood, clipID string) (string, error) {
	var t render.Track
	if r.Options.MusicTrackID != "" {
		var err error
		if t, err = s.Music.Track(ctx, r.Options.MusicTrackID); errors.Is(err, render.ErrNoTrack) {
			return "", nil // removed since the request
		} else if err != nil {
			return "", err
		}
	} else {
		all, err := s.Music.AllTracks(ctx)
		if err != nil {
			return "", err
		}
		var ok bool
		if t, ok = render.Pick(all, mood, clipID); !ok {
			return "", nil
		}
	}
	return s.cached(ctx, t.Key, path.Ext(t.Key))
}
