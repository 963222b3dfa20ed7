package ratelimit

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"
)

// memStore is a Store over one process's memory, on the test clock.
type memStore struct {
	c     *clock
	mu    sync.Mutex
	b     map[string]*bucket
	takes int
	err   error
}

func newMemStore(c *clock) *memStore { return &memStore{c: c, b: map[string]*bucket{}} }

func (m *memStore) Take(_ context.Context, key string, lim Limit, n int) (Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.takes++
	if m.err != nil {
		return Lease{}, m.err
	}
	now := m.c.now()
	b, ok := m.b[key]
	if !ok {
		b = &bucket{tokens: float64(lim.Burst), last: now}
		m.b[key] = b
	}
	b.refill(now, lim)
	g := min(n, int(math.Floor(b.tokens)))
	b.tokens -= float64(g)
	return Lease{Granted: g, Left: b.tokens}, nil
}

func (m *memStore) takeCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.takes
}

// Two replicas share one bucket: offered three times the rate for ten
// seconds, together they admit the burst plus rate × time, less at most
// one lease each.
func TestSharedHoldsAcrossReplicas(t *testing.T) {
	c := newClock()
	st := newMemStore(c)
	a := NewShared(st, SharedOptions{Now: c.now})
	b := NewShared(st, SharedOptions{Now: c.now})
	lim := Limit{Rate: 20, Burst: 20}
	ctx := context.Background()

	admitted := 0
	const seconds, perSecond = 10, 60
	for i := range seconds * perSecond {
		r := a
		if i%2 == 1 {
			r = b
		}
		if r.Allow(ctx, "k", lim).Allowed {
			admitted++
		}
		c.advance(time.Second / perSecond)
	}
	want := lim.Burst + int(lim.Rate)*seconds
	slack := 2 * a.LeaseSize(lim)
	if admitted > want || admitted < want-slack-1 {
		t.Fatalf("admitted %d, want %d (−%d)", admitted, want, slack+1)
	}
	// Refusals are local: each replica asks the store about once per
	// token due (leases are one token when the bucket refills one at a
	// time), not once per request.
	if n := st.takeCount(); n > 2*admitted+10 {
		t.Fatalf("%d takes for %d admitted of %d requests", n, admitted, seconds*perSecond)
	}
}

// Below the limit a replica asks the store once per lease.
func TestSharedLeasesSaveRoundTrips(t *testing.T) {
	c := newClock()
	st := newMemStore(c)
	s := NewShared(st, SharedOptions{Now: c.now, Span: 100 * time.Millisecond})
	lim := Limit{Rate: 100, Burst: 100}
	if s.LeaseSize(lim) != 10 {
		t.Fatalf("lease size %d, want 10", s.LeaseSize(lim))
	}
	for range 100 {
		if !s.Allow(context.Background(), "k", lim).Allowed {
			t.Fatal("refused below the limit")
		}
		c.advance(20 * time.Millisecond) // 50/s
	}
	if n := st.takeCount(); n != 10 {
		t.Fatalf("%d takes for 100 requests, want 10", n)
	}
}

func TestSharedRefusalSaysWhenToRetry(t *testing.T) {
	c := newClock()
	st := newMemStore(c)
	s := NewShared(st, SharedOptions{Now: c.now})
	lim := Limit{Rate: 0.5, Burst: 2}
	ctx := context.Background()
	for range 2 {
		if !s.Allow(ctx, "k", lim).Allowed {
			t.Fatal("refused within the burst")
		}
	}
	d := s.Allow(ctx, "k", lim)
	if d.Allowed || d.RetryAfter != 2*time.Second || d.Limit != 2 || d.Remaining != 0 {
		t.Fatalf("decision %+v, want refused for 2 s", d)
	}
	takes := st.takeCount()
	c.advance(time.Second)
	if d := s.Allow(ctx, "k", lim); d.Allowed || d.RetryAfter != time.Second || st.takeCount() != takes {
		t.Fatalf("decision %+v after %d takes (was %d), want a local refusal for 1 s", d, st.takeCount(), takes)
	}
	c.advance(time.Second)
	if !s.Allow(ctx, "k", lim).Allowed {
		t.Fatal("refused once the next token was due")
	}
}

func TestSharedFallsBackToLocalWhenTheStoreFails(t *testing.T) {
	c := newClock()
	st := newMemStore(c)
	st.err = errors.New("store down")
	var reported int
	s := NewShared(st, SharedOptions{Now: c.now, OnError: func(error) { reported++ }})
	lim := Limit{Rate: 1, Burst: 3}
	allowed := 0
	for range 5 {
		if s.Allow(context.Background(), "k", lim).Allowed {
			allowed++
		}
	}
	if allowed != 3 || reported != 5 {
		t.Fatalf("allowed %d with %d errors reported, want the local burst of 3 and 5", allowed, reported)
	}
}

func TestSharedConcurrentRequestsShareOneTake(t *testing.T) {
	c := newClock()
	st := newMemStore(c)
	s := NewShared(st, SharedOptions{Now: c.now, Span: time.Second})
	lim := Limit{Rate: 50, Burst: 50}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 50 {
		wg.Go(func() {
			if s.Allow(context.Background(), "k", lim).Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != 50 || st.takeCount() != 1 {
		t.Fatalf("allowed %d with %d takes, want 50 with one lease of 50", allowed, st.takeCount())
	}
}

func TestSharedForgetsIdleLeases(t *testing.T) {
	c := newClock()
	s := NewShared(newMemStore(c), SharedOptions{Now: c.now})
	lim := Limit{Rate: 10, Burst: 10}
	for i := range 100 {
		s.Allow(context.Background(), string(rune('a'+i)), lim)
	}
	c.advance(sweepEvery)
	n := 0
	for i := range s.shards {
		s.shards[i].sweep(c.now())
		n += len(s.shards[i].leases)
	}
	if n != 0 {
		t.Fatalf("%d leases kept after every one expired", n)
	}
}
