// Package fairshare shares a worker's capacity between organizations: a Pool
// has a number of slots, of which one organization (a key) may hold at
// most a share, and a freed slot goes to the waiting organization that
// holds the fewest. One organization's jobs, however many and however
// slow, then never hold every slot, and they do not queue ahead of
// another organization's first job.
package fairshare

import (
	"context"
	"sync"
)

// Pool is a fair semaphore keyed by organization. The nil *Pool is a pool
// without limits. It is safe for concurrent use.
type Pool struct {
	size, perKey int

	mu      sync.Mutex
	busy    int
	held    map[string]int
	waiting []*waiter // in arrival order
}

type waiter struct {
	key   string
	ready chan struct{} // closed when the slot is granted
}

// New returns a pool of size slots, at most perKey of them held by one
// key (perKey ≤ 0 or over size: size).
func New(size, perKey int) *Pool {
	if perKey <= 0 || perKey > size {
		perKey = size
	}
	return &Pool{size: size, perKey: perKey, held: map[string]int{}}
}

// TryAcquire takes a slot for key if one is free to it now, without
// waiting: ok is false when every slot is busy or key holds its share.
// release gives the slot back (once).
func (p *Pool) TryAcquire(key string) (release func(), ok bool) {
	if p == nil {
		return func() {}, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.free(key) {
		return nil, false
	}
	p.take(key)
	return p.releaser(key), true
}

// Acquire waits for a slot for key; waiters are served the key holding
// the fewest slots first, then in arrival order. release gives the slot
// back (once). Errors: ctx's, when it ends first.
func (p *Pool) Acquire(ctx context.Context, key string) (release func(), err error) {
	if p == nil {
		return func() {}, nil
	}
	p.mu.Lock()
	// No waiter can take a slot that is free: give hands each freed one
	// on at once. Taking it now jumps no queue.
	if p.free(key) {
		p.take(key)
		p.mu.Unlock()
		return p.releaser(key), nil
	}
	w := &waiter{key: key, ready: make(chan struct{})}
	p.waiting = append(p.waiting, w)
	p.mu.Unlock()
	select {
	case <-w.ready:
		return p.releaser(key), nil
	case <-ctx.Done():
		p.mu.Lock()
		defer p.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: hand it on
			p.give(key)
		default:
			p.drop(w)
		}
		return nil, ctx.Err()
	}
}

// Held is how many slots key holds.
func (p *Pool) Held(key string) int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held[key]
}

func (p *Pool) free(key string) bool { return p.busy < p.size && p.held[key] < p.perKey }

func (p *Pool) take(key string) {
	p.busy++
	p.held[key]++
}

func (p *Pool) releaser(key string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.give(key)
		})
	}
}

// give returns key's slot and grants the freed capacity to waiters.
// Called with mu held.
func (p *Pool) give(key string) {
	p.busy--
	if p.held[key]--; p.held[key] == 0 {
		delete(p.held, key)
	}
	for {
		next := -1
		for i, w := range p.waiting {
			if p.free(w.key) && (next < 0 || p.held[w.key] < p.held[p.waiting[next].key]) {
				next = i
			}
		}
		if next < 0 {
			return
		}
		w := p.waiting[next]
		p.drop(w)
		p.take(w.key)
		close(w.ready)
	}
}

// drop removes w from the waiting list. Called with mu held.
func (p *Pool) drop(w *waiter) {
	for i, x := range p.waiting {
		if x == w {
			p.waiting = append(p.waiting[:i], p.waiting[i+1:]...)
			return
		}
	}
}
