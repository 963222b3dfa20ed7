package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/assets/internal/face"
	"hookline.dev/services/assets/internal/service"
)

const faceCols = `id::text, org_id::text, name, image_keys, thumbnail_key, created_at, updated_at`

func scanFace(r pgx.Row) (face.Face, error) {
	var f face.Face
	err := r.Scan(&f.ID, &f.OrgID, &f.Name, &f.ImageKeys, &f.ThumbnailKey, &f.CreatedAt, &f.UpdatedAt)
	return f, err
}

// InsertFace stores a new face and its events.
func (s *Store) InsertFace(ctx context.Context, f face.Face, mk service.Events[face.Face]) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO faces (id, org_id, name, image_keys, thumbnail_key, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, f.ID, f.OrgID, f.Name, f.ImageKeys, f.ThumbnailKey, f.CreatedAt, f.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: insert face: %w", err)
		}
		return outbox(ctx, tx, mk, f)
	})
}

// Face returns a face of the organization, or face.ErrNotFound.
func (s *Store) Face(ctx context.Context, orgID, id string) (face.Face, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+faceCols+` FROM faces WHERE org_id = $1 AND id = $2`, orgID, id), scanFace, face.ErrNotFound)
}

// Faces returns a page of the organization's faces, newest first, and
// their total.
func (s *Store) Faces(ctx context.Context, orgID string, offset, limit int) ([]face.Face, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM faces WHERE org_id = $1`,
		`SELECT `+faceCols+` FROM faces WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
		[]any{orgID}, offset, limit, scanFace)
}

// UpdateFace changes a face under a row lock: change receives the current
// record and returns the new one. It returns the record before and after.
func (s *Store) UpdateFace(ctx context.Context, orgID, id string, change func(face.Face) (face.Face, error), mk service.Events[face.Face]) (before, after face.Face, err error) {
	err = pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err = pgkit.One(tx.QueryRow(ctx, `SELECT `+faceCols+` FROM faces WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, id), scanFace, face.ErrNotFound)
		if err != nil {
			return err
		}
		if after, err = change(before); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE faces SET name = $3, image_keys = $4, thumbnail_key = $5, updated_at = $6
			WHERE org_id = $1 AND id = $2`, orgID, id, after.Name, after.ImageKeys, after.ThumbnailKey, after.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: update face: %w", err)
		}
		return outbox(ctx, tx, mk, after)
	})
	return before, after, err
}

// DeleteFace removes a face and returns it, or face.ErrNotFound.
func (s *Store) DeleteFace(ctx context.Context, orgID, id string, mk service.Events[face.Face]) (face.Face, error) {
	var f face.Face
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		f, err = pgkit.One(tx.QueryRow(ctx, `DELETE FROM faces WHERE org_id = $1 AND id = $2 RETURNING `+faceCols, orgID, id), scanFace, face.ErrNotFound)
		if err != nil {
			return err
		}
		return outbox(ctx, tx, mk, f)
	})
	return f, err
}
