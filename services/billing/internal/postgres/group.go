package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/meters"
)

// tx runs a group in one or two round trips.
//
// When every command of the group is a reservation and every account is in
// the cache, the group is optimistic: one pipeline opens the transaction,
// locks the accounts, checks that no settlement is waiting for these
// reservations, writes and commits. The cached state needs no read because
// the writes themselves verify it: each stream's next version is unique, so
// a stale cache (another replica appended) fails the event insert, and a
// reservation id used before fails the usage insert. Any failure reruns the
// group on the general path.
//
// The general path reads first: one round trip opens the transaction, locks
// the accounts and reads the stream heads, the reservation rows and the
// inbox claims; the decisions run in memory; a second round trip writes and
// commits. BEGIN and COMMIT travel inside the pipelines, so neither path
// pays a round trip of its own: on a loaded machine every round trip is two
// wake-ups (this process and the backend), which is what bounds latency.
func (s *Store) tx(group []*op) ([]result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: acquire: %w", err)
	}
	defer conn.Release()
	defer endTx(conn)

	if g := s.fromCache(group); g != nil {
		b := &pgx.Batch{}
		queueBegin(b, g.orgs)
		b.Queue(`SELECT assert_no_early_settlement($1)`, reservationsOf(group))
		results, err := s.commit(ctx, conn, b, group, g)
		if err == nil {
			optimisticCommits.Add(1)
			return results, nil
		}
		optimisticReruns.Add(1)
		endTx(conn)
	}
	g, err := s.read(ctx, conn, group)
	if err != nil {
		return nil, err
	}
	return s.commit(ctx, conn, &pgx.Batch{}, group, g)
}

// endTx ends a transaction a failure left open or aborted. If even that
// fails, Release discards the connection rather than pooling it
// mid-transaction.
func endTx(conn *pgxpool.Conn) {
	if conn.Conn().PgConn().TxStatus() != 'I' {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = conn.Exec(ctx, "ROLLBACK")
		cancel()
	}
}

// Optimistic groups committed in one round trip, and those rerun on the
// general path (a stale cache, a reused reservation id, a settlement that
// arrived first).
var (
	optimisticCommits = meters.OptimisticGroups.With("result", "committed")
	optimisticReruns  = meters.OptimisticGroups.With("result", "rerun")
)

// groupState is what a group's decisions start from.
type groupState struct {
	orgs     []string // sorted: the lock order
	accounts map[string]*ledger.Account
	from     map[string]int64 // each account's version before the group
	v        *view
	claimed  map[messaging.InboxClaim]bool
}

func newGroupState(orgs []string) *groupState {
	return &groupState{orgs: orgs, accounts: make(map[string]*ledger.Account, len(orgs)), from: make(map[string]int64, len(orgs)),
		v: newView(), claimed: map[messaging.InboxClaim]bool{}}
}

// fromCache returns the state of an optimistic group, or nil when the group
// is not one. The accounts are taken out of the cache: they come back only
// after a commit, so a failed attempt can never leave a wrong state behind.
func (s *Store) fromCache(group []*op) *groupState {
	for _, o := range group {
		if !o.optimistic {
			return nil
		}
	}
	g := newGroupState(orgsOf(group))
	for _, org := range g.orgs {
		a := s.cache.takeAny(Stream(org))
		if a == nil {
			for org, a := range g.accounts {
				s.cache.put(Stream(org), a)
			}
			return nil
		}
		g.accounts[org], g.from[org] = a, a.Version
	}
	return g
}

// read opens the transaction, locks the group's accounts and reads what the
// decisions need, loading the accounts the cache does not hold at their
// stream heads.
func (s *Store) read(ctx context.Context, conn *pgxpool.Conn, group []*op) (*groupState, error) {
	g, heads, err := lockGroup(ctx, conn, group)
	if err != nil {
		return nil, err
	}
	for _, org := range g.orgs {
		st := Stream(org)
		a := s.cache.take(st, heads[st])
		if a == nil {
			if a, err = load(ctx, conn, org, st); err != nil {
				return nil, err
			}
			if a.Version != heads[st] {
				return nil, fmt.Errorf("postgres: %s loaded at version %d, head is %d", st, a.Version, heads[st])
			}
		}
		g.accounts[org], g.from[org] = a, a.Version
	}
	return g, nil
}

// commit runs the group's decisions against g and sends b (the transaction
// opened, or about to be by b's first statements) followed by the events,
// projections, outbox rows and COMMIT, in one round trip.
func (s *Store) commit(ctx context.Context, conn *pgxpool.Conn, b *pgx.Batch, group []*op, g *groupState) ([]result, error) {
	var envs []events.Envelope
	var released []messaging.InboxClaim
	results := make([]result, len(group))
	for i, o := range group {
		if o.inbox != nil {
			if !g.claimed[*o.inbox] {
				continue // processed before, or earlier in this group
			}
			delete(g.claimed, *o.inbox)
		}
		a := g.accounts[o.orgID]
		evs, err := o.decide(a, g.v)
		if err != nil {
			results[i].err = err
			if o.inbox != nil {
				// A refused decision is not processed: the event must be
				// claimable again when it is redelivered or re-routed.
				released = append(released, *o.inbox)
			}
			continue
		}
		results[i].evs = evs
		st := Stream(o.orgID)
		for _, e := range evs {
			typ, data, err := encodeEvent(e)
			if err != nil {
				return nil, err
			}
			a.Apply(e)
			b.Queue(`INSERT INTO events (stream, version, type, data) VALUES ($1, $2, $3, $4)`, st, a.Version, typ, data)
			queueUsage(b, usageTable, o.orgID, e)
			env, ok, err := envelope(o.trace, o.orgID, st, a.Version, a.Available(), e)
			if err != nil {
				return nil, err
			}
			if ok {
				envs = append(envs, env)
			}
		}
	}
	for _, org := range g.orgs {
		a := g.accounts[org]
		if a.Version == g.from[org] {
			continue
		}
		queueBalance(b, balancesTable, org, a)
		if snapshotDue(Stream(org), g.from[org], a.Version) {
			state, err := encodeSnapshot(a)
			if err != nil {
				return nil, err
			}
			b.Queue(`INSERT INTO snapshots (stream, version, state) VALUES ($1, $2, $3)
				ON CONFLICT (stream) DO UPDATE SET version = excluded.version, state = excluded.state, taken_at = now()`, Stream(org), a.Version, state)
		}
	}
	for _, e := range g.v.earlyAdd {
		b.Queue(`INSERT INTO early_settlements (reservation_id, org_id, outcome, event_id) VALUES ($1, $2, $3, $4)
			ON CONFLICT (reservation_id) DO NOTHING`, e.reservation, e.orgID, string(e.outcome), e.eventID)
	}
	messaging.QueueReleaseInbox(b, released)
	if len(g.v.earlyDel) > 0 {
		b.Queue(`DELETE FROM early_settlements WHERE reservation_id = ANY($1)`, g.v.earlyDel)
	}
	queueOutbox := messaging.QueueOutbox
	if s.relay != nil {
		queueOutbox = s.relay.QueueOutbox
	}
	if err := queueOutbox(b, envs...); err != nil {
		return nil, fmt.Errorf("postgres: outbox: %w", err)
	}
	// A failed statement makes the server skip the rest of the pipeline,
	// COMMIT included, so the first error is the transaction's.
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		if pgkit.IsUniqueViolation(err, "events_pkey") {
			return nil, ErrConflict
		}
		return nil, fmt.Errorf("postgres: append and commit: %w", err)
	}
	if s.relay != nil && len(envs) > 0 {
		s.relay.Committed()
	}
	for org, a := range g.accounts {
		s.cache.put(Stream(org), a)
	}
	return results, nil
}

// querier is the part of a pooled connection the group transaction uses.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// orgsOf returns the group's organizations, sorted: the order in which
// every group locks them, so groups of other replicas cannot deadlock.
func orgsOf(group []*op) []string {
	orgs := make([]string, 0, len(group))
	for _, o := range group {
		orgs = append(orgs, o.orgID)
	}
	slices.Sort(orgs)
	return slices.Compact(orgs)
}

func reservationsOf(group []*op) []string {
	ids := make([]string, 0, len(group))
	for _, o := range group {
		if o.reservation != "" {
			ids = append(ids, o.reservation)
		}
	}
	return ids
}

// queueBegin opens the transaction and locks the accounts of orgs; it
// returns their stream names, in the same order.
func queueBegin(b *pgx.Batch, orgs []string) []string {
	streams := make([]string, len(orgs))
	for i, org := range orgs {
		streams[i] = Stream(org)
	}
	b.Queue("BEGIN")
	// Every statement of a group is a keyed lookup or write. Their plans
	// are cached per connection, and a plan made while a table was nearly
	// empty can be a sequential scan that is never replanned unless the
	// table is analyzed (autovacuum may be off, as on the machine the
	// benchmarks ran on: there it turned the reservation lookup into a
	// full scan of usage in every group, a cost that grew with the table).
	// Within the group, no seq scan.
	b.Queue("SET LOCAL enable_seqscan = off")
	// One statement takes the locks one by one in the array's order (a
	// function scan without ORDER BY yields its rows in order).
	b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended(stream, 0)) FROM unnest($1::text[]) AS s(stream)`, streams)
	return streams
}

// lockGroup opens the transaction and locks every account of the group,
// then reads the stream heads, the reservation rows and the inbox claims,
// all in one round trip.
// In READ COMMITTED each statement takes its own snapshot, so the reads
// see everything the previous lock holders committed.
func lockGroup(ctx context.Context, c querier, group []*op) (*groupState, map[string]int64, error) {
	g := newGroupState(orgsOf(group))
	var claims []messaging.InboxClaim
	for _, o := range group {
		if o.inbox != nil {
			claims = append(claims, *o.inbox)
		}
	}
	b := &pgx.Batch{}
	streams := queueBegin(b, g.orgs)
	heads := make(map[string]int64, len(g.orgs))
	// The head of each stream is its last index entry: a backward scan
	// of one row, however long the stream (max() with GROUP BY would read
	// every version).
	b.Queue(`SELECT s.stream, e.version FROM unnest($1::text[]) AS s(stream)
		CROSS JOIN LATERAL (SELECT version FROM events WHERE events.stream = s.stream ORDER BY version DESC LIMIT 1) e`, streams).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var st string
			var v int64
			if err := rows.Scan(&st, &v); err != nil {
				return err
			}
			heads[st] = v
		}
		return rows.Err()
	})
	if reservations := reservationsOf(group); len(reservations) > 0 {
		b.Queue(`SELECT reservation_id, org_id::text FROM usage WHERE reservation_id = ANY($1)`, reservations).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id, org string
				if err := rows.Scan(&id, &org); err != nil {
					return err
				}
				g.v.owner[id] = org
			}
			return rows.Err()
		})
		b.Queue(`SELECT reservation_id, org_id::text, outcome, event_id FROM early_settlements WHERE reservation_id = ANY($1)`, reservations).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var e earlySettlement
				if err := rows.Scan(&e.reservation, &e.orgID, &e.outcome, &e.eventID); err != nil {
					return err
				}
				g.v.early[e.reservation] = e
			}
			return rows.Err()
		})
	}
	messaging.QueueClaimInbox(b, claims, g.claimed)
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, fmt.Errorf("postgres: lock group: %w", err)
	}
	return g, heads, nil
}
