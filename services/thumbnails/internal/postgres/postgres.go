// Package postgres is the thumbnails service's storage: thumbnails (each
// written with its created event and the completion of the reservation
// that paid for it, in one transaction), templates, and the read model of
// assets' records. Every tenant query is scoped by organization: another
// organization's row is indistinguishable from a missing one.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/credits"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/services/thumbnails/internal/asset"
	"hookline.dev/services/thumbnails/internal/engine"
	"hookline.dev/services/thumbnails/internal/layout"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/internal/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Store is the thumbnails database. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	credits *credits.Client
}

var _ service.Store = (*Store)(nil)

// New returns a store over pool (search_path: the thumbnails schema);
// c settles reservations in the store's transactions.
func New(pool *pgxpool.Pool, c *credits.Client) *Store { return &Store{pool: pool, credits: c} }

const thumbCols = `id::text, org_id::text, kind, prompt, coalesce(parent_id::text, ''), aspect_ratio, width, height,
	coalesce(style_id::text, ''), coalesce(brand_id::text, ''), face_ids::text[], coalesce(collection_id::text, ''),
	coalesce(template_id::text, ''), engine, image_key, seed, reservation_id::text, created_at`

func scanThumbnail(r pgx.Row) (thumbnail.Thumbnail, error) {
	var t thumbnail.Thumbnail
	var kind, aspect string
	var seed int64
	err := r.Scan(&t.ID, &t.OrgID, &kind, &t.Prompt, &t.ParentID, &aspect, &t.Width, &t.Height,
		&t.StyleID, &t.BrandID, &t.FaceIDs, &t.CollectionID, &t.TemplateID, &t.Engine, &t.ImageKey, &seed,
		&t.ReservationID, &t.CreatedAt)
	t.Kind, t.Aspect, t.Seed = thumbnail.Kind(kind), engine.Aspect(aspect), uint64(seed) //nolint:gosec // seeds are 63-bit (thumbnail.SeedFor)
	return t, err
}

func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Save implements service.Store.
func (s *Store) Save(ctx context.Context, t thumbnail.Thumbnail, r credits.Reservation, created, completed events.Envelope) error {
	faces := t.FaceIDs
	if faces == nil {
		faces = []string{}
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO thumbnails (id, org_id, kind, prompt, parent_id, aspect_ratio, width, height,
				style_id, brand_id, face_ids, collection_id, template_id, engine, image_key, seed, reservation_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
			t.ID, t.OrgID, string(t.Kind), t.Prompt, null(t.ParentID), string(t.Aspect), t.Width, t.Height,
			null(t.StyleID), null(t.BrandID), faces, null(t.CollectionID), null(t.TemplateID), t.Engine, t.ImageKey,
			int64(t.Seed), t.ReservationID, t.CreatedAt) //nolint:gosec // seeds are 63-bit (thumbnail.SeedFor)
		if err != nil {
			return fmt.Errorf("postgres: insert thumbnail: %w", err)
		}
		if err := messaging.WriteOutbox(ctx, tx, created); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		return s.credits.Complete(ctx, tx, r, completed)
	})
}

// Fail implements service.Store.
func (s *Store) Fail(ctx context.Context, r credits.Reservation, reason string) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error { return s.credits.Fail(ctx, tx, r, reason) })
}

// Resolve is the credit recovery's Resolver: a reservation whose
// thumbnail was recorded completes (the record and the completion share a
// transaction, so this happens only if the completion was lost), any other
// is refunded.
func (s *Store) Resolve(ctx context.Context, tx pgx.Tx, r credits.Reservation) (credits.Resolution, error) {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM thumbnails WHERE reservation_id = $1`, r.ID).Scan(&n); err != nil {
		return credits.Resolution{}, fmt.Errorf("postgres: resolve %s: %w", r.ID, err)
	}
	if n == 0 {
		return credits.Resolution{Verdict: credits.Failed, Reason: "the service stopped before the thumbnail was recorded"}, nil
	}
	env, err := service.CompletedEvent(ctx, r)
	return credits.Resolution{Verdict: credits.Completed, Event: env}, err
}

// Thumbnail implements service.Store.
func (s *Store) Thumbnail(ctx context.Context, orgID, id string) (thumbnail.Thumbnail, error) {
	t, err := scanThumbnail(s.pool.QueryRow(ctx, `SELECT `+thumbCols+` FROM thumbnails WHERE org_id = $1 AND id = $2`, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, thumbnail.ErrNotFound
	}
	if err != nil {
		return t, fmt.Errorf("postgres: thumbnail: %w", err)
	}
	return t, nil
}

// Thumbnails implements service.Store: newest first, one round trip for
// the page and the total.
func (s *Store) Thumbnails(ctx context.Context, orgID string, f thumbnail.Filter, offset, limit int) ([]thumbnail.Thumbnail, int, error) {
	where := `org_id = $1 AND ($2 = '' OR kind = $2) AND ($3 = '' OR collection_id::text = $3)`
	args := []any{orgID, string(f.Kind), f.CollectionID}
	return page(ctx, s.pool, `SELECT count(*) FROM thumbnails WHERE `+where,
		`SELECT `+thumbCols+` FROM thumbnails WHERE `+where+` ORDER BY created_at DESC, id DESC OFFSET $4 LIMIT $5`,
		args, offset, limit, scanThumbnail)
}

// page runs a count and a page query in one round trip.
func page[T any](ctx context.Context, pool *pgxpool.Pool, countSQL, pageSQL string, args []any, offset, limit int, scan func(pgx.Row) (T, error)) ([]T, int, error) {
	var total int
	items := []T{}
	b := &pgx.Batch{}
	b.Queue(countSQL, args...).QueryRow(func(r pgx.Row) error { return r.Scan(&total) })
	b.Queue(pageSQL, append(args, offset, limit)...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			it, err := scan(rows)
			if err != nil {
				return err
			}
			items = append(items, it)
		}
		return rows.Err()
	})
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, 0, fmt.Errorf("postgres: list: %w", err)
	}
	return items, total, nil
}

// Delete implements service.Store.
func (s *Store) Delete(ctx context.Context, orgID, id string, deleted func(thumbnail.Thumbnail) (events.Envelope, error)) (thumbnail.Thumbnail, error) {
	var t thumbnail.Thumbnail
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		t, err = scanThumbnail(tx.QueryRow(ctx, `DELETE FROM thumbnails WHERE org_id = $1 AND id = $2 RETURNING `+thumbCols, orgID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return thumbnail.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("postgres: delete thumbnail: %w", err)
		}
		env, err := deleted(t)
		if err != nil {
			return err
		}
		return messaging.WriteOutbox(ctx, tx, env)
	})
	return t, err
}

const templateCols = `id::text, name, category, description, aspect_ratio, layout, coalesce(preview_key, ''), preview_version`

func scanTemplate(r pgx.Row) (template.Template, error) {
	var t template.Template
	var aspect string
	var doc []byte
	if err := r.Scan(&t.ID, &t.Name, &t.Category, &t.Description, &aspect, &doc, &t.PreviewKey, &t.PreviewVersion); err != nil {
		return t, err
	}
	t.Aspect = engine.Aspect(aspect)
	l, err := layout.Parse(doc)
	if err != nil {
		return t, fmt.Errorf("postgres: template %s: %w", t.ID, err)
	}
	t.Layout = l
	return t, nil
}

// Template implements service.Store.
func (s *Store) Template(ctx context.Context, id string) (template.Template, error) {
	t, err := scanTemplate(s.pool.QueryRow(ctx, `SELECT `+templateCols+` FROM templates WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, template.ErrNotFound
	}
	return t, err
}

// Templates implements service.Store.
func (s *Store) Templates(ctx context.Context, f template.Filter, offset, limit int) ([]template.Template, int, error) {
	where := `($1 = '' OR category = $1)`
	return page(ctx, s.pool, `SELECT count(*) FROM templates WHERE `+where,
		`SELECT `+templateCols+` FROM templates WHERE `+where+` ORDER BY position, id OFFSET $2 LIMIT $3`,
		[]any{f.Category}, offset, limit, scanTemplate)
}

// TemplatesToPreview implements service.Store.
func (s *Store) TemplatesToPreview(ctx context.Context, version int) ([]template.Template, error) {
	items, _, err := page(ctx, s.pool, `SELECT count(*) FROM templates WHERE preview_version < $1`,
		`SELECT `+templateCols+` FROM templates WHERE preview_version < $1 ORDER BY position, id OFFSET $2 LIMIT $3`,
		[]any{version}, 0, 10_000, scanTemplate)
	return items, err
}

// SetPreview implements service.Store.
func (s *Store) SetPreview(ctx context.Context, id, key string, version int) error {
	_, err := s.pool.Exec(ctx, `UPDATE templates SET preview_key = $2, preview_version = $3 WHERE id = $1`, id, key, version)
	if err != nil {
		return fmt.Errorf("postgres: set preview: %w", err)
	}
	return nil
}

// The read model's JSON documents: the shapes of asset records in the
// data column.
type (
	swatchDoc struct {
		Hex    string  `json:"hex"`
		Weight float64 `json:"weight"`
	}
	styleDoc struct {
		Name        string      `json:"name"`
		Description string      `json:"description"`
		Palette     []swatchDoc `json:"palette"`
		Brightness  float64     `json:"brightness"`
		Contrast    float64     `json:"contrast"`
		Saturation  float64     `json:"saturation"`
		Warmth      float64     `json:"warmth"`
	}
	brandDoc struct {
		Name    string   `json:"name"`
		Colors  []string `json:"colors"`
		Fonts   []string `json:"fonts"`
		LogoURL string   `json:"logoUrl"`
	}
	faceDoc struct {
		Name    string `json:"name"`
		CropURL string `json:"cropUrl"`
	}
	collectionDoc struct {
		Name string `json:"name"`
	}
)

func recordDoc(rec any) (any, error) {
	switch r := rec.(type) {
	case asset.Style:
		d := styleDoc{Name: r.Name, Description: r.Description, Brightness: r.Brightness, Contrast: r.Contrast, Saturation: r.Saturation, Warmth: r.Warmth}
		for _, sw := range r.Palette {
			d.Palette = append(d.Palette, swatchDoc{sw.Hex, sw.Weight})
		}
		return d, nil
	case asset.Brand:
		return brandDoc{Name: r.Name, Colors: r.Colors, Fonts: r.Fonts, LogoURL: r.LogoURL}, nil
	case asset.Face:
		return faceDoc{Name: r.Name, CropURL: r.CropURL}, nil
	case asset.Collection:
		return collectionDoc{Name: r.Name}, nil
	}
	return nil, fmt.Errorf("postgres: unknown asset record %T", rec)
}

// ApplyAsset implements service.Store: the inbox claim and the upsert
// share a transaction; the upsert keeps the newest version.
func (s *Store) ApplyAsset(ctx context.Context, consumer, eventID string, c asset.Change) error {
	data := []byte("{}")
	if !c.Deleted {
		doc, err := recordDoc(c.Record)
		if err != nil {
			return err
		}
		if data, err = json.Marshal(doc); err != nil {
			return err
		}
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		first, err := messaging.ClaimInbox(ctx, tx, consumer, eventID)
		if err != nil || !first {
			return err
		}
		// A record moving to another organization is not a thing assets
		// does; the org_id condition keeps a forged event from taking one.
		_, err = tx.Exec(ctx, `INSERT INTO asset_records (org_id, kind, id, version, deleted, data)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, data = excluded.data
			WHERE asset_records.org_id = excluded.org_id AND asset_records.version <= excluded.version
			  AND NOT asset_records.deleted`,
			c.OrgID, string(c.Kind), c.ID, c.Version, c.Deleted, data)
		if err != nil {
			return fmt.Errorf("postgres: apply %s %s: %w", c.Kind, c.ID, err)
		}
		return nil
	})
}

// record reads one live record's document of the organization.
func (s *Store) record(ctx context.Context, orgID string, kind asset.Kind, id string, doc any) error {
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM asset_records WHERE kind = $1 AND id = $2 AND org_id = $3 AND NOT deleted`,
		string(kind), id, orgID).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return asset.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", kind, err)
	}
	return json.Unmarshal(data, doc)
}

// Style implements asset.View.
func (s *Store) Style(ctx context.Context, orgID, id string) (asset.Style, error) {
	var d styleDoc
	if err := s.record(ctx, orgID, asset.StyleKind, id, &d); err != nil {
		return asset.Style{}, err
	}
	st := asset.Style{ID: id, Name: d.Name, Description: d.Description, Brightness: d.Brightness, Contrast: d.Contrast, Saturation: d.Saturation, Warmth: d.Warmth}
	for _, sw := range d.Palette {
		st.Palette = append(st.Palette, asset.Swatch{Hex: sw.Hex, Weight: sw.Weight})
	}
	return st, nil
}

// Brand implements asset.View.
func (s *Store) Brand(ctx context.Context, orgID, id string) (asset.Brand, error) {
	var d brandDoc
	if err := s.record(ctx, orgID, asset.BrandKind, id, &d); err != nil {
		return asset.Brand{}, err
	}
	return asset.Brand{ID: id, Name: d.Name, Colors: d.Colors, Fonts: d.Fonts, LogoURL: d.LogoURL}, nil
}

// Faces implements asset.View.
func (s *Store) Faces(ctx context.Context, orgID string, ids []string) ([]asset.Face, error) {
	out := make([]asset.Face, len(ids))
	for i, id := range ids {
		var d faceDoc
		if err := s.record(ctx, orgID, asset.FaceKind, id, &d); err != nil {
			if errors.Is(err, asset.ErrNotFound) {
				return nil, &asset.MissingError{Index: i}
			}
			return nil, err
		}
		out[i] = asset.Face{ID: id, Name: d.Name, CropURL: d.CropURL}
	}
	return out, nil
}

// Collection implements asset.View.
func (s *Store) Collection(ctx context.Context, orgID, id string) (asset.Collection, error) {
	var d collectionDoc
	if err := s.record(ctx, orgID, asset.CollectionKind, id, &d); err != nil {
		return asset.Collection{}, err
	}
	return asset.Collection{ID: id, Name: d.Name}, nil
}
