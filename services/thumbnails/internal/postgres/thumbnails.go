package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

const thumbnailCols = `id::text, org_id::text, kind, prompt, coalesce(parent_id::text, ''), coalesce(aspect_ratio, ''), width, height,
	coalesce(style_id::text, ''), coalesce(brand_id::text, ''), face_ids::text[], coalesce(collection_id::text, ''),
	coalesce(template_id::text, ''), engine, image_key, seed, coalesce(reservation_id::text, ''), coalesce(operation, ''), params, applied, created_at`

func scanThumbnail(r pgx.Row) (thumbnail.Thumbnail, error) {
	var t thumbnail.Thumbnail
	var kind, aspect, op string
	var seed int64
	err := r.Scan(&t.ID, &t.OrgID, &kind, &t.Prompt, &t.ParentID, &aspect, &t.Width, &t.Height,
		&t.StyleID, &t.BrandID, &t.FaceIDs, &t.CollectionID, &t.TemplateID, &t.Engine, &t.ImageKey, &seed, &t.ReservationID, &op, &t.Params, &t.Applied, &t.CreatedAt)
	t.Kind, t.Aspect, t.Seed = thumbnail.Kind(kind), thumbnail.Aspect(aspect), uint64(seed) //nolint:gosec // stored as the bits of the uint64
	t.Operation = thumbnail.Op(op)
	if t.FaceIDs == nil {
		t.FaceIDs = []string{}
	}
	if t.Applied == nil {
		t.Applied = []string{}
	}
	return t, err
}

// nullable maps "" to NULL for the optional uuid columns.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Save stores t and settles its reservation r in one transaction: the row,
// evs (thumbnails.thumbnail.created.v1) and, through credits.Complete,
// completed (the operation's completed event) with the journal closed.
// Errors: credits.ErrSettled when r was failed meanwhile (nothing is
// stored), or a database failure.
func (s *Store) Save(ctx context.Context, t thumbnail.Thumbnail, r credits.Reservation, evs []events.Envelope, completed events.Envelope) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := insertThumbnail(ctx, tx, t, evs); err != nil {
			return err
		}
		return s.credits.Complete(ctx, tx, r, completed)
	})
}

// SaveFree stores a free edit, which no reservation paid, with evs.
func (s *Store) SaveFree(ctx context.Context, t thumbnail.Thumbnail, evs []events.Envelope) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error { return insertThumbnail(ctx, tx, t, evs) })
}

func insertThumbnail(ctx context.Context, tx pgx.Tx, t thumbnail.Thumbnail, evs []events.Envelope) error {
	params := t.Params
	if params == nil {
		params = map[string]string{}
	}
	applied := t.Applied
	if applied == nil {
		applied = []string{}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO thumbnails (id, org_id, kind, prompt, parent_id, aspect_ratio, width, height,
		style_id, brand_id, face_ids, collection_id, template_id, engine, image_key, seed, reservation_id, operation, params, applied, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
		t.ID, t.OrgID, string(t.Kind), t.Prompt, nullable(t.ParentID), nullable(string(t.Aspect)), t.Width, t.Height,
		nullable(t.StyleID), nullable(t.BrandID), t.FaceIDs, nullable(t.CollectionID), nullable(t.TemplateID),
		t.Engine, t.ImageKey, int64(t.Seed), nullable(t.ReservationID), nullable(string(t.Operation)), params, applied, t.CreatedAt); err != nil { //nolint:gosec // the bits of the uint64
		return fmt.Errorf("postgres: insert thumbnail: %w", err)
	}
	if err := messaging.WriteOutbox(ctx, tx, evs...); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// Thumbnail returns the organization's thumbnail, or thumbnail.ErrNotFound.
func (s *Store) Thumbnail(ctx context.Context, orgID, id string) (thumbnail.Thumbnail, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+thumbnailCols+` FROM thumbnails WHERE org_id = $1 AND id = $2`, orgID, id),
		scanThumbnail, thumbnail.ErrNotFound)
}

// ThumbnailByImage returns the organization's thumbnail whose picture is
// the object key, or thumbnail.ErrNotFound.
func (s *Store) ThumbnailByImage(ctx context.Context, orgID, key string) (thumbnail.Thumbnail, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+thumbnailCols+` FROM thumbnails WHERE org_id = $1 AND image_key = $2 LIMIT 1`, orgID, key),
		scanThumbnail, thumbnail.ErrNotFound)
}

// ThumbnailsByID returns those of ids the organization has, in no order.
func (s *Store) ThumbnailsByID(ctx context.Context, orgID string, ids []string) ([]thumbnail.Thumbnail, error) {
	return pgkit.All(ctx, s.pool, "thumbnails", scanThumbnail,
		`SELECT `+thumbnailCols+` FROM thumbnails WHERE org_id = $1 AND id = ANY($2::uuid[])`, orgID, ids)
}

// Thumbnails returns a page of the organization's thumbnails matching f,
// newest first, and how many match in all.
func (s *Store) Thumbnails(ctx context.Context, orgID string, f thumbnail.Filter, offset, limit int) ([]thumbnail.Thumbnail, int, error) {
	where := `org_id = $1 AND ($2 = '' OR kind = $2) AND ($3 = '' OR collection_id = nullif($3, '')::uuid)`
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM thumbnails WHERE `+where,
		`SELECT `+thumbnailCols+` FROM thumbnails WHERE `+where+` ORDER BY created_at DESC, id DESC OFFSET $4 LIMIT $5`,
		[]any{orgID, string(f.Kind), f.CollectionID}, offset, limit, scanThumbnail)
}

// DeleteThumbnail removes the organization's thumbnail with the events mk
// builds from it, in one transaction, and returns what it removed; or
// thumbnail.ErrNotFound.
func (s *Store) DeleteThumbnail(ctx context.Context, orgID, id string, mk func(thumbnail.Thumbnail) (events.Envelope, error)) (thumbnail.Thumbnail, error) {
	var t thumbnail.Thumbnail
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		t, err = pgkit.One(tx.QueryRow(ctx, `DELETE FROM thumbnails WHERE org_id = $1 AND id = $2 RETURNING `+thumbnailCols, orgID, id),
			scanThumbnail, thumbnail.ErrNotFound)
		if err != nil {
			return err
		}
		env, err := mk(t)
		if err != nil {
			return err
		}
		return messaging.WriteOutbox(ctx, tx, env)
	})
	return t, err
}

// HasResult reports whether a thumbnail or a critique paid by the
// reservation is stored.
func (s *Store) HasResult(ctx context.Context, reservationID string) (bool, error) {
	var stored bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM thumbnails WHERE reservation_id = $1)
		OR EXISTS (SELECT FROM critiques WHERE reservation_id = $1)`, reservationID).Scan(&stored); err != nil {
		return false, fmt.Errorf("postgres: result of %s: %w", reservationID, err)
	}
	return stored, nil
}
