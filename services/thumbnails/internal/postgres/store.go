// Package postgres is the thumbnails service's storage: the thumbnail
// library, the template catalogue and the read model of assets records.
// A thumbnail is inserted in the transaction that settles its credit
// reservation (credits.Complete) and writes its outbox events, so a
// charge and its thumbnail commit together or not at all. Every thumbnail
// query is scoped by organization; another organization's record is
// indistinguishable from a missing one.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/credits"
)

// Store is the thumbnails database. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	credits *credits.Client
}

// New returns a store over pool (whose search_path is the thumbnails
// schema); c settles reservations inside the store's transactions.
func New(pool *pgxpool.Pool, c *credits.Client) *Store { return &Store{pool: pool, credits: c} }

// page runs a count and a page query in one round trip.
func page[T any](ctx context.Context, pool *pgxpool.Pool, countSQL, pageSQL string, args []any, offset, limit int, scan func(pgx.Row) (T, error)) ([]T, int, error) {
	var total int
	var items []T
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

// one scans a single row, mapping "no rows" to notFound.
func one[T any](row pgx.Row, scan func(pgx.Row) (T, error), notFound error) (T, error) {
	v, err := scan(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, notFound
	}
	if err != nil {
		return v, fmt.Errorf("postgres: %w", err)
	}
	return v, nil
}
