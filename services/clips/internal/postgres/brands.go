package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/services/clips/internal/render"
)

// ApplyBrand applies one assets brand event to the view, once per event id
// (consumer names the inbox). A change older than the stored one, about a
// brand of another organization, or reviving a deleted brand changes
// nothing.
func (s *Store) ApplyBrand(ctx context.Context, consumer, eventID string, b render.Brand, deleted bool, at time.Time) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if first, err := messaging.ClaimInbox(ctx, tx, consumer, eventID); err != nil || !first {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO brands (id, org_id, name, colors, logo_url, deleted, changed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, colors = excluded.colors, logo_url = excluded.logo_url,
				deleted = excluded.deleted, changed_at = excluded.changed_at
			WHERE brands.org_id = excluded.org_id AND brands.changed_at <= excluded.changed_at AND NOT brands.deleted`,
			b.ID, b.OrgID, b.Name, nonNil(b.Colors), b.LogoURL, deleted, at); err != nil {
			return fmt.Errorf("postgres: apply brand %s: %w", b.ID, err)
		}
		return nil
	})
}

// Brand returns the organization's live brand, or render.ErrNoBrand.
func (s *Store) Brand(ctx context.Context, orgID, id string) (render.Brand, error) {
	b := render.Brand{ID: id, OrgID: orgID}
	err := s.pool.QueryRow(ctx, `SELECT name, colors, logo_url FROM brands WHERE org_id = $1 AND id = $2 AND NOT deleted`, orgID, id).
		Scan(&b.Name, &b.Colors, &b.LogoURL)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, render.ErrNoBrand
	}
	if err != nil {
		return b, fmt.Errorf("postgres: brand: %w", err)
	}
	return b, nil
}
