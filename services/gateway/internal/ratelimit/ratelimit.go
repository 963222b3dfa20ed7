// Package ratelimit holds token-bucket limiters keyed by string (the
// gateway uses API key ids and client addresses). Each key has a bucket of
// Burst tokens refilled at Rate tokens per second; a request takes one
// token.
//
// Limiter is per process. Shared (shared.go) holds one bucket per key for
// all gateway replicas in a Store and serves requests from small leases of
// it, falling back to a Limiter when the store fails.
//
// Buckets live in sharded maps so concurrent requests for different keys
// rarely share a lock. A bucket that has been idle long enough to be full
// again is indistinguishable from a missing one, so such buckets are
// dropped by a sweep that each shard runs now and then: memory follows the
// number of recently active keys, not all keys ever seen.
package ratelimit

import (
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// Limit is the bucket shape of a tier.
type Limit struct {
	// Rate is the refill in tokens per second.
	Rate float64
	// Burst is the bucket size: the most requests allowed at once.
	Burst int
}

// Validate reports a limit that cannot work.
func (l Limit) Validate() error {
	if !(l.Rate > 0) || math.IsInf(l.Rate, 0) {
		return fmt.Errorf("rate must be a positive number, got %v", l.Rate)
	}
	if l.Burst < 1 {
		return fmt.Errorf("burst must be at least 1, got %d", l.Burst)
	}
	return nil
}

// Decision is the outcome of one request against a bucket, with what the
// X-RateLimit-* and Retry-After headers report.
type Decision struct {
	Allowed bool
	// Limit is the bucket size.
	Limit int
	// Remaining is the number of whole tokens left after this request.
	Remaining int
	// Reset is the time until the bucket is full again.
	Reset time.Duration
	// RetryAfter is, for a refused request, the time until one token is
	// available; zero when allowed.
	RetryAfter time.Duration
}

const (
	shardCount = 64
	// sweepEvery is how often a shard looks for idle buckets. The sweep
	// is O(buckets in the shard) under its lock, so it must be rare.
	sweepEvery = time.Minute
)

// Limiter is safe for concurrent use.
type Limiter struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [shardCount]shard
}

type shard struct {
	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
	limit  Limit
}

// New returns a limiter reading time from now (time.Now when nil); tests
// pass a fake clock.
func New(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	l := &Limiter{now: now, seed: maphash.MakeSeed()}
	t := now()
	for i := range l.shards {
		l.shards[i].buckets = make(map[string]*bucket)
		l.shards[i].lastSweep = t
	}
	return l
}

// Allow takes one token from key's bucket under lim. A bucket created
// under another limit (the organization changed tier) is clamped to the
// new size rather than reset, so a tier change cannot refill it.
func (l *Limiter) Allow(key string, lim Limit) Decision { return l.take(key, lim, 1) }

// Peek reports whether key's bucket holds a token without taking it.
func (l *Limiter) Peek(key string, lim Limit) Decision { return l.take(key, lim, 0) }

func (l *Limiter) take(key string, lim Limit, n float64) Decision {
	now := l.now()
	s := &l.shards[maphash.String(l.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.lastSweep) >= sweepEvery {
		s.sweep(now)
	}
	b, ok := s.buckets[key]
	if !ok {
		b = &bucket{tokens: float64(lim.Burst), last: now, limit: lim}
		s.buckets[key] = b
	}
	b.refill(now, lim)

	allowed := b.tokens >= 1
	if allowed {
		b.tokens -= n
	}
	return decide(allowed, b.tokens, lim)
}

// decide describes a bucket holding tokens after a request.
func decide(allowed bool, tokens float64, lim Limit) Decision {
	d := Decision{Allowed: allowed, Limit: lim.Burst}
	if !allowed {
		d.RetryAfter = seconds((1 - tokens) / lim.Rate)
	}
	d.Remaining = int(math.Floor(max(tokens, 0)))
	d.Reset = seconds((float64(lim.Burst) - tokens) / lim.Rate)
	return d
}

// Len returns the number of buckets held, for tests and metrics.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.buckets)
		s.mu.Unlock()
	}
	return n
}

// Sweep drops every idle bucket now, rather than waiting for the shards'
// own periodic sweeps.
func (l *Limiter) Sweep() {
	now := l.now()
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		s.sweep(now)
		s.mu.Unlock()
	}
}

func (s *shard) sweep(now time.Time) {
	s.lastSweep = now
	for k, b := range s.buckets {
		b.refill(now, b.limit)
		if b.tokens >= float64(b.limit.Burst) {
			delete(s.buckets, k)
		}
	}
}

func (b *bucket) refill(now time.Time, lim Limit) {
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens += elapsed.Seconds() * lim.Rate
	}
	// A clock that stepped backwards must not mint tokens later, so last
	// only moves forward.
	if now.After(b.last) {
		b.last = now
	}
	b.limit = lim
	if b.tokens > float64(lim.Burst) {
		b.tokens = float64(lim.Burst)
	}
}

func seconds(s float64) time.Duration {
	if s <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}
