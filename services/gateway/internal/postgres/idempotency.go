package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/services/gateway/internal/idempotency"
)

// Idempotency implements idempotency.Store. Scopes are organization ids.
type Idempotency struct {
	pool *pgxpool.Pool
}

var _ idempotency.Store = (*Idempotency)(nil)

// NewIdempotency returns a store over pool.
func NewIdempotency(pool *pgxpool.Pool) *Idempotency { return &Idempotency{pool: pool} }

// claimSQL inserts a claim or takes over a dead record in one statement:
// the primary key serializes concurrent claims (a second inserter waits for
// the first to commit and then sees its row), and the WHERE of the upsert
// lets only an expired record, or an in-flight one whose lock ran out, be
// replaced. RETURNING yields a row only when this call won.
const claimSQL = `
INSERT INTO idempotency_records AS r
	(organization_id, key, fingerprint, state, created_at, locked_until, expires_at)
VALUES ($1::uuid, $2, $3, 'in_flight', $4, $5, $6)
ON CONFLICT (organization_id, key) DO UPDATE SET
	fingerprint  = EXCLUDED.fingerprint,
	state        = 'in_flight',
	status       = NULL,
	content_type = NULL,
	body         = NULL,
	created_at   = EXCLUDED.created_at,
	locked_until = EXCLUDED.locked_until,
	expires_at   = EXCLUDED.expires_at
WHERE r.expires_at <= EXCLUDED.created_at
   OR (r.state = 'in_flight' AND r.locked_until <= EXCLUDED.created_at)
RETURNING true`

// Claim implements idempotency.Store.
func (s *Idempotency) Claim(ctx context.Context, c idempotency.Claim) (bool, idempotency.Record, error) {
	var won bool
	err := s.pool.QueryRow(ctx, claimSQL, c.Scope, c.Key, c.Fingerprint[:], c.CreatedAt, c.LockedUntil, c.ExpiresAt).Scan(&won)
	if err == nil {
		return true, idempotency.Record{}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, idempotency.Record{}, fmt.Errorf("postgres: claim idempotency key: %w", err)
	}
	var (
		rec         idempotency.Record
		fp          []byte
		state       string
		status      *int32
		contentType *string
	)
	err = s.pool.QueryRow(ctx,
		`SELECT fingerprint, state, status, content_type, body, locked_until, expires_at
		 FROM idempotency_records WHERE organization_id = $1::uuid AND key = $2`, c.Scope, c.Key).
		Scan(&fp, &state, &status, &contentType, &rec.Response.Body, &rec.LockedUntil, &rec.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		// Released between the two statements: the caller tries again.
		return false, idempotency.Record{}, nil
	}
	if err != nil {
		return false, idempotency.Record{}, fmt.Errorf("postgres: read idempotency key: %w", err)
	}
	copy(rec.Fingerprint[:], fp)
	rec.State = idempotency.State(state)
	if status != nil {
		rec.Response.Status = int(*status)
	}
	if contentType != nil {
		rec.Response.ContentType = *contentType
	}
	return false, rec, nil
}

// Complete implements idempotency.Store.
func (s *Idempotency) Complete(ctx context.Context, scope, key string, fp idempotency.Fingerprint, resp idempotency.Response) error {
	body := resp.Body
	if body == nil {
		body = []byte{}
	}
	_, err := s.pool.Exec(ctx,
		`UPDATE idempotency_records SET state = 'done', status = $4, content_type = $5, body = $6
		 WHERE organization_id = $1::uuid AND key = $2 AND fingerprint = $3 AND state = 'in_flight'`,
		scope, key, fp[:], resp.Status, resp.ContentType, body)
	if err != nil {
		return fmt.Errorf("postgres: complete idempotency key: %w", err)
	}
	return nil
}

// Release implements idempotency.Store.
func (s *Idempotency) Release(ctx context.Context, scope, key string, fp idempotency.Fingerprint) error {
	_, err := s.pool.Exec(ctx,
		`DELETE FROM idempotency_records
		 WHERE organization_id = $1::uuid AND key = $2 AND fingerprint = $3 AND state = 'in_flight'`,
		scope, key, fp[:])
	if err != nil {
		return fmt.Errorf("postgres: release idempotency key: %w", err)
	}
	return nil
}

// purgeBatch bounds one DELETE so purging a large backlog never holds
// locks on many rows or bloats one transaction.
const purgeBatch = 5000

// Purge implements idempotency.Store.
func (s *Idempotency) Purge(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx,
			`DELETE FROM idempotency_records WHERE ctid IN (
				SELECT ctid FROM idempotency_records WHERE expires_at < $1 LIMIT $2)`, before, purgeBatch)
		if err != nil {
			return total, fmt.Errorf("postgres: purge idempotency keys: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeBatch {
			return total, nil
		}
	}
}
