package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
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

// UnseenAssets returns those of refs whose record the view holds no row
// of: neither live nor deleted, of no organization.
func (s *Store) UnseenAssets(ctx context.Context, refs []assetview.Ref) ([]assetview.Ref, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	kinds, ids := make([]string, len(refs)), make([]string, len(refs))
	for i, r := range refs {
		kinds[i], ids[i] = string(r.Kind), r.ID
	}
	ns, err := pgkit.All(ctx, s.pool, "unseen assets", pgkit.Scalar[int64], `SELECT want.n FROM unnest($1::text[], $2::uuid[]) WITH ORDINALITY AS want(kind, id, n)
		WHERE NOT EXISTS (SELECT 1 FROM asset_records a WHERE a.kind = want.kind AND a.id = want.id)`, kinds, ids)
	if err != nil {
		return nil, err
	}
	out := make([]assetview.Ref, len(ns))
	for i, n := range ns {
		out[i] = refs[n-1]
	}
	return out, nil
}

// ApplyAsset applies one assets event to the view, once per event id
// (consumer names the inbox). A change older than the stored one, or about
// a record of another organization, changes nothing.
func (s *Store) ApplyAsset(ctx context.Context, consumer, eventID string, c assetview.Change) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if first, err := messaging.ClaimInbox(ctx, tx, consumer, eventID); err != nil || !first {
			return err
		}
		return applyAsset(ctx, tx, c)
	})
}

// LearnAssets applies what the owner answered about records the view had
// not seen, by the rule of ApplyAsset. It claims no inbox row: an answer
// has no event id, and applying it again changes nothing.
func (s *Store) LearnAssets(ctx context.Context, cs []assetview.Change) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		for _, c := range cs {
			if err := applyAsset(ctx, tx, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// applyAsset writes a change unless the row holds a newer one, belongs to
// another organization, or is deleted: a deletion is final, so neither a
// late event nor a late answer of the owner brings a record back.
func applyAsset(ctx context.Context, tx pgx.Tx, c assetview.Change) error {
	data := c.Data
	if c.Deleted || data == nil {
		data = []byte(`{}`)
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
}
