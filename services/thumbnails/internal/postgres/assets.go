package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// Assets returns the live records of the organization among refs, keyed by
// the ref that named them. Unknown, deleted and other organizations'
// records are simply absent.
func (s *Store) Assets(ctx context.Context, orgID string, refs []assetview.Ref) (map[assetview.Ref]assetview.Record, error) {
	out := make(map[assetview.Ref]assetview.Record, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	kinds, ids := make([]string, len(refs)), make([]string, len(refs))
	for i, r := range refs {
		kinds[i], ids[i] = string(r.Kind), r.ID
	}
	rows, err := s.pool.Query(ctx, `SELECT a.kind, a.id::text, a.data FROM asset_records a
		JOIN unnest($2::text[], $3::uuid[]) AS want(kind, id) ON a.kind = want.kind AND a.id = want.id
		WHERE a.org_id = $1 AND NOT a.deleted`, orgID, kinds, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: assets: %w", err)
	}
	recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (assetview.Record, error) {
		rec := assetview.Record{OrgID: orgID}
		var kind string
		err := r.Scan(&kind, &rec.ID, &rec.Data)
		rec.Kind = assetview.Kind(kind)
		return rec, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: assets: %w", err)
	}
	for _, rec := range recs {
		for _, ref := range refs {
			if ref.Kind == rec.Kind && ref.ID == rec.ID {
				out[ref] = rec
			}
		}
	}
	return out, nil
}

// ApplyAsset applies one assets event to the view, once per event id
// (consumer names the inbox). A change older than the stored one, or about
// a record of another organization, changes nothing.
func (s *Store) ApplyAsset(ctx context.Context, consumer, eventID string, c assetview.Change) error {
	data := c.Data
	if c.Deleted || data == nil {
		data = []byte(`{}`)
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if first, err := messaging.ClaimInbox(ctx, tx, consumer, eventID); err != nil || !first {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO asset_records (kind, id, org_id, data, deleted, changed_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data, deleted = excluded.deleted, changed_at = excluded.changed_at
			WHERE asset_records.org_id = excluded.org_id AND asset_records.changed_at <= excluded.changed_at
				AND NOT (asset_records.deleted AND NOT excluded.deleted)`,
			string(c.Kind), c.ID, c.OrgID, data, c.Deleted, c.At); err != nil {
			return fmt.Errorf("postgres: apply %s %s: %w", c.Kind, c.ID, err)
		}
		return nil
	})
}
