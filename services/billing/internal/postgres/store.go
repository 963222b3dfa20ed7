// Package postgres is billing's event store: account streams with
// optimistic concurrency, snapshots, the inline projections (balances and
// usage) and the outbox, all written in one transaction per command.
package postgres

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"slices"
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

// snapshotDue reports whether a stream that moved from version from to to
// passed one of its snapshot points: every SnapshotEvery versions, offset
// by a hash of the stream. Without the offset, accounts that are opened
// together and used evenly all reach version 100, 200... in the same
// group: the benchmarks saw 100 snapshots of 20 KB written at once every
// 20 s, and a half-second stall of every reservation behind them.
func snapshotDue(stream string, from, to int64) bool {
	off := int64(crc32.ChecksumIEEE([]byte(stream)) % SnapshotEvery)
	return (to+off)/SnapshotEvery > (from+off)/SnapshotEvery
}

// eventNamespace derives deterministic envelope ids from (stream, version),
// so an event re-sent after a crash carries the id it had the first time.
var eventNamespace = uuid.MustParse("6c1f1b0e-6a4f-4c4e-9a8e-0b9b7b1c2d3e")

// Stream is the stream name of an organization's account.
func Stream(orgID string) string { return "account-" + orgID }

// Store persists accounts.
//
// Writes go through shard writers: every account belongs to one shard, and
// a shard's writer takes all the commands waiting for it and runs them in
// one transaction. This is group commit at the application level: one or
// two round trips (see tx) and one WAL flush serve the whole group, which
// is what lets one hot account take hundreds of reservations a second.
// Commands for one account run in arrival order against the state left by
// the previous one, so the ledger's rules see exactly one history.
type Store struct {
	pool    *pgxpool.Pool
	relay   *messaging.Relay // nil: plain outbox writes
	writers int
	seed    maphash.Seed
	cache   accountCache
	shards  []chan *op
	start   sync.Once
	wg      sync.WaitGroup
	// quit asks the writers to finish; stopped is closed once they have.
	quit, stopped chan struct{}
	closeOnce     sync.Once
}

// DefaultWriters is the number of shard writers when New is given none.
// One is best on the two-core machine of bench/RESULTS.md: the commits of
// concurrent writers queue on each other anyway (WAL flush, and the lock
// Postgres takes to queue a NOTIFY), so more writers only make smaller
// groups and more contention (4 writers: 1,355 sagas/s and reserve p99
// 33 ms; 1 writer: 1,718/s and 17-20 ms, same session).
const DefaultWriters = 1

// MaxGroup caps the commands of one transaction.
const MaxGroup = 256

// New returns a store over pool (whose search_path is billing's schema)
// with the given number of shard writers (DefaultWriters when < 1). relay,
// when not nil, is this process's outbox relay, which commits then wake
// directly (messaging.Relay.QueueOutbox). Call Close to stop its writers.
func New(pool *pgxpool.Pool, writers int, relay *messaging.Relay) *Store {
	if writers < 1 {
		writers = DefaultWriters
	}
	return &Store{pool: pool, relay: relay, writers: writers, seed: maphash.MakeSeed(), cache: accountCache{m: map[string]*ledger.Account{}, max: 50_000},
		quit: make(chan struct{}), stopped: make(chan struct{})}
}

// Close stops the writers after the commands already queued; commands
// submitted later fail with ErrClosed.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		close(s.quit)
		s.wg.Wait()
		close(s.stopped)
	})
}

// ErrClosed is returned for commands submitted to a closed store.
var ErrClosed = errors.New("postgres: store is closed")

// ErrConflict means another writer appended first; the group is retried.
var ErrConflict = errors.New("postgres: concurrent append")

// op is one command waiting for its shard's next transaction.
type op struct {
	orgID string
	// inbox, when set, makes the command run once per (consumer, event).
	inbox *messaging.InboxClaim
	// reservation is the id whose usage and early-settlement rows the
	// decision reads; they are fetched for the whole group at once.
	reservation string
	decide      func(a *ledger.Account, v *view) ([]ledger.Event, error)
	// optimistic marks a command that may run in a group without reads:
	// one whose every precondition outside the account state is enforced
	// by the group's writes (see tx).
	optimistic bool
	done       chan result
}

type result struct {
	evs []ledger.Event
	err error
}

// view is what a group knows besides account state: which reservation ids
// exist (and whose they are) and which outcomes arrived early. Decisions
// update it, so later commands of the same group see earlier ones.
type view struct {
	owner    map[string]string
	early    map[string]earlySettlement
	earlyAdd []earlySettlement
	earlyDel []string
}

type earlySettlement struct {
	reservation, orgID, outcome, eventID string
}

// run submits o to its shard and waits for the group's transaction.
func (s *Store) run(ctx context.Context, o *op) ([]ledger.Event, error) {
	s.start.Do(s.startShards)
	o.done = make(chan result, 1)
	ch := s.shards[maphash.String(s.seed, o.orgID)%uint64(len(s.shards))]
	select {
	case ch <- o:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.quit:
		return nil, ErrClosed
	}
	// Once queued the command will run; waiting for it keeps the caller's
	// answer true (an abandoned reserve could commit unseen).
	select {
	case r := <-o.done:
		return r.evs, r.err
	case <-s.stopped:
		select { // it may have run as the writers drained
		case r := <-o.done:
			return r.evs, r.err
		default:
			return nil, ErrClosed
		}
	}
}

func (s *Store) startShards() {
	s.shards = make([]chan *op, s.writers)
	for i := range s.shards {
		ch := make(chan *op, 4*MaxGroup)
		s.shards[i] = ch
		s.wg.Go(func() { s.writer(ch) })
	}
}

func (s *Store) writer(ch chan *op) {
	for {
		var first *op
		select {
		case first = <-ch:
		case <-s.quit:
			// Finish what was queued before Close, then stop.
			for {
				select {
				case o := <-ch:
					s.execGroup([]*op{o})
				default:
					return
				}
			}
		}
		group := []*op{first}
	fill:
		for len(group) < MaxGroup {
			select {
			case o := <-ch:
				group = append(group, o)
			default:
				break fill
			}
		}
		s.execGroup(group)
	}
}

// execGroup runs a group in one transaction. If the transaction fails, each
// command is retried alone so one bad command cannot fail its neighbours.
func (s *Store) execGroup(group []*op) {
	for attempt := 0; ; attempt++ {
		results, err := s.tx(group)
		if err == nil {
			for i, o := range group {
				o.done <- results[i]
			}
			return
		}
		if errors.Is(err, ErrConflict) && attempt < 3 {
			continue
		}
		if len(group) == 1 {
			group[0].done <- result{err: err}
			return
		}
		for _, o := range group {
			s.execGroup([]*op{o})
		}
		return
	}
}

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
	optimisticCommits = expvar.NewInt("billing_optimistic_commits")
	optimisticReruns  = expvar.NewInt("billing_optimistic_reruns")
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
		v: &view{owner: map[string]string{}, early: map[string]earlySettlement{}}, claimed: map[messaging.InboxClaim]bool{}}
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
			env, ok, err := envelope(ctx, o.orgID, st, a.Version, e)
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
			ON CONFLICT (reservation_id) DO NOTHING`, e.reservation, e.orgID, e.outcome, e.eventID)
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
	// full scan of usage, 5 ms per group). Within the group, no seq scan.
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

func load(ctx context.Context, c querier, orgID, stream string) (*ledger.Account, error) {
	a := ledger.New(orgID)
	var version int64
	var state []byte
	err := c.QueryRow(ctx, `SELECT version, state FROM snapshots WHERE stream = $1`, stream).Scan(&version, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("postgres: snapshot of %s: %w", stream, err)
	default:
		if a, err = decodeSnapshot(orgID, version, state); err != nil {
			return nil, err
		}
	}
	rows, err := c.Query(ctx, `SELECT type, data FROM events WHERE stream = $1 AND version > $2 ORDER BY version`, stream, a.Version)
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
// at the version they were stored with: the general path takes them only
// at the stream head it read, optimistic groups at any version (their
// writes verify it); see Store.tx.
type accountCache struct {
	mu  sync.Mutex
	m   map[string]*ledger.Account
	max int
}

func (c *accountCache) take(stream string, version int64) *ledger.Account {
	if a := c.takeAny(stream); a != nil && a.Version == version {
		return a
	}
	return nil
}

// takeAny takes an account at whatever version it was stored with.
func (c *accountCache) takeAny(stream string) *ledger.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.m[stream]
	delete(c.m, stream)
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
