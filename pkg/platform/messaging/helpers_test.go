package messaging

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// env is one test's isolated world: a fresh schema with the messaging
// migrations, and a bus in a fresh namespace with its streams.
type env struct {
	ctx    context.Context
	schema string
	pool   *pgxpool.Pool
	bus    *Bus
}

func setup(t testing.TB) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	schema := testkit.Schema(t, "msg")
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), schema, pgkit.Options{MaxConns: 12})
	if err != nil {
		t.Fatalf("connect postgres: %v", err)
	}
	t.Cleanup(pool.Close)
	if err := pgkit.Migrate(ctx, pool, Migrations); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE effects (event_id text PRIMARY KEY, n int NOT NULL DEFAULT 1)`); err != nil {
		t.Fatalf("effects table: %v", err)
	}
	nc, err := Connect(ctx, testkit.NATSURL(t), "messaging-test")
	if err != nil {
		t.Fatalf("connect nats: %v", err)
	}
	t.Cleanup(nc.Close)
	bus, err := NewBus(nc, testkit.Namespace(t))
	if err != nil {
		t.Fatalf("bus: %v", err)
	}
	if err := bus.EnsureStreams(ctx); err != nil {
		t.Fatalf("ensure streams: %v", err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, s := range events.Streams {
			if err := bus.JS.DeleteStream(cctx, bus.StreamName(s.Name)); err != nil {
				t.Logf("delete stream %s: %v", bus.StreamName(s.Name), err)
			}
		}
	})
	return &env{ctx: ctx, schema: schema, pool: pool, bus: bus}
}

// background runs fn until the returned stop is called or the test ends;
// stop cancels fn's ctx and waits for it to return.
func background(t testing.TB, name string, fn func(ctx context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := fn(ctx); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Errorf("%s did not stop within 15s of its ctx ending", name)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func (e *env) relay(t testing.TB) *Relay {
	r := NewRelay(e.pool, e.bus, nil)
	r.LockRetry = 50 * time.Millisecond
	return r
}

type testData struct {
	Tx  int64 `json:"tx"`  // txid of the writing transaction
	Pos int   `json:"pos"` // position within the transaction
	N   int   `json:"n,omitempty"`
}

func envelope(t testing.TB, ctx context.Context, typ string, d testData) events.Envelope {
	t.Helper()
	e, err := events.New(ctx, typ, "test", "org-1", d)
	if err != nil {
		t.Fatalf("envelope: %v", err)
	}
	return e
}

// writeTx commits one transaction holding n events of type typ and returns
// their ids.
func (e *env) writeTx(t testing.TB, typ string, n int) []string {
	t.Helper()
	ids, err := e.writeTxE(typ, n)
	if err != nil {
		t.Fatalf("write outbox: %v", err)
	}
	return ids
}

// writeTxE is writeTx for goroutines other than the test's.
func (e *env) writeTxE(typ string, n int) ([]string, error) {
	envs := make([]events.Envelope, n)
	ids := make([]string, n)
	for i := range envs {
		ev, err := events.New(e.ctx, typ, "test", "org-1", testData{Pos: i})
		if err != nil {
			return nil, err
		}
		envs[i], ids[i] = ev, ev.ID
	}
	err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		return WriteOutbox(e.ctx, tx, envs...)
	})
	return ids, err
}

// collector records what a consumer received, by event id.
type collector struct {
	mu   sync.Mutex
	seen map[string]int
	envs map[string]events.Envelope
	ch   chan struct{}
}

func newCollector() *collector {
	return &collector{seen: map[string]int{}, envs: map[string]events.Envelope{}, ch: make(chan struct{}, 1)}
}

func (c *collector) handler(_ context.Context, e events.Envelope) error {
	c.mu.Lock()
	c.seen[e.ID]++
	c.envs[e.ID] = e
	c.mu.Unlock()
	select {
	case c.ch <- struct{}{}:
	default:
	}
	return nil
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func (c *collector) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]int, len(c.seen))
	for k, v := range c.seen {
		m[k] = v
	}
	return m
}

// consume starts a consumer with h until the test ends.
func (e *env) consume(t testing.TB, cfg ConsumerConfig, h Handler) (stop func()) {
	t.Helper()
	return background(t, "consumer "+cfg.Durable, func(ctx context.Context) error {
		return e.bus.Consume(ctx, cfg, h)
	})
}

// streamMsgs counts the messages stored in a stream of the namespace.
func (e *env) streamMsgs(t testing.TB, stream string) uint64 {
	t.Helper()
	s, err := e.bus.JS.Stream(e.ctx, e.bus.StreamName(stream))
	if err != nil {
		t.Fatalf("stream %s: %v", stream, err)
	}
	info, err := s.Info(e.ctx)
	if err != nil {
		t.Fatalf("stream info %s: %v", stream, err)
	}
	return info.State.Msgs
}

// readStream returns the messages of a stream matching the (namespaced)
// filter, in stream order.
func (e *env) readStream(t testing.TB, stream, filter string, want int) []jetstream.Msg {
	t.Helper()
	c, err := e.bus.JS.OrderedConsumer(e.ctx, e.bus.StreamName(stream), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{e.bus.Subject(filter)},
	})
	if err != nil {
		t.Fatalf("ordered consumer on %s: %v", stream, err)
	}
	var out []jetstream.Msg
	for len(out) < want {
		b, err := c.Fetch(want-len(out), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatalf("fetch %s: %v", stream, err)
		}
		n := 0
		for m := range b.Messages() {
			out = append(out, m)
			n++
		}
		if n == 0 {
			t.Fatalf("stream %s %s: got %d messages, want %d", stream, filter, len(out), want)
		}
	}
	return out
}

// effectHandler applies the documented idempotency contract: inbox claim and
// effect in one transaction.
func (e *env) effectHandler(consumer string, fail func(events.Envelope) error) Handler {
	return func(ctx context.Context, ev events.Envelope) error {
		return pgkit.InTx(ctx, e.pool, func(tx pgx.Tx) error {
			first, err := ClaimInbox(ctx, tx, consumer, ev.ID)
			if err != nil || !first {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO effects (event_id) VALUES ($1)
				ON CONFLICT (event_id) DO UPDATE SET n = effects.n + 1`, ev.ID); err != nil {
				return err
			}
			if fail != nil {
				return fail(ev)
			}
			return nil
		})
	}
}

func (e *env) effects(t testing.TB) (rows, maxN int) {
	t.Helper()
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*), coalesce(max(n), 0) FROM effects`).Scan(&rows, &maxN); err != nil {
		t.Fatalf("count effects: %v", err)
	}
	return rows, maxN
}

func (e *env) pending(t testing.TB) int {
	t.Helper()
	n, err := OutboxPending(e.ctx, e.pool)
	if err != nil {
		t.Fatalf("pending: %v", err)
	}
	return n
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

func newID() string { return uuid.NewString() }

// counter reads one of the package's counters (summed over the series with
// labels) through the process's Prometheus endpoint.
func counter(t testing.TB, name string, labels ...string) int64 {
	t.Helper()
	return int64(testkit.ScrapeProcess(t).Value(name, labels...))
}
