package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// Store holds the buckets shared by every gateway replica.
type Store interface {
	// Take refills key's bucket under lim up to now (a missing bucket is
	// full), removes up to n whole tokens and returns how many it removed
	// and how many are left. Concurrent takes of one key are serialised,
	// so the tokens granted over any interval never exceed Burst plus
	// Rate times its length. Errors are infrastructure failures.
	Take(ctx context.Context, key string, lim Limit, n int) (Lease, error)
}

// Lease is the outcome of one Take.
type Lease struct {
	Granted int
	// Left is what the shared bucket holds after the take.
	Left float64
}

// SharedOptions tune a Shared limiter; zero values pick the defaults.
type SharedOptions struct {
	// Span sizes a lease: a replica takes ceil(Rate×Span) tokens at a time
	// (at least 1, at most Burst) and asks the store again only when they
	// are spent. Longer spans mean fewer round trips and a coarser limit:
	// over any interval, N replicas admit at most Burst + Rate×interval +
	// N leases, and under sustained overload at least that minus N leases
	// (default 100 ms).
	Span time.Duration
	// Timeout bounds a Take; past it the request is decided locally
	// (default 500 ms).
	Timeout time.Duration
	// Now is the clock (time.Now by default).
	Now func() time.Time
	// OnError hears of failed takes (default: ignored).
	OnError func(error)
}

// Shared limits keys across replicas. Each replica leases a few tokens at
// a time from the key's bucket in the Store and spends them locally, so
// most requests cost no round trip. When the bucket is empty the replica
// refuses locally until the store says the next token is due. When the
// store fails, requests are decided by a per-process Limiter: the limit
// then holds per replica, as it did before buckets were shared.
type Shared struct {
	store    Store
	fallback *Limiter
	opt      SharedOptions
	seed     maphash.Seed
	shards   [shardCount]leaseShard
}

type leaseShard struct {
	mu        sync.Mutex
	leases    map[string]*lease
	lastSweep time.Time
}

// lease is one replica's view of a key's shared bucket.
type lease struct {
	mu sync.Mutex
	// tokens were granted by the store and not spent yet; they are
	// dropped at expires so a replica cannot hoard them past a refill.
	tokens  int
	expires time.Time
	// left is the shared bucket after the last take, for the headers.
	left float64
	// deniedUntil is when the store's bucket holds its next token.
	deniedUntil time.Time
	// fetching is closed when the take in flight returns.
	fetching chan struct{}
}

// NewShared returns a limiter over store; a nil store makes it a
// per-process Limiter.
func NewShared(store Store, opt SharedOptions) *Shared {
	if opt.Span <= 0 {
		opt.Span = 100 * time.Millisecond
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 500 * time.Millisecond
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.OnError == nil {
		opt.OnError = func(error) {}
	}
	s := &Shared{store: store, fallback: New(opt.Now), opt: opt, seed: maphash.MakeSeed()}
	t := opt.Now()
	for i := range s.shards {
		s.shards[i].leases = make(map[string]*lease)
		s.shards[i].lastSweep = t
	}
	return s
}

// LeaseSize is how many tokens a replica takes at once under lim.
func (s *Shared) LeaseSize(lim Limit) int {
	n := int(math.Ceil(lim.Rate * s.opt.Span.Seconds()))
	return min(max(n, 1), lim.Burst)
}

// leaseTTL is how long granted tokens stay usable: a few spans, so tokens
// leased before a refill cannot add much to the burst after it.
func (s *Shared) leaseTTL() time.Duration { return 10 * s.opt.Span }

// Allow takes one token for key under lim.
func (s *Shared) Allow(ctx context.Context, key string, lim Limit) Decision {
	if s.store == nil {
		return s.fallback.Allow(key, lim)
	}
	l := s.lease(key)
	l.mu.Lock()
	for {
		now := s.opt.Now()
		if l.tokens > 0 && now.Before(l.expires) {
			l.tokens--
			d := decide(true, l.left+float64(l.tokens), lim)
			l.mu.Unlock()
			return d
		}
		if now.Before(l.deniedUntil) {
			d := decide(false, l.left, lim)
			d.RetryAfter = l.deniedUntil.Sub(now)
			l.mu.Unlock()
			return d
		}
		if ch := l.fetching; ch != nil {
			l.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return s.fallback.Allow(key, lim)
			}
			l.mu.Lock()
			continue
		}
		ch := make(chan struct{})
		l.fetching = ch
		l.mu.Unlock()
		got, err := s.take(ctx, key, lim)
		l.mu.Lock()
		close(ch)
		l.fetching = nil
		if err != nil {
			l.mu.Unlock()
			s.opt.OnError(err)
			return s.fallback.Allow(key, lim)
		}
		// Once the lease is spent, the next token is due when the shared
		// bucket holds one again; until then refusals need no round trip.
		now = s.opt.Now()
		l.tokens, l.expires, l.left = got.Granted, now.Add(s.leaseTTL()), got.Left
		l.deniedUntil = now.Add(time.Duration(max(0, 1-got.Left) / lim.Rate * float64(time.Second)))
	}
}

// take asks the store, detached from the caller's cancellation: other
// requests of the key may be waiting on this answer.
func (s *Shared) take(ctx context.Context, key string, lim Limit) (Lease, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opt.Timeout)
	defer cancel()
	return s.store.Take(ctx, key, lim, s.LeaseSize(lim))
}

func (s *Shared) lease(key string) *lease {
	sh := &s.shards[maphash.String(s.seed, key)%shardCount]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now := s.opt.Now(); now.Sub(sh.lastSweep) >= sweepEvery {
		sh.sweep(now)
	}
	l, ok := sh.leases[key]
	if !ok {
		l = &lease{}
		sh.leases[key] = l
	}
	return l
}

// sweep drops leases that hold nothing: expired, not refusing and not
// being fetched. A request holding such a lease while it is dropped only
// costs its key one extra take.
func (sh *leaseShard) sweep(now time.Time) {
	sh.lastSweep = now
	for k, l := range sh.leases {
		l.mu.Lock()
		idle := l.fetching == nil && !now.Before(l.expires) && !now.Before(l.deniedUntil)
		l.mu.Unlock()
		if idle {
			delete(sh.leases, k)
		}
	}
}
