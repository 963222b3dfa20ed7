package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/clips/internal/render"
)

const trackCols = `id::text, name, moods, object_key, duration, source_url, created_at`

func scanTrack(row pgx.Row) (render.Track, error) {
	var t render.Track
	err := row.Scan(&t.ID, &t.Name, &t.Moods, &t.Key, &t.Duration, &t.SourceURL, &t.CreatedAt)
	return t, err
}

// AddTrack stores a music track.
func (s *Store) AddTrack(ctx context.Context, t render.Track) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO music_tracks (id, name, moods, object_key, duration, source_url, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, t.ID, t.Name, t.Moods, t.Key, t.Duration, t.SourceURL, t.CreatedAt); err != nil {
		return fmt.Errorf("postgres: add track: %w", err)
	}
	return nil
}

// Track returns a track, or render.ErrNoTrack.
func (s *Store) Track(ctx context.Context, id string) (render.Track, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+trackCols+` FROM music_tracks WHERE id = $1`, id), scanTrack, render.ErrNoTrack)
}

// Tracks returns a page of the library, newest first.
func (s *Store) Tracks(ctx context.Context, offset, limit int) ([]render.Track, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM music_tracks`,
		`SELECT `+trackCols+` FROM music_tracks ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`, nil, offset, limit, scanTrack)
}

// AllTracks returns the whole library (for picking by mood).
func (s *Store) AllTracks(ctx context.Context) ([]render.Track, error) {
	return pgkit.All(ctx, s.pool, "tracks", scanTrack, `SELECT `+trackCols+` FROM music_tracks ORDER BY created_at, id`)
}
