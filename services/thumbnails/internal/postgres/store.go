// Package postgres is the thumbnails service's storage: the thumbnail
// library, the template catalogue and the read model of assets records.
// A thumbnail is inserted in the transaction that settles its credit
// reservation (credits.Complete) and writes its outbox events, so a
// charge and its thumbnail commit together or not at all: the store side
// of the saga as pkg/contracts/credits describes it. Every thumbnail query is
// scoped by organization; another organization's record is
// indistinguishable from a missing one.
package postgres

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/services/thumbnails/internal/service"
)

// Store is the thumbnails database. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	credits *credits.Client
}

var _ service.Store = (*Store)(nil)

// New returns a store over pool (whose search_path is the thumbnails
// schema); c settles reservations inside the store's transactions.
func New(pool *pgxpool.Pool, c *credits.Client) *Store { return &Store{pool: pool, credits: c} }
