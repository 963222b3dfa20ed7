package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/generate/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

const templateCols = `id::text, name, category, description, aspect_ratio, layout, position, coalesce(preview_key, ''), preview_version`

// scanTemplate reads a row; the layout is parsed, so a seed row the
// compositor would refuse fails loudly here instead of in a remix.
func scanTemplate(r pgx.Row) (template.Template, error) {
	var t template.Template
	var aspect string
	var raw []byte
	if err := r.Scan(&t.ID, &t.Name, &t.Category, &t.Description, &aspect, &raw, &t.Position, &t.PreviewKey, &t.PreviewVersion); err != nil {
		return t, err
	}
	t.Aspect = thumbnail.Aspect(aspect)
	l, err := layout.Parse(raw)
	if err != nil {
		return t, fmt.Errorf("template %s: %w", t.ID, err)
	}
	t.Layout = l
	return t, nil
}

// Templates returns a page of the catalogue (of one category when category
// is not ""), in catalogue order, and how many match in all.
func (s *Store) Templates(ctx context.Context, category string, offset, limit int) ([]template.Template, int, error) {
	where := `($1 = '' OR category = $1)`
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM templates WHERE `+where,
		`SELECT `+templateCols+` FROM templates WHERE `+where+` ORDER BY position, id OFFSET $2 LIMIT $3`,
		[]any{category}, offset, limit, scanTemplate)
}

// Template returns a template, or template.ErrNotFound.
func (s *Store) Template(ctx context.Context, id string) (template.Template, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+templateCols+` FROM templates WHERE id = $1`, id), scanTemplate, template.ErrNotFound)
}

// TemplatesWithoutPreview lists the templates whose preview is missing or
// older than version, in catalogue order.
func (s *Store) TemplatesWithoutPreview(ctx context.Context, version int) ([]template.Template, error) {
	return pgkit.All(ctx, s.pool, "templates without preview", scanTemplate, `SELECT `+templateCols+` FROM templates
		WHERE preview_key IS NULL OR preview_version < $1 ORDER BY position, id`, version)
}

// SetPreview records a template's rendered preview. A preview of an older
// version than the stored one (a replica still running old code) is not
// recorded.
func (s *Store) SetPreview(ctx context.Context, id, key string, version int) error {
	if _, err := s.pool.Exec(ctx, `UPDATE templates SET preview_key = $2, preview_version = $3
		WHERE id = $1 AND preview_version <= $3`, id, key, version); err != nil {
		return fmt.Errorf("postgres: set preview of %s: %w", id, err)
	}
	return nil
}
