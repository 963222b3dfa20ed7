package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/services/gateway/internal/ratelimit"
)

// RateBuckets implements ratelimit.Store: the buckets every gateway
// replica shares.
type RateBuckets struct {
	pool *pgxpool.Pool
}

var _ ratelimit.Store = (*RateBuckets)(nil)

// NewRateBuckets returns a store over pool.
func NewRateBuckets(pool *pgxpool.Pool) *RateBuckets { return &RateBuckets{pool: pool} }

// refilled is the bucket's content now: the row lock of the upsert
// serialises takes, and one clock (the database's) refills for every
// replica. A statement that started before the previous take committed
// sees now() < at and refills nothing; at never moves back, so that time
// is counted by the next take instead of being lost or counted twice.
const refilled = `least($3::int::float8, b.tokens + greatest(0, extract(epoch FROM now() - b.at)) * $2::float8)`

// takeSQL refills and takes up to $4 tokens in one statement; a missing
// bucket starts full.
const takeSQL = `
INSERT INTO rate_buckets AS b (key, tokens, at, rate, burst, granted)
VALUES ($1, $3::int - least($4::int, $3::int), now(), $2::float8, $3::int, least($4::int, $3::int))
ON CONFLICT (key) DO UPDATE SET
	granted = least($4::int, floor(` + refilled + `))::int,
	tokens  = ` + refilled + ` - least($4::int, floor(` + refilled + `)),
	at      = greatest(b.at, now()),
	rate    = $2::float8,
	burst   = $3::int
RETURNING granted, tokens`

// Take implements ratelimit.Store.
func (s *RateBuckets) Take(ctx context.Context, key string, lim ratelimit.Limit, n int) (ratelimit.Lease, error) {
	var l ratelimit.Lease
	if err := s.pool.QueryRow(ctx, takeSQL, key, lim.Rate, lim.Burst, n).Scan(&l.Granted, &l.Left); err != nil {
		return ratelimit.Lease{}, fmt.Errorf("postgres: take rate-limit tokens: %w", err)
	}
	return l, nil
}

// Purge deletes buckets that have refilled completely: a missing bucket
// starts full, so they carry nothing.
func (s *RateBuckets) Purge(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM rate_buckets WHERE tokens + extract(epoch FROM now() - at) * rate >= burst`)
	if err != nil {
		return 0, fmt.Errorf("postgres: purge rate-limit buckets: %w", err)
	}
	return tag.RowsAffected(), nil
}
