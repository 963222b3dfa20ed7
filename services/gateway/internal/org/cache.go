package org

import (
	"sync"
	"time"
)

// keyCache remembers recent authentication lookups by key hash. It is a
// plain map under a mutex: entries are tiny, a lookup is a hash probe, and
// the bound keeps a flood of random keys from growing it without limit.
type keyCache struct {
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[KeyHash]cacheEntry
}

type cacheEntry struct {
	id      Identity
	found   bool
	expires time.Time
}

func newKeyCache(ttl time.Duration, max int) *keyCache {
	return &keyCache{ttl: ttl, max: max, entries: make(map[KeyHash]cacheEntry)}
}

// get returns the cached result for h; cached is false on a miss.
func (c *keyCache) get(h KeyHash, now time.Time) (id Identity, found, cached bool) {
	if c.ttl <= 0 {
		return Identity{}, false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[h]
	if !ok {
		return Identity{}, false, false
	}
	if !now.Before(e.expires) {
		delete(c.entries, h)
		return Identity{}, false, false
	}
	return e.id, e.found, true
}

func (c *keyCache) put(h KeyHash, id Identity, found bool, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[h] = cacheEntry{id: id, found: found, expires: now.Add(c.ttl)}
}

// evict drops expired entries and, if the cache is still full, arbitrary
// ones (map order is random) down to three quarters of the bound. Dropping
// live entries costs only extra lookups, never correctness.
func (c *keyCache) evict(now time.Time) {
	for h, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, h)
		}
	}
	for h := range c.entries {
		if len(c.entries) < c.max*3/4 {
			break
		}
		delete(c.entries, h)
	}
}

// forget drops h so a revocation made through this process takes effect at
// once.
func (c *keyCache) forget(h KeyHash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, h)
}
