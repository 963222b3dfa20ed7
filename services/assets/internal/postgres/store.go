// Package postgres is the assets service's storage: faces, styles, brands,
// collections and the thumbnails projection, each write committed together
// with its outbox events. Every query is scoped by organization; a record
// of another organization is indistinguishable from a missing one.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
)

// Store is the assets database. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a store over pool (whose search_path is the assets schema).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Events builds the outbox events of a change from the record as written.
type Events[T any] func(rec T) ([]events.Envelope, error)

// outbox builds and writes the events of rec in tx.
func outbox[T any](ctx context.Context, tx pgx.Tx, mk Events[T], rec T) error {
	if mk == nil {
		return nil
	}
	envs, err := mk(rec)
	if err != nil {
		return err
	}
	if err := messaging.WriteOutbox(ctx, tx, envs...); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

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
