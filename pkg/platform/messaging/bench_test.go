package messaging

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/pgkit"
)

// lagProbe times events to their arrival in a consumer's handler: the whole
// outbox → relay → JetStream → consumer path. It keeps two clocks: from the
// Commit call (includes Postgres's commit, fsync and all; an upper bound) and
// from Commit's return (the relay's part; an arrival before the writer saw
// its commit return counts as 0).
type lagProbe struct {
	mu        sync.Mutex
	started   map[string]time.Time
	committed map[string]time.Time
	arrivedAt map[string]time.Time
	lags      []time.Duration // from the Commit call
	afterLags []time.Duration // from Commit's return
	arrived   chan string
}

func newLagProbe() *lagProbe {
	return &lagProbe{
		started:   map[string]time.Time{},
		committed: map[string]time.Time{},
		arrivedAt: map[string]time.Time{},
		arrived:   make(chan string, 4096),
	}
}

func (p *lagProbe) start(id string, t time.Time) {
	p.mu.Lock()
	p.started[id] = t
	p.mu.Unlock()
}

// done records the return of Commit; the event may already have arrived.
func (p *lagProbe) done(id string, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if at, ok := p.arrivedAt[id]; ok {
		p.afterLags = append(p.afterLags, max(at.Sub(t), 0))
		delete(p.arrivedAt, id)
		return
	}
	p.committed[id] = t
}

func (p *lagProbe) handler(_ context.Context, e events.Envelope) error {
	now := time.Now()
	p.mu.Lock()
	if t0, ok := p.started[e.ID]; ok {
		p.lags = append(p.lags, now.Sub(t0))
		delete(p.started, e.ID)
	}
	if t1, ok := p.committed[e.ID]; ok {
		p.afterLags = append(p.afterLags, now.Sub(t1))
		delete(p.committed, e.ID)
	} else {
		p.arrivedAt[e.ID] = now
	}
	p.mu.Unlock()
	p.arrived <- e.ID
	return nil
}

func (p *lagProbe) report(b *testing.B) {
	p.mu.Lock()
	defer p.mu.Unlock()
	quantiles := func(lags []time.Duration, unit string) {
		if len(lags) == 0 {
			return
		}
		l := slices.Clone(lags)
		slices.Sort(l)
		q := func(f float64) float64 {
			return float64(l[min(int(f*float64(len(l))), len(l)-1)].Microseconds()) / 1000
		}
		b.ReportMetric(q(0.50), "p50-"+unit)
		b.ReportMetric(q(0.99), "p99-"+unit)
	}
	quantiles(p.lags, "ms")
	quantiles(p.afterLags, "ms-after-commit")
}

func benchSetup(b *testing.B) (*env, *lagProbe) {
	e := setup(b)
	p := newLagProbe()
	e.consume(b, ConsumerConfig{Durable: "lag", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.bench.>"}, Workers: 4}, p.handler)
	background(b, "relay", NewRelay(e.pool, e.bus, nil).Run)
	// Warm up: streams, consumer and connections in place.
	ids := e.writeTx(b, "thumbnails.bench.warm.v1", 1)
	for range ids {
		<-p.arrived
	}
	return e, p
}

func writeOne(ctx context.Context, e *env, p *lagProbe) (string, error) {
	ev, err := events.New(ctx, "thumbnails.bench.lag.v1", "bench", "org-1", testData{})
	if err != nil {
		return "", err
	}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	if err := WriteOutbox(ctx, tx, ev); err != nil {
		return "", err
	}
	p.start(ev.ID, time.Now())
	if err := tx.Commit(ctx); err != nil {
		return "", err
	}
	p.done(ev.ID, time.Now())
	return ev.ID, nil
}

// BenchmarkOutboxLag measures commit → consumer receipt on an idle system:
// one event at a time, the next written after the previous arrived.
func BenchmarkOutboxLag(b *testing.B) {
	e, p := benchSetup(b)
	b.ResetTimer()
	for b.Loop() {
		id, err := writeOne(e.ctx, e, p)
		if err != nil {
			b.Fatal(err)
		}
		for got := range p.arrived {
			if got == id {
				break
			}
		}
	}
	b.StopTimer()
	p.report(b)
}

// BenchmarkOutboxLagLoaded measures the same lag under billing's target
// load: 1,000 transactions per second (one event each, like reservations)
// from 8 concurrent writers, paced so the figure is lag rather than the
// queueing of an overloaded machine. events/s below 1,000 means the writers
// could not keep the pace.
func BenchmarkOutboxLagLoaded(b *testing.B) {
	e, p := benchSetup(b)
	forced := counter(b, "hookline_messaging_relay_forced_total")
	const (
		writers = 8
		rate    = 1000 // per second
	)
	tokens := make(chan struct{}, writers)
	go func() {
		defer close(tokens)
		t := time.NewTicker(time.Second / rate)
		defer t.Stop()
		for range b.N {
			select {
			case <-t.C:
				tokens <- struct{}{}
			case <-e.ctx.Done():
				return
			}
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range tokens {
				if _, err := writeOne(e.ctx, e, p); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	received := 0
	timeout := time.After(2 * time.Minute)
	for received < b.N {
		select {
		case <-p.arrived:
			received++
		case <-timeout:
			b.Fatalf("received %d of %d", received, b.N)
		}
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(float64(counter(b, "hookline_messaging_relay_forced_total")-forced), "forced")
	p.report(b)
}

// BenchmarkWriteOutboxBatch measures the write side: one transaction with
// 100 envelopes, one statement.
func BenchmarkWriteOutboxBatch(b *testing.B) {
	e := setup(b)
	envs := make([]events.Envelope, 100)
	for b.Loop() {
		for i := range envs {
			envs[i], _ = events.New(e.ctx, "thumbnails.bench.batch.v1", "bench", "org-1", testData{Pos: i})
		}
		if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error { return WriteOutbox(e.ctx, tx, envs...) }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(envs))/b.Elapsed().Seconds(), "events/s")
}
