package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/clips/internal/render"
)

const footageCols = `id::text, name, keywords, object_key, duration, source_url, created_at`

func scanFootage(row pgx.Row) (render.Footage, error) {
	var f render.Footage
	err := row.Scan(&f.ID, &f.Name, &f.Keywords, &f.Key, &f.Duration, &f.SourceURL, &f.CreatedAt)
	return f, err
}

// AddFootage stores a b-roll clip.
func (s *Store) AddFootage(ctx context.Context, f render.Footage) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO broll_clips (id, name, keywords, object_key, duration, source_url, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, f.ID, f.Name, f.Keywords, f.Key, f.Duration, f.SourceURL, f.CreatedAt); err != nil {
		return fmt.Errorf("postgres: add footage: %w", err)
	}
	return nil
}

// Footage returns a page of the b-roll library, newest first.
func (s *Store) Footage(ctx context.Context, offset, limit int) ([]render.Footage, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM broll_clips`,
		`SELECT `+footageCols+` FROM broll_clips ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`, nil, offset, limit, scanFootage)
}

// AllFootage returns the whole b-roll library (for matching keywords).
func (s *Store) AllFootage(ctx context.Context) ([]render.Footage, error) {
	return pgkit.All(ctx, s.pool, "footage", scanFootage, `SELECT `+footageCols+` FROM broll_clips ORDER BY created_at, id`)
}
