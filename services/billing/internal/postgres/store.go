// Package postgres is billing's event store: account streams with
// optimistic concurrency, snapshots, the inline projections (balances and
// usage) and the outbox, all written in one transaction per command. It
// loads and stores; the rules are the ledger package's.
package postgres

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/services/billing/internal/ledger"
)

// Store persists accounts.
//
// Writes go through shard writers: every account belongs to one shard, and
// a shard's writer takes all the commands waiting for it and runs them in
// one transaction. This is group commit at the application level: one or
// two round trips (see tx) and one WAL flush serve the whole group, which
// is what lets one hot account take reservations far faster than one
// transaction each would.
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
// One was best in billing's benchmark on two cores (bench/run.sh billing,
// interleaved runs with 1 to 16 writers): the commits of concurrent
// writers queue on each other anyway (WAL flush, and the lock Postgres
// takes to queue a NOTIFY), so more writers only make smaller groups and
// more contention.
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
	decide      func(a *ledger.Account, d ledger.Directory) ([]ledger.Event, error)
	// optimistic marks a command that may run in a group without reads:
	// one whose every precondition outside the account state is enforced
	// by the group's writes (see tx).
	optimistic bool
	// trace is the caller's context without its cancellation: the group
	// runs on its own deadline, but the events this command records carry
	// the caller's span as their traceparent.
	trace context.Context
	done  chan result
}

type result struct {
	evs []ledger.Event
	err error
}

// run submits o to its shard and waits for the group's transaction.
func (s *Store) run(ctx context.Context, o *op) ([]ledger.Event, error) {
	s.start.Do(s.startShards)
	o.trace = context.WithoutCancel(ctx)
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
				countCommitted(results[i].evs)
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
