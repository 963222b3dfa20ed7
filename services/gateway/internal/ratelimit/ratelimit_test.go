package ratelimit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestBurstThenRefuse(t *testing.T) {
	c := newClock()
	l := New(c.now)
	lim := Limit{Rate: 2, Burst: 3}

	for i := range 3 {
		d := l.Allow("k", lim)
		if !d.Allowed {
			t.Fatalf("request %d refused within the burst", i+1)
		}
		if d.Limit != 3 || d.Remaining != 2-i {
			t.Fatalf("request %d: limit %d remaining %d, want 3 and %d", i+1, d.Limit, d.Remaining, 2-i)
		}
		if d.RetryAfter != 0 {
			t.Fatalf("allowed request has RetryAfter %s", d.RetryAfter)
		}
	}
	d := l.Allow("k", lim)
	if d.Allowed {
		t.Fatal("fourth request allowed with an empty bucket")
	}
	// One token takes 1/rate = 500ms; a full bucket 3/2 s.
	if d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("RetryAfter = %s, want 500ms", d.RetryAfter)
	}
	if d.Reset != 1500*time.Millisecond {
		t.Fatalf("Reset = %s, want 1.5s", d.Reset)
	}
	if d.Remaining != 0 {
		t.Fatalf("Remaining = %d, want 0", d.Remaining)
	}
}

func TestRefillOverTime(t *testing.T) {
	c := newClock()
	l := New(c.now)
	lim := Limit{Rate: 1, Burst: 2}
	l.Allow("k", lim)
	l.Allow("k", lim)
	if l.Allow("k", lim).Allowed {
		t.Fatal("allowed with an empty bucket")
	}
	c.advance(999 * time.Millisecond)
	if l.Allow("k", lim).Allowed {
		t.Fatal("allowed before a whole token refilled")
	}
	c.advance(time.Millisecond)
	d := l.Allow("k", lim)
	if !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after 1s: %+v, want allowed with 0 remaining", d)
	}
	// A long pause refills to the burst, never beyond.
	c.advance(time.Hour)
	for i := range 2 {
		if !l.Allow("k", lim).Allowed {
			t.Fatalf("request %d after a long pause refused", i+1)
		}
	}
	if l.Allow("k", lim).Allowed {
		t.Fatal("bucket grew beyond its burst")
	}
}

func TestKeysAreIndependent(t *testing.T) {
	c := newClock()
	l := New(c.now)
	lim := Limit{Rate: 1, Burst: 1}
	if !l.Allow("a", lim).Allowed || l.Allow("a", lim).Allowed {
		t.Fatal("a: want one allowed, then refused")
	}
	if !l.Allow("b", lim).Allowed {
		t.Fatal("b refused because of a's bucket")
	}
}

func TestTierChangeClampsWithoutRefill(t *testing.T) {
	c := newClock()
	l := New(c.now)
	big := Limit{Rate: 1, Burst: 10}
	small := Limit{Rate: 1, Burst: 2}
	l.Allow("k", big) // 9 left
	d := l.Allow("k", small)
	if !d.Allowed || d.Remaining != 1 || d.Limit != 2 {
		t.Fatalf("after downgrade: %+v, want allowed, 1 remaining, limit 2", d)
	}
}

func TestBackwardClockMintsNothing(t *testing.T) {
	c := newClock()
	l := New(c.now)
	lim := Limit{Rate: 1, Burst: 1}
	l.Allow("k", lim)
	c.advance(-time.Hour)
	if l.Allow("k", lim).Allowed {
		t.Fatal("a clock step backwards refilled the bucket")
	}
	c.advance(time.Hour) // back where we were: still nothing accrued
	if l.Allow("k", lim).Allowed {
		t.Fatal("returning to the original time refilled the bucket")
	}
	c.advance(time.Second)
	if !l.Allow("k", lim).Allowed {
		t.Fatal("no refill after a real second")
	}
}

func TestIdleBucketsAreEvicted(t *testing.T) {
	c := newClock()
	l := New(c.now)
	lim := Limit{Rate: 10, Burst: 5}
	for i := range 100 {
		l.Allow(fmt.Sprint("key-", i), lim)
	}
	if n := l.Len(); n != 100 {
		t.Fatalf("Len = %d, want 100", n)
	}
	// 0.1 s refills one token: every bucket is full again.
	c.advance(100 * time.Millisecond)
	l.Allow("key-0", lim) // key-0 is busy again
	l.Sweep()
	if n := l.Len(); n != 1 {
		t.Fatalf("Len after sweep = %d, want only the busy bucket", n)
	}
	// The shards sweep by themselves once sweepEvery has passed.
	for i := range 100 {
		l.Allow(fmt.Sprint("other-", i), lim)
	}
	c.advance(sweepEvery)
	// Probe until every shard has seen a request (and so swept itself);
	// which shard a key lands in depends on the random hash seed.
	probes := 0
	for ; !allSwept(l, c.now()) && probes < 100_000; probes++ {
		l.Allow(fmt.Sprint("probe-", probes), Limit{Rate: 1, Burst: 1})
	}
	if n := l.Len(); n != probes {
		t.Fatalf("Len = %d after %d probes: idle buckets survived the periodic sweeps", n, probes)
	}
}

func allSwept(l *Limiter, now time.Time) bool {
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		swept := s.lastSweep.Equal(now)
		s.mu.Unlock()
		if !swept {
			return false
		}
	}
	return true
}

func TestConcurrentUseHonoursTheBurst(t *testing.T) {
	c := newClock()
	l := New(c.now)
	lim := Limit{Rate: 1, Burst: 50}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if l.Allow("shared", lim).Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 50 {
		t.Fatalf("allowed %d of 160 concurrent requests, want exactly the burst of 50", allowed)
	}
}

func TestLimitValidate(t *testing.T) {
	for _, l := range []Limit{{0, 1}, {-1, 1}, {1, 0}} {
		if l.Validate() == nil {
			t.Errorf("%+v: want an error", l)
		}
	}
	if err := (Limit{0.5, 1}).Validate(); err != nil {
		t.Errorf("fractional rate refused: %v", err)
	}
}

func BenchmarkAllowParallel(b *testing.B) {
	l := New(nil)
	lim := Limit{Rate: 1e9, Burst: 1 << 30}
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprint("key-", i)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Allow(keys[i%len(keys)], lim)
			i++
		}
	})
}
