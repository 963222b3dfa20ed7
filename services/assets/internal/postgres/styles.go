package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/assets/internal/service"
	"hookline.dev/services/assets/internal/style"
)

// profileDoc is the stored form of a style profile.
type profileDoc struct {
	Palette []struct {
		Hex    string  `json:"hex"`
		Weight float64 `json:"weight"`
	} `json:"palette"`
	Brightness float64 `json:"brightness"`
	Contrast   float64 `json:"contrast"`
	Saturation float64 `json:"saturation"`
	Warmth     float64 `json:"warmth"`
}

func encodeProfile(p style.Profile) ([]byte, error) {
	var d profileDoc
	d.Palette = make([]struct {
		Hex    string  `json:"hex"`
		Weight float64 `json:"weight"`
	}, len(p.Palette))
	for i, s := range p.Palette {
		d.Palette[i].Hex, d.Palette[i].Weight = s.Hex, s.Weight
	}
	d.Brightness, d.Contrast, d.Saturation, d.Warmth = p.Brightness, p.Contrast, p.Saturation, p.Warmth
	return json.Marshal(d)
}

func decodeProfile(b []byte) (style.Profile, error) {
	var d profileDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return style.Profile{}, fmt.Errorf("postgres: decode style profile: %w", err)
	}
	p := style.Profile{Brightness: d.Brightness, Contrast: d.Contrast, Saturation: d.Saturation, Warmth: d.Warmth}
	p.Palette = make([]style.Swatch, len(d.Palette))
	for i, s := range d.Palette {
		p.Palette[i] = style.Swatch{Hex: s.Hex, Weight: s.Weight}
	}
	return p, nil
}

const styleCols = `id::text, org_id::text, name, description, reference_keys, profile, created_at, updated_at`

func scanStyle(r pgx.Row) (style.Style, error) {
	var s style.Style
	var profile []byte
	if err := r.Scan(&s.ID, &s.OrgID, &s.Name, &s.Description, &s.ReferenceKeys, &profile, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return s, err
	}
	var err error
	s.Profile, err = decodeProfile(profile)
	return s, err
}

// InsertStyle stores a new style and its events.
func (s *Store) InsertStyle(ctx context.Context, st style.Style, mk service.Events[style.Style]) error {
	profile, err := encodeProfile(st.Profile)
	if err != nil {
		return err
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO styles (id, org_id, name, description, reference_keys, profile, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, st.ID, st.OrgID, st.Name, st.Description, st.ReferenceKeys, profile, st.CreatedAt, st.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: insert style: %w", err)
		}
		return outbox(ctx, tx, mk, st)
	})
}

// Style returns a style of the organization, or style.ErrNotFound.
func (s *Store) Style(ctx context.Context, orgID, id string) (style.Style, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+styleCols+` FROM styles WHERE org_id = $1 AND id = $2`, orgID, id), scanStyle, style.ErrNotFound)
}

// Styles returns a page of the organization's styles, newest first.
func (s *Store) Styles(ctx context.Context, orgID string, offset, limit int) ([]style.Style, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM styles WHERE org_id = $1`,
		`SELECT `+styleCols+` FROM styles WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
		[]any{orgID}, offset, limit, scanStyle)
}

// UpdateStyle changes a style under a row lock.
func (s *Store) UpdateStyle(ctx context.Context, orgID, id string, change func(style.Style) (style.Style, error), mk service.Events[style.Style]) (before, after style.Style, err error) {
	err = pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err = pgkit.One(tx.QueryRow(ctx, `SELECT `+styleCols+` FROM styles WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, id), scanStyle, style.ErrNotFound)
		if err != nil {
			return err
		}
		if after, err = change(before); err != nil {
			return err
		}
		profile, err := encodeProfile(after.Profile)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE styles SET name = $3, description = $4, reference_keys = $5, profile = $6, updated_at = $7
			WHERE org_id = $1 AND id = $2`, orgID, id, after.Name, after.Description, after.ReferenceKeys, profile, after.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: update style: %w", err)
		}
		return outbox(ctx, tx, mk, after)
	})
	return before, after, err
}

// DeleteStyle removes a style and returns it, or style.ErrNotFound.
func (s *Store) DeleteStyle(ctx context.Context, orgID, id string, mk service.Events[style.Style]) (style.Style, error) {
	var st style.Style
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		st, err = pgkit.One(tx.QueryRow(ctx, `DELETE FROM styles WHERE org_id = $1 AND id = $2 RETURNING `+styleCols, orgID, id), scanStyle, style.ErrNotFound)
		if err != nil {
			return err
		}
		return outbox(ctx, tx, mk, st)
	})
	return st, err
}
