// Package postgres is the webhooks service's storage: endpoints,
// deliveries and their attempts. Every API query is scoped by
// organization, so another organization's endpoint is indistinguishable
// from a missing one; the dispatcher's queries lease endpoints and
// deliveries with FOR UPDATE SKIP LOCKED so replicas never send the same
// delivery at once. Endpoint rows are locked FOR NO KEY UPDATE (only
// their other columns change): a delivery being inserted, whose foreign
// key only shares the endpoint's key, does not wait for a dispatcher
// recording an attempt.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/service"
)

// Store is the webhooks database. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

var _ service.Store = (*Store)(nil)

// New returns a store over pool (whose search_path is the webhooks schema).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

const endpointCols = `id::text, org_id::text, url, description, event_types, enabled, credits_low, credits_low_armed,
	credits_version, secret, previous_secret, previous_secret_expires_at, failures, failing_since, disabled_reason, created_at, updated_at`

// endpointRow is where a row of endpointCols is scanned.
type endpointRow struct {
	e         endpoint.Endpoint
	prevUntil *time.Time
}

func (r *endpointRow) dest() []any {
	e := &r.e
	return []any{&e.ID, &e.OrgID, &e.URL, &e.Description, &e.EventTypes, &e.Enabled, &e.CreditsLow, &e.CreditsLowArmed,
		&e.CreditsVersion, &e.Secret, &e.PreviousSecret, &r.prevUntil, &e.Failures, &e.FailingSince, &e.DisabledReason,
		&e.CreatedAt, &e.UpdatedAt}
}

func (r *endpointRow) value() endpoint.Endpoint {
	if r.prevUntil != nil {
		r.e.PreviousSecretExpiresAt = *r.prevUntil
	}
	return r.e
}

func scanEndpoint(r pgx.Row) (endpoint.Endpoint, error) {
	var row endpointRow
	err := r.Scan(row.dest()...)
	return row.value(), err
}

// nullTime is t, or NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// InsertEndpoint stores a new endpoint.
func (s *Store) InsertEndpoint(ctx context.Context, e endpoint.Endpoint) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO endpoints (id, org_id, url, description, event_types, enabled, credits_low,
		credits_low_armed, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		e.ID, e.OrgID, e.URL, e.Description, e.EventTypes, e.Enabled, e.CreditsLow, e.CreditsLowArmed, e.Secret, e.CreatedAt, e.UpdatedAt)
	if err != nil {
		return fmt.Errorf("postgres: insert endpoint: %w", err)
	}
	return nil
}

// Endpoint returns an endpoint of the organization.
func (s *Store) Endpoint(ctx context.Context, orgID, id string) (endpoint.Endpoint, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT `+endpointCols+` FROM endpoints WHERE org_id = $1 AND id = $2`, orgID, id),
		scanEndpoint, endpoint.ErrNotFound)
}

// Endpoints returns a page of the organization's endpoints, newest first.
func (s *Store) Endpoints(ctx context.Context, orgID string, offset, limit int) ([]endpoint.Endpoint, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM endpoints WHERE org_id = $1`,
		`SELECT `+endpointCols+` FROM endpoints WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
		[]any{orgID}, offset, limit, scanEndpoint)
}

// writeEndpoint stores every mutable field of e.
func writeEndpoint(ctx context.Context, tx pgx.Tx, e endpoint.Endpoint) error {
	_, err := tx.Exec(ctx, `UPDATE endpoints SET url = $2, description = $3, event_types = $4, enabled = $5, credits_low = $6,
		credits_low_armed = $7, credits_version = $8, secret = $9, previous_secret = $10, previous_secret_expires_at = $11,
		failures = $12, failing_since = $13, disabled_reason = $14, updated_at = $15 WHERE id = $1`,
		e.ID, e.URL, e.Description, e.EventTypes, e.Enabled, e.CreditsLow, e.CreditsLowArmed, e.CreditsVersion, e.Secret,
		e.PreviousSecret, nullTime(e.PreviousSecretExpiresAt), e.Failures, e.FailingSince, e.DisabledReason, e.UpdatedAt)
	if err != nil {
		return fmt.Errorf("postgres: update endpoint: %w", err)
	}
	return nil
}

// UpdateEndpoint changes an endpoint under a row lock.
func (s *Store) UpdateEndpoint(ctx context.Context, orgID, id string, change func(endpoint.Endpoint) (endpoint.Endpoint, error)) (endpoint.Endpoint, error) {
	var after endpoint.Endpoint
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := pgkit.One(tx.QueryRow(ctx, `SELECT `+endpointCols+` FROM endpoints WHERE org_id = $1 AND id = $2 FOR NO KEY UPDATE`, orgID, id),
			scanEndpoint, endpoint.ErrNotFound)
		if err != nil {
			return err
		}
		if after, err = change(before); err != nil {
			return err
		}
		return writeEndpoint(ctx, tx, after)
	})
	return after, err
}

// DeleteEndpoint removes an endpoint and its deliveries.
func (s *Store) DeleteEndpoint(ctx context.Context, orgID, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM endpoints WHERE org_id = $1 AND id = $2`, orgID, id)
	if err != nil {
		return fmt.Errorf("postgres: delete endpoint: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return endpoint.ErrNotFound
	}
	return nil
}

// enabledEndpoints returns the organization's enabled endpoints.
func enabledEndpoints(ctx context.Context, tx pgx.Tx, orgID string, lock bool) ([]endpoint.Endpoint, error) {
	q := `SELECT ` + endpointCols + ` FROM endpoints WHERE org_id = $1 AND enabled ORDER BY id`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	rows, err := tx.Query(ctx, q, orgID)
	if err != nil {
		return nil, fmt.Errorf("postgres: endpoints of %s: %w", orgID, err)
	}
	eps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (endpoint.Endpoint, error) { return scanEndpoint(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: endpoints of %s: %w", orgID, err)
	}
	return eps, nil
}

// apply writes a plan in tx and returns the deliveries it added (a
// delivery already stored for the same event and endpoint is kept).
func apply(ctx context.Context, tx pgx.Tx, p service.Plan) (int, error) {
	n := 0
	for _, d := range p.Deliveries {
		tag, err := tx.Exec(ctx, `INSERT INTO deliveries (id, endpoint_id, org_id, event_id, event_type, occurred_at, body, status,
			next_attempt_at, window_start, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
			ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
			d.ID, d.EndpointID, d.OrgID, d.Message.EventID, d.Message.Type, d.Message.OccurredAt, string(d.Message.Body),
			string(d.Status), d.NextAttemptAt, d.WindowStart, d.CreatedAt)
		if err != nil {
			return n, fmt.Errorf("postgres: insert delivery: %w", err)
		}
		n += int(tag.RowsAffected())
	}
	for _, e := range p.Endpoints {
		if err := writeEndpoint(ctx, tx, e); err != nil {
			return n, err
		}
	}
	if err := messaging.WriteOutbox(ctx, tx, p.Events...); err != nil {
		return n, fmt.Errorf("postgres: %w", err)
	}
	return n, nil
}

// Consume claims the event in consumer's inbox and writes plan's
// deliveries in the same transaction. With lock, the organization's
// enabled endpoints are locked: a plan that changes them (credits.low) is
// not raced by another event of the same account.
func (s *Store) Consume(ctx context.Context, consumer, eventID, orgID string, lock bool, plan func([]endpoint.Endpoint) (service.Plan, error)) (int, error) {
	n := 0
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		first, err := messaging.ClaimInbox(ctx, tx, consumer, eventID)
		if err != nil || !first {
			return err
		}
		eps, err := enabledEndpoints(ctx, tx, orgID, lock)
		if err != nil {
			return err
		}
		p, err := plan(eps)
		if err != nil {
			return err
		}
		n, err = apply(ctx, tx, p)
		return err
	})
	return n, err
}

// InsertDelivery stores one delivery of an endpoint of the organization.
func (s *Store) InsertDelivery(ctx context.Context, d delivery.Delivery) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM endpoints WHERE org_id = $1 AND id = $2`, d.OrgID, d.EndpointID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return endpoint.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("postgres: endpoint of delivery: %w", err)
		}
		_, err = apply(ctx, tx, service.Plan{Deliveries: []delivery.Delivery{d}})
		return err
	})
}

const deliveryCols = `d.id::text, d.endpoint_id::text, d.org_id::text, d.event_id, d.event_type, d.occurred_at, d.body, d.status,
	d.attempts, d.next_attempt_at, d.window_start, d.last_code, d.last_latency_ms, d.last_error, d.created_at, d.updated_at, d.delivered_at`

// deliveryRow is where a row of deliveryCols is scanned.
type deliveryRow struct {
	d            delivery.Delivery
	body, status string
	latency      float64
}

func (r *deliveryRow) dest() []any {
	d := &r.d
	return []any{&d.ID, &d.EndpointID, &d.OrgID, &d.Message.EventID, &d.Message.Type, &d.Message.OccurredAt, &r.body, &r.status,
		&d.Attempts, &d.NextAttemptAt, &d.WindowStart, &d.LastCode, &r.latency, &d.LastError, &d.CreatedAt, &d.UpdatedAt, &d.DeliveredAt}
}

func (r *deliveryRow) value() delivery.Delivery {
	r.d.Message.Body, r.d.Status, r.d.LastLatency = []byte(r.body), delivery.Status(r.status), ms(r.latency)
	return r.d
}

func scanDelivery(r pgx.Row) (delivery.Delivery, error) {
	var row deliveryRow
	err := r.Scan(row.dest()...)
	return row.value(), err
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func toMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Deliveries returns a page of an endpoint's deliveries with their
// attempts, newest first.
func (s *Store) Deliveries(ctx context.Context, orgID, endpointID string, offset, limit int) ([]delivery.Delivery, int, error) {
	if _, err := s.Endpoint(ctx, orgID, endpointID); err != nil {
		return nil, 0, err
	}
	ds, total, err := pgkit.Page(ctx, s.pool, `SELECT count(*) FROM deliveries WHERE org_id = $1 AND endpoint_id = $2`,
		`SELECT `+deliveryCols+` FROM deliveries d WHERE d.org_id = $1 AND d.endpoint_id = $2
		ORDER BY d.created_at DESC, d.seq DESC OFFSET $3 LIMIT $4`, []any{orgID, endpointID}, offset, limit, scanDelivery)
	if err != nil || len(ds) == 0 {
		return ds, total, err
	}
	ids := make([]string, len(ds))
	at := map[string]int{}
	for i, d := range ds {
		ids[i], at[d.ID] = d.ID, i
	}
	rows, err := s.pool.Query(ctx, `SELECT delivery_id::text, n, attempted_at, code, latency_ms, error, response
		FROM attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, n`, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a delivery.Attempt
		var latency float64
		if err := rows.Scan(&id, &a.N, &a.At, &a.Code, &latency, &a.Error, &a.Response); err != nil {
			return nil, 0, fmt.Errorf("postgres: attempts: %w", err)
		}
		a.Latency = ms(latency)
		ds[at[id]].History = append(ds[at[id]].History, a)
	}
	return ds, total, rows.Err()
}

// writeDelivery stores the mutable fields of d.
func writeDelivery(ctx context.Context, tx pgx.Tx, d delivery.Delivery) error {
	_, err := tx.Exec(ctx, `UPDATE deliveries SET status = $2, attempts = $3, next_attempt_at = $4, window_start = $5, last_code = $6,
		last_latency_ms = $7, last_error = $8, updated_at = $9, delivered_at = $10 WHERE id = $1`,
		d.ID, string(d.Status), d.Attempts, d.NextAttemptAt, d.WindowStart, d.LastCode, toMS(d.LastLatency), d.LastError, d.UpdatedAt, d.DeliveredAt)
	if err != nil {
		return fmt.Errorf("postgres: update delivery: %w", err)
	}
	return nil
}

// UpdateDelivery changes one delivery of the organization's endpoint
// under a row lock.
func (s *Store) UpdateDelivery(ctx context.Context, orgID, endpointID, id string, change func(delivery.Delivery) delivery.Delivery) (delivery.Delivery, error) {
	var after delivery.Delivery
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		before, err := pgkit.One(tx.QueryRow(ctx, `SELECT `+deliveryCols+` FROM deliveries d
			WHERE d.org_id = $1 AND d.endpoint_id = $2 AND d.id = $3 FOR UPDATE`, orgID, endpointID, id), scanDelivery, delivery.ErrNotFound)
		if err != nil {
			return err
		}
		after = change(before)
		return writeDelivery(ctx, tx, after)
	})
	return after, err
}

// ClaimEndpoints leases enabled endpoints with a due delivery.
func (s *Store) ClaimEndpoints(ctx context.Context, now, leaseUntil time.Time, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `UPDATE endpoints e SET lease_until = $2 WHERE e.id IN (
			SELECT e2.id FROM endpoints e2 WHERE e2.enabled AND e2.lease_until <= $1
			AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = e2.id AND d.status = 'pending' AND d.next_attempt_at <= $1)
			FOR NO KEY UPDATE SKIP LOCKED LIMIT $3)
		RETURNING e.id::text`, now, leaseUntil, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: claim endpoints: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: claim endpoints: %w", err)
	}
	return ids, nil
}

// NextDelivery leases the endpoint's earliest due delivery.
func (s *Store) NextDelivery(ctx context.Context, endpointID string, now, leaseUntil time.Time) (delivery.Delivery, endpoint.Endpoint, bool, error) {
	return takeNext(ctx, s.pool, endpointID, now, leaseUntil)
}

// takeNextSQL moves the endpoint's earliest due delivery and the
// endpoint's lease to $3 and returns both. When the endpoint is disabled
// or nothing is due at $2, it returns no row and releases the lease
// instead: a dispatcher holds it only while it sends, so re-enabling the
// endpoint or a new delivery finds it free. One statement, so a take
// costs the dispatcher one round trip.
const takeNextSQL = `WITH next AS (
		SELECT d.id FROM deliveries d
		WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= $2
		AND EXISTS (SELECT 1 FROM endpoints e WHERE e.id = $1 AND e.enabled)
		ORDER BY d.occurred_at, d.seq LIMIT 1 FOR UPDATE SKIP LOCKED),
	leased AS (
		UPDATE deliveries d SET next_attempt_at = $3 FROM next WHERE d.id = next.id RETURNING ` + deliveryCols + `),
	held AS (
		UPDATE endpoints SET lease_until = CASE WHEN EXISTS (SELECT 1 FROM leased) THEN $3::timestamptz ELSE '-infinity' END
		WHERE id = $1 RETURNING ` + endpointCols + `)
	SELECT held.*, leased.* FROM held, leased`

// querier runs a statement in a transaction or on its own.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// takeNext runs takeNextSQL; ok is false when nothing was leased.
func takeNext(ctx context.Context, q querier, endpointID string, now, leaseUntil time.Time) (delivery.Delivery, endpoint.Endpoint, bool, error) {
	var e endpointRow
	var d deliveryRow
	err := q.QueryRow(ctx, takeNextSQL, endpointID, now, leaseUntil).Scan(append(e.dest(), d.dest()...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return delivery.Delivery{}, endpoint.Endpoint{}, false, nil
	}
	if err != nil {
		return delivery.Delivery{}, endpoint.Endpoint{}, false, fmt.Errorf("postgres: take a delivery: %w", err)
	}
	return d.value(), e.value(), true, nil
}

// Record stores an attempt and what decide makes of it, then takes the
// endpoint's next due delivery as NextDelivery does, in one transaction:
// one commit a delivery.
func (s *Store) Record(ctx context.Context, deliveryID string, decide func(delivery.Delivery, endpoint.Endpoint, service.Loader) (service.Change, error),
	now, leaseUntil time.Time) (delivery.Delivery, endpoint.Endpoint, bool, error) {
	var next delivery.Delivery
	var e endpoint.Endpoint
	var ok bool
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		d, err := pgkit.One(tx.QueryRow(ctx, `SELECT `+deliveryCols+` FROM deliveries d WHERE d.id = $1 FOR UPDATE`, deliveryID),
			scanDelivery, delivery.ErrNotFound)
		if err != nil {
			return err
		}
		before, err := pgkit.One(tx.QueryRow(ctx, `SELECT `+endpointCols+` FROM endpoints WHERE id = $1 FOR NO KEY UPDATE`, d.EndpointID),
			scanEndpoint, delivery.ErrNotFound)
		if err != nil {
			return err
		}
		c, err := decide(d, before, func() ([]endpoint.Endpoint, error) { return enabledEndpoints(ctx, tx, before.OrgID, false) })
		if err != nil {
			return err
		}
		a := c.Attempt
		if _, err := tx.Exec(ctx, `INSERT INTO attempts (delivery_id, n, attempted_at, code, latency_ms, error, response)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, d.ID, a.N, a.At, a.Code, toMS(a.Latency), a.Error, a.Response); err != nil {
			return fmt.Errorf("postgres: insert attempt: %w", err)
		}
		if err := writeDelivery(ctx, tx, c.Delivery); err != nil {
			return err
		}
		c.Plan.Endpoints = append(c.Plan.Endpoints, c.Endpoint)
		if _, err := apply(ctx, tx, c.Plan); err != nil {
			return err
		}
		next, e, ok, err = takeNext(ctx, tx, d.EndpointID, now, leaseUntil)
		return err
	})
	if err != nil {
		return delivery.Delivery{}, endpoint.Endpoint{}, false, err
	}
	return next, e, ok, nil
}
