// Package postgres is billing's event store: account streams with
// optimistic concurrency, snapshots, the inline projections (balances and
// usage) and the outbox, all written in one transaction per command.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/services/billing/internal/ledger"
)

// Source names billing in event envelopes.
const Source = "billing"

// SnapshotEvery is how many events pass between snapshots of a stream.
const SnapshotEvery = 100

// eventNamespace derives deterministic envelope ids from (stream, version),
// so an event re-sent after a crash carries the id it had the first time.
var eventNamespace = uuid.MustParse("6c1f1b0e-6a4f-4c4e-9a8e-0b9b7b1c2d3e")

// Stream is the stream name of an organization's account.
func Stream(orgID string) string { return "account-" + orgID }

// Store persists accounts.
type Store struct {
	pool  *pgxpool.Pool
	locks [256]sync.Mutex
	seed  maphash.Seed
	cache accountCache
}

// New returns a store over pool (whose search_path is billing's schema).
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, seed: maphash.MakeSeed(), cache: accountCache{m: map[string]*ledger.Account{}, max: 50_000}}
}

// Pool exposes the pool for readiness checks and reads.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Command decides on a loaded account. It may use tx for writes that must
// commit with the events (inbox rows, early settlements). It returns the
// events to append; none means nothing changes.
type Command func(ctx context.Context, tx pgx.Tx, a *ledger.Account) ([]ledger.Event, error)

// ErrConflict means another writer appended first; the caller may retry.
var ErrConflict = errors.New("postgres: concurrent append")

// Update loads the account of orgID under a per-account lock, runs cmd and
// appends its events with the projections and outbox rows in the same
// transaction. The lock is taken twice: an in-process mutex so requests for
// one hot account queue without holding pool connections, and a Postgres
// advisory lock so replicas serialize too. UNIQUE(stream, version) stays
// the last line of defence.
func (s *Store) Update(ctx context.Context, orgID string, cmd Command) ([]ledger.Event, error) {
	mu := &s.locks[maphash.String(s.seed, orgID)%uint64(len(s.locks))]
	mu.Lock()
	defer mu.Unlock()
	stream := Stream(orgID)
	for attempt := 0; ; attempt++ {
		evs, err := s.update(ctx, orgID, stream, cmd)
		if errors.Is(err, ErrConflict) && attempt < 3 {
			continue
		}
		return evs, err
	}
}

func (s *Store) update(ctx context.Context, orgID, stream string, cmd Command) ([]ledger.Event, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit

	// Two statements in one round trip: in READ COMMITTED the second gets
	// its own snapshot, taken after the lock is held.
	b := &pgx.Batch{}
	b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, stream)
	var head int64
	b.Queue(`SELECT coalesce(max(version), 0) FROM events WHERE stream = $1`, stream).QueryRow(func(r pgx.Row) error { return r.Scan(&head) })
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("postgres: lock %s: %w", stream, err)
	}
	// The cached state is used only when it is exactly at the stream head;
	// it is taken out while in use and put back only after a commit, so a
	// failed transaction can never leave a wrong state behind.
	a := s.cache.take(stream, head)
	if a == nil {
		if a, err = load(ctx, tx, orgID, stream); err != nil {
			return nil, err
		}
		if a.Version != head {
			return nil, fmt.Errorf("postgres: %s loaded at version %d, head is %d", stream, a.Version, head)
		}
	}
	evs, err := cmd(ctx, tx, a)
	if err != nil || len(evs) == 0 {
		if err == nil {
			if err = tx.Commit(ctx); err == nil {
				s.cache.put(stream, a)
			}
		}
		return nil, err
	}
	if err := s.append(ctx, tx, orgID, stream, a, evs); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("postgres: commit %s: %w", stream, err)
	}
	s.cache.put(stream, a)
	return evs, nil
}

// append applies evs to a and writes events, projections, snapshot and
// outbox rows in one batch.
func (s *Store) append(ctx context.Context, tx pgx.Tx, orgID, stream string, a *ledger.Account, evs []ledger.Event) error {
	b := &pgx.Batch{}
	var envs []events.Envelope
	from := a.Version
	for _, e := range evs {
		typ, data, err := encodeEvent(e)
		if err != nil {
			return err
		}
		a.Apply(e)
		b.Queue(`INSERT INTO events (stream, version, type, data) VALUES ($1, $2, $3, $4)`, stream, a.Version, typ, data)
		queueUsage(b, usageTable, orgID, e)
		if env, ok, err := envelope(ctx, orgID, stream, a.Version, e); err != nil {
			return err
		} else if ok {
			envs = append(envs, env)
		}
	}
	queueBalance(b, balancesTable, orgID, a)
	if a.Version/SnapshotEvery > from/SnapshotEvery {
		state, err := encodeSnapshot(a)
		if err != nil {
			return err
		}
		b.Queue(`INSERT INTO snapshots (stream, version, state) VALUES ($1, $2, $3)
			ON CONFLICT (stream) DO UPDATE SET version = excluded.version, state = excluded.state, taken_at = now()`, stream, a.Version, state)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		if pgkit.IsUniqueViolation(err, "events_pkey") {
			return ErrConflict
		}
		return fmt.Errorf("postgres: append to %s: %w", stream, err)
	}
	if err := messaging.WriteOutbox(ctx, tx, envs...); err != nil {
		return fmt.Errorf("postgres: outbox for %s: %w", stream, err)
	}
	return nil
}

func load(ctx context.Context, tx pgx.Tx, orgID, stream string) (*ledger.Account, error) {
	a := ledger.New(orgID)
	var version int64
	var state []byte
	err := tx.QueryRow(ctx, `SELECT version, state FROM snapshots WHERE stream = $1`, stream).Scan(&version, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("postgres: snapshot of %s: %w", stream, err)
	default:
		if a, err = decodeSnapshot(orgID, version, state); err != nil {
			return nil, err
		}
	}
	rows, err := tx.Query(ctx, `SELECT type, data FROM events WHERE stream = $1 AND version > $2 ORDER BY version`, stream, a.Version)
	if err != nil {
		return nil, fmt.Errorf("postgres: events of %s: %w", stream, err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var data []byte
		if err := rows.Scan(&typ, &data); err != nil {
			return nil, err
		}
		e, err := DecodeEvent(typ, data)
		if err != nil {
			return nil, err
		}
		a.Apply(e)
	}
	return a, rows.Err()
}

// envelope maps a ledger event to its public billing.credit.* event.
func envelope(ctx context.Context, orgID, stream string, version int64, e ledger.Event) (events.Envelope, bool, error) {
	m := events.CreditsMoved{AccountID: orgID, Version: version}
	var typ string
	switch e := e.(type) {
	case ledger.CreditsGranted:
		typ, m.GrantID, m.Credits = events.BillingCreditGranted, e.GrantID, e.Credits
		if e.Bucket == ledger.Purchased {
			m.Purchased = e.Credits
		} else {
			m.Subscription = e.Credits
		}
	case ledger.CreditsReserved:
		typ, m.ReservationID, m.Credits, m.Subscription, m.Purchased = events.BillingCreditReserved, e.ReservationID, e.Credits, e.FromSubscription, e.FromPurchased
		m.Operation, m.ResourceType, m.ResourceID = e.Operation, e.ResourceType, e.ResourceID
	case ledger.ReservationCommitted:
		typ, m.ReservationID = events.BillingCreditCommitted, e.ReservationID
	case ledger.ReservationRefunded:
		typ, m.ReservationID, m.Subscription, m.Purchased, m.Credits = events.BillingCreditRefunded, e.ReservationID, e.Subscription, e.Purchased, e.Subscription+e.Purchased
	case ledger.ReservationExpired:
		typ, m.ReservationID, m.Subscription, m.Purchased, m.Credits = events.BillingCreditExpired, e.ReservationID, e.Subscription, e.Purchased, e.Subscription+e.Purchased
	default:
		return events.Envelope{}, false, nil
	}
	id := uuid.NewSHA1(eventNamespace, fmt.Appendf(nil, "%s:%d", stream, version)).String()
	env, err := events.NewWithID(ctx, id, typ, Source, orgID, m)
	return env, err == nil, err
}

// accountCache keeps recently used account states. Entries are valid only
// at the version they were stored with; see Store.update.
type accountCache struct {
	mu  sync.Mutex
	m   map[string]*ledger.Account
	max int
}

func (c *accountCache) take(stream string, version int64) *ledger.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.m[stream]
	delete(c.m, stream)
	if a == nil || a.Version != version {
		return nil
	}
	return a
}

func (c *accountCache) put(stream string, a *ledger.Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k := range c.m { // evict an arbitrary entry; a miss only costs a load
			delete(c.m, k)
			break
		}
	}
	c.m[stream] = a
}

// now is the store's clock, in UTC and truncated to microseconds so values
// survive a round trip through timestamptz unchanged.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
