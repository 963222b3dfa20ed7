package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
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
		return applyBrand(ctx, tx, b, deleted, at)
	})
}

// LearnBrand applies the owner's answer about a brand the view had not
// seen, by the rule of ApplyBrand, without an inbox row: an answer has no
// event id, and applying it again changes nothing.
func (s *Store) LearnBrand(ctx context.Context, b render.Brand, at time.Time) error {
	return applyBrand(ctx, s.pool, b, false, at)
}

// applyBrand writes a brand unless the row holds a newer change, belongs
// to another organization, or is deleted: a deletion is final, so neither
// a late event nor a late answer of the owner brings a brand back.
func applyBrand(ctx context.Context, db messaging.Execer, b render.Brand, deleted bool, at time.Time) error {
	if _, err := db.Exec(ctx, `INSERT INTO brands (id, org_id, name, colors, logo_url, deleted, changed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, colors = excluded.colors, logo_url = excluded.logo_url,
			deleted = excluded.deleted, changed_at = excluded.changed_at
		WHERE brands.org_id = excluded.org_id AND brands.changed_at <= excluded.changed_at AND NOT brands.deleted`,
		b.ID, b.OrgID, b.Name, nonNil(b.Colors), b.LogoURL, deleted, at); err != nil {
		return fmt.Errorf("postgres: apply brand %s: %w", b.ID, err)
	}
	return nil
}

// BrandSeen reports whether the view has a row of the brand id, of any
// organization, live or deleted.
func (s *Store) BrandSeen(ctx context.Context, id string) (bool, error) {
	var seen bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM brands WHERE id = $1)`, id).Scan(&seen); err != nil {
		return false, fmt.Errorf("postgres: brand seen: %w", err)
	}
	return seen, nil
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
