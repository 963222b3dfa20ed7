package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/credits"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
)

// SaveCritique stores c and completes its reservation r with completed, in
// one transaction. Errors: credits.ErrSettled when r was failed meanwhile
// (nothing is stored), or a database failure.
func (s *Store) SaveCritique(ctx context.Context, c critique.Record, r credits.Reservation, completed events.Envelope) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO critiques (id, org_id, image_url, niche, engine, result, reservation_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			c.ID, c.OrgID, c.ImageURL, c.Niche, c.Engine, c.Critique, r.ID, c.CreatedAt); err != nil {
			return fmt.Errorf("postgres: insert critique: %w", err)
		}
		return s.credits.Complete(ctx, tx, r, completed)
	})
}

// Critique returns the organization's critique, or critique.ErrNotFound.
func (s *Store) Critique(ctx context.Context, orgID, id string) (critique.Record, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT id::text, org_id::text, image_url, niche, engine, result, created_at
		FROM critiques WHERE org_id = $1 AND id = $2`, orgID, id),
		func(r pgx.Row) (critique.Record, error) {
			var c critique.Record
			err := r.Scan(&c.ID, &c.OrgID, &c.ImageURL, &c.Niche, &c.Engine, &c.Critique, &c.CreatedAt)
			return c, err
		}, critique.ErrNotFound)
}
