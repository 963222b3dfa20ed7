// Package postgres is the assets service's storage: faces, styles, brands,
// collections and the thumbnails projection, each write committed together
// with its outbox events. Every query is scoped by organization; a record
// of another organization is indistinguishable from a missing one.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/services/assets/internal/service"
)

// Store is the assets database. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

var _ service.Store = (*Store)(nil)

// New returns a store over pool (whose search_path is the assets schema).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// outbox builds and writes the events of rec in tx.
func outbox[T any](ctx context.Context, tx pgx.Tx, mk service.Events[T], rec T) error {
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
