package org

import (
	"sync"
	"time"
)

// keyCache remembers recent authentication lookups by key hash: keys found
// and keys not found in two separate bounded maps, so a flood of random
// keys (each one a miss) can only evict other misses and never the entries
// of keys in real use.
type keyCache struct {
	found   *ttlMap[Identity]
	missing *ttlMap[struct{}]
}

func newKeyCache(ttl time.Duration, max int, missingTTL time.Duration, missingMax int) *keyCache {
	return &keyCache{found: newTTLMap[Identity](ttl, max), missing: newTTLMap[struct{}](missingTTL, missingMax)}
}

// get returns the cached result for h; cached is false on a miss.
func (c *keyCache) get(h KeyHash, now time.Time) (id Identity, found, cached bool) {
	if id, ok := c.found.get(h, now); ok {
		return id, true, true
	}
	_, ok := c.missing.get(h, now)
	return Identity{}, false, ok
}

func (c *keyCache) put(h KeyHash, id Identity, found bool, now time.Time) {
	if found {
		c.found.put(h, id, now)
	} else {
		c.missing.put(h, struct{}{}, now)
	}
}

// forget drops h from both maps: a revocation made through this process
// takes effect at once, and so does a key created here whose hash someone
// had already tried.
func (c *keyCache) forget(h KeyHash) {
	c.found.forget(h)
	c.missing.forget(h)
}

// ttlMap is a plain map under a mutex: entries are tiny, a lookup is a hash
// probe, and the bound keeps a flood from growing it without limit. A zero
// TTL disables it.
type ttlMap[V any] struct {
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[KeyHash]ttlEntry[V]
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLMap[V any](ttl time.Duration, max int) *ttlMap[V] {
	return &ttlMap[V]{ttl: ttl, max: max, entries: make(map[KeyHash]ttlEntry[V])}
}

func (m *ttlMap[V]) get(h KeyHash, now time.Time) (V, bool) {
	var zero V
	if m.ttl <= 0 {
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[h]
	if !ok {
		return zero, false
	}
	if !now.Before(e.expires) {
		delete(m.entries, h)
		return zero, false
	}
	return e.v, true
}

func (m *ttlMap[V]) put(h KeyHash, v V, now time.Time) {
	if m.ttl <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) >= m.max {
		m.evict(now)
	}
	m.entries[h] = ttlEntry[V]{v: v, expires: now.Add(m.ttl)}
}

// evict drops expired entries and, if the map is still full, arbitrary
// ones (map order is random) down to three quarters of the bound. Dropping
// live entries costs only extra lookups, never correctness.
func (m *ttlMap[V]) evict(now time.Time) {
	for h, e := range m.entries {
		if !now.Before(e.expires) {
			delete(m.entries, h)
		}
	}
	for h := range m.entries {
		if len(m.entries) < m.max*3/4 {
			break
		}
		delete(m.entries, h)
	}
}

func (m *ttlMap[V]) forget(h KeyHash) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, h)
}

func (m *ttlMap[V]) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
