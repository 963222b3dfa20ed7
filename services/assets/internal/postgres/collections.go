package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/assets/internal/collection"
	"hookline.dev/services/assets/internal/service"
)

const collectionCols = `c.id::text, c.org_id::text, c.name, c.description,
	(SELECT count(*) FROM collection_thumbnails ct WHERE ct.collection_id = c.id), c.created_at, c.updated_at`

// collectionRow selects one collection of an organization ($1, $2) without
// counting its thumbnails.
const collectionRow = `SELECT c.id::text, c.org_id::text, c.name, c.description, 0, c.created_at, c.updated_at
	FROM collections c WHERE c.org_id = $1 AND c.id = $2`

func scanCollection(r pgx.Row) (collection.Collection, error) {
	var c collection.Collection
	err := r.Scan(&c.ID, &c.OrgID, &c.Name, &c.Description, &c.ThumbnailCount, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

func scanThumbnail(r pgx.Row) (collection.Thumbnail, error) {
	var t collection.Thumbnail
	err := r.Scan(&t.ID, &t.ImageURL, &t.Prompt, &t.AddedAt)
	return t, err
}

// InsertCollection stores a new collection and its events.
func (s *Store) InsertCollection(ctx context.Context, c collection.Collection, mk service.Events[collection.Collection]) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO collections (id, org_id, name, description, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, c.ID, c.OrgID, c.Name, c.Description, c.CreatedAt, c.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: insert collection: %w", err)
		}
		return outbox(ctx, tx, mk, c)
	})
}

// Collection returns a collection of the organization with its thumbnails,
// most recently added first, or collection.ErrNotFound.
func (s *Store) Collection(ctx context.Context, orgID, id string) (collection.Collection, []collection.Thumbnail, error) {
	var c collection.Collection
	var found bool
	thumbs := []collection.Thumbnail{}
	b := &pgx.Batch{}
	// The detail counts its thumbnails itself; no count subquery here.
	b.Queue(collectionRow, orgID, id).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var err error
			if c, err = scanCollection(rows); err != nil {
				return err
			}
			found = true
		}
		return rows.Err()
	})
	// Both statements run in one round trip. The thumbnails of a
	// collection the first statement does not find (another
	// organization's) are read but thrown away below, never returned.
	b.Queue(`SELECT t.id::text, t.image_url, t.prompt, ct.added_at
		FROM collection_thumbnails ct
		JOIN thumbnails t ON t.id = ct.thumbnail_id AND NOT t.deleted
		WHERE ct.collection_id = $1
		ORDER BY ct.added_at DESC, ct.thumbnail_id DESC`, id).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			t, err := scanThumbnail(rows)
			if err != nil {
				return err
			}
			thumbs = append(thumbs, t)
		}
		return rows.Err()
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return c, nil, fmt.Errorf("postgres: collection: %w", err)
	}
	if !found {
		return c, nil, collection.ErrNotFound
	}
	return c, thumbs, nil
}

// CollectionRecord returns a collection of the organization without its
// thumbnails (ThumbnailCount 0), or collection.ErrNotFound.
func (s *Store) CollectionRecord(ctx context.Context, orgID, id string) (collection.Collection, error) {
	return pgkit.One(s.pool.QueryRow(ctx, collectionRow, orgID, id), scanCollection, collection.ErrNotFound)
}

// Collections returns a page of the organization's collections, newest
// first.
func (s *Store) Collections(ctx context.Context, orgID string, offset, limit int) ([]collection.Collection, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM collections WHERE org_id = $1`,
		`SELECT `+collectionCols+` FROM collections c WHERE c.org_id = $1 ORDER BY c.created_at DESC, c.id DESC OFFSET $2 LIMIT $3`,
		[]any{orgID}, offset, limit, scanCollection)
}

// UpdateCollection changes a collection under a row lock.
func (s *Store) UpdateCollection(ctx context.Context, orgID, id string, change func(collection.Collection) (collection.Collection, error), mk service.Events[collection.Collection]) (collection.Collection, error) {
	var after collection.Collection
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := pgkit.One(tx.QueryRow(ctx, `SELECT `+collectionCols+` FROM collections c WHERE c.org_id = $1 AND c.id = $2 FOR UPDATE`, orgID, id), scanCollection, collection.ErrNotFound)
		if err != nil {
			return err
		}
		if after, err = change(before); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE collections SET name = $3, description = $4, updated_at = $5 WHERE org_id = $1 AND id = $2`,
			orgID, id, after.Name, after.Description, after.UpdatedAt)
		if err != nil {
			return fmt.Errorf("postgres: update collection: %w", err)
		}
		return outbox(ctx, tx, mk, after)
	})
	return after, err
}

// DeleteCollection removes a collection (its memberships go with it).
func (s *Store) DeleteCollection(ctx context.Context, orgID, id string, mk service.Events[collection.Collection]) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		c, err := pgkit.One(tx.QueryRow(ctx, `DELETE FROM collections c WHERE c.org_id = $1 AND c.id = $2
			RETURNING c.id::text, c.org_id::text, c.name, c.description, 0, c.created_at, c.updated_at`, orgID, id), scanCollection, collection.ErrNotFound)
		if err != nil {
			return err
		}
		return outbox(ctx, tx, mk, c)
	})
}

// lockCollection locks the organization's collection for a membership
// change, or returns collection.ErrNotFound.
func lockCollection(ctx context.Context, tx pgx.Tx, orgID, id string) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM collections WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return collection.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: lock collection: %w", err)
	}
	return nil
}

// checkThumbnails returns an UnknownThumbnailsError naming the ids the
// organization has no live thumbnail for.
func checkThumbnails(ctx context.Context, tx pgx.Tx, orgID string, ids []string) error {
	known, err := pgkit.All(ctx, tx, "check thumbnails", pgkit.Scalar[string],
		`SELECT id::text FROM thumbnails WHERE org_id = $1 AND id = ANY($2::uuid[]) AND NOT deleted`, orgID, ids)
	if err != nil {
		return err
	}
	var missing []string
	for _, id := range ids {
		if !slices.Contains(known, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return &collection.UnknownThumbnailsError{IDs: missing}
	}
	return nil
}

// AddThumbnails adds thumbnails to a collection, all or none: every id must
// be a live thumbnail of the organization. Ids already in the collection
// are left as they are. mk is called only when something changed.
func (s *Store) AddThumbnails(ctx context.Context, orgID, id string, ids []string, at time.Time, mk service.Events[collection.Membership]) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockCollection(ctx, tx, orgID, id); err != nil {
			return err
		}
		if err := checkThumbnails(ctx, tx, orgID, ids); err != nil {
			return err
		}
		added, err := pgkit.All(ctx, tx, "add thumbnails", pgkit.Scalar[string], `INSERT INTO collection_thumbnails (collection_id, thumbnail_id, added_at)
			SELECT $1, t, $3 FROM unnest($2::uuid[]) AS t
			ON CONFLICT DO NOTHING RETURNING thumbnail_id::text`, id, ids, at)
		if err != nil {
			return err
		}
		return changed(ctx, tx, orgID, id, at, collection.Membership{CollectionID: id, Added: added}, mk)
	})
}

// RemoveThumbnails takes thumbnails out of a collection. Every id must be a
// live thumbnail of the organization; ids not in the collection are
// ignored.
func (s *Store) RemoveThumbnails(ctx context.Context, orgID, id string, ids []string, at time.Time, mk service.Events[collection.Membership]) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockCollection(ctx, tx, orgID, id); err != nil {
			return err
		}
		if err := checkThumbnails(ctx, tx, orgID, ids); err != nil {
			return err
		}
		removed, err := pgkit.All(ctx, tx, "remove thumbnails", pgkit.Scalar[string], `DELETE FROM collection_thumbnails WHERE collection_id = $1 AND thumbnail_id = ANY($2::uuid[])
			RETURNING thumbnail_id::text`, id, ids)
		if err != nil {
			return err
		}
		return changed(ctx, tx, orgID, id, at, collection.Membership{CollectionID: id, Removed: removed}, mk)
	})
}

// changed records a membership change: the collection's updated_at and
// the event. Nothing happens when nothing changed.
func changed(ctx context.Context, tx pgx.Tx, orgID, id string, at time.Time, m collection.Membership, mk service.Events[collection.Membership]) error {
	if len(m.Added) == 0 && len(m.Removed) == 0 {
		return nil
	}
	slices.Sort(m.Added)
	slices.Sort(m.Removed)
	if _, err := tx.Exec(ctx, `UPDATE collections SET updated_at = greatest(updated_at, $3) WHERE org_id = $1 AND id = $2`, orgID, id, at); err != nil {
		return fmt.Errorf("postgres: touch collection: %w", err)
	}
	return outbox(ctx, tx, mk, m)
}

// ThumbnailCreated applies thumbnails.thumbnail.created.v1 to the
// projection, once per event id (consumer names the inbox). A thumbnail
// already known, or already deleted (a tombstone), is left alone; with a
// collection id of the same organization it joins that collection.
func (s *Store) ThumbnailCreated(ctx context.Context, consumer string, env events.Envelope, t events.ThumbnailCreated, mk service.Events[collection.Membership]) error {
	at := occurred(env)
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if first, err := claim(ctx, tx, consumer, env.ID); err != nil || !first {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO thumbnails (id, org_id, image_url, prompt, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`, t.ThumbnailID, env.OrgID, t.ImageURL, t.Prompt, at); err != nil {
			return fmt.Errorf("postgres: project thumbnail: %w", err)
		}
		if t.CollectionID == "" {
			return nil
		}
		added, err := pgkit.All(ctx, tx, "join collection", pgkit.Scalar[string], `INSERT INTO collection_thumbnails (collection_id, thumbnail_id, added_at)
			SELECT c.id, t.id, $4 FROM collections c JOIN thumbnails t ON t.id = $2 AND t.org_id = $3 AND NOT t.deleted
			WHERE c.id = $1 AND c.org_id = $3
			ON CONFLICT DO NOTHING RETURNING thumbnail_id::text`, t.CollectionID, t.ThumbnailID, env.OrgID, at)
		if err != nil {
			return err
		}
		return changed(ctx, tx, env.OrgID, t.CollectionID, at, collection.Membership{CollectionID: t.CollectionID, Added: added}, mk)
	})
}

// ThumbnailDeleted applies thumbnails.thumbnail.deleted.v1: the thumbnail
// becomes a tombstone (created if it was not known yet) and leaves every
// collection.
func (s *Store) ThumbnailDeleted(ctx context.Context, consumer string, env events.Envelope, t events.ThumbnailDeleted, mk service.Events[collection.Membership]) error {
	at := occurred(env)
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if first, err := claim(ctx, tx, consumer, env.ID); err != nil || !first {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO thumbnails (id, org_id, created_at, deleted) VALUES ($1, $2, $3, true)
			ON CONFLICT (id) DO UPDATE SET deleted = true WHERE thumbnails.org_id = excluded.org_id`, t.ThumbnailID, env.OrgID, at); err != nil {
			return fmt.Errorf("postgres: tombstone thumbnail: %w", err)
		}
		left, err := pgkit.All(ctx, tx, "leave collections", pgkit.Scalar[string], `DELETE FROM collection_thumbnails ct USING collections c
			WHERE ct.thumbnail_id = $1 AND c.id = ct.collection_id AND c.org_id = $2
			RETURNING ct.collection_id::text`, t.ThumbnailID, env.OrgID)
		if err != nil {
			return err
		}
		slices.Sort(left)
		for _, cid := range left {
			if err := changed(ctx, tx, env.OrgID, cid, at, collection.Membership{CollectionID: cid, Removed: []string{t.ThumbnailID}}, mk); err != nil {
				return err
			}
		}
		return nil
	})
}

// occurred is when an event happened, as stored: producer time when the
// envelope has it, now otherwise, truncated to what timestamptz keeps.
func occurred(env events.Envelope) time.Time {
	at := env.OccurredAt
	if at.IsZero() {
		at = time.Now()
	}
	return at.UTC().Truncate(time.Microsecond)
}
