package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/assets/internal/brand"
	"hookline.dev/services/assets/internal/service"
)

const brandCols = `id::text, org_id::text, name, colors, logo_key, fonts, domain, created_at, updated_at`

func scanBrand(r pgx.Row) (brand.Brand, error) {
	var b brand.Brand
	err := r.Scan(&b.ID, &b.OrgID, &b.Name, &b.Colors, &b.LogoKey, &b.Fonts, &b.Domain, &b.CreatedAt, &b.UpdatedAt)
	return b, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// InsertBrand stores a new brand and its events.
func (s *Store) InsertBrand(ctx context.Context, b brand.Brand, mk service.Events[brand.Brand]) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO brands (id, org_id, name, colors, logo_key, fonts, domain, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, b.ID, b.OrgID, b.Name, nonNil(b.Colors), b.LogoKey, nonNil(b.Fonts), b.Domain, b.CreatedAt, b.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: insert brand: %w", err)
		}
		return outbox(ctx, tx, mk, b)
	})
}

// Brand returns a brand of the organization, or brand.ErrNotFound.
func (s *Store) Brand(ctx context.Context, orgID, id string) (brand.Brand, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+brandCols+` FROM brands WHERE org_id = $1 AND id = $2`, orgID, id), scanBrand, brand.ErrNotFound)
}

// Brands returns a page of the organization's brands, newest first.
func (s *Store) Brands(ctx context.Context, orgID string, offset, limit int) ([]brand.Brand, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM brands WHERE org_id = $1`,
		`SELECT `+brandCols+` FROM brands WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
		[]any{orgID}, offset, limit, scanBrand)
}

// UpdateBrand changes a brand under a row lock.
func (s *Store) UpdateBrand(ctx context.Context, orgID, id string, change func(brand.Brand) (brand.Brand, error), mk service.Events[brand.Brand]) (before, after brand.Brand, err error) {
	err = pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err = pgkit.One(tx.QueryRow(ctx, `SELECT `+brandCols+` FROM brands WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, id), scanBrand, brand.ErrNotFound)
		if err != nil {
			return err
		}
		if after, err = change(before); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE brands SET name = $3, colors = $4, logo_key = $5, fonts = $6, domain = $7, updated_at = $8
			WHERE org_id = $1 AND id = $2`, orgID, id, after.Name, nonNil(after.Colors), after.LogoKey, nonNil(after.Fonts), after.Domain, after.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: update brand: %w", err)
		}
		return outbox(ctx, tx, mk, after)
	})
	return before, after, err
}

// DeleteBrand removes a brand and returns it, or brand.ErrNotFound.
func (s *Store) DeleteBrand(ctx context.Context, orgID, id string, mk service.Events[brand.Brand]) (brand.Brand, error) {
	var b brand.Brand
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		b, err = pgkit.One(tx.QueryRow(ctx, `DELETE FROM brands WHERE org_id = $1 AND id = $2 RETURNING `+brandCols, orgID, id), scanBrand, brand.ErrNotFound)
		if err != nil {
			return err
		}
		return outbox(ctx, tx, mk, b)
	})
	return b, err
}
