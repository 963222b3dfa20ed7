package postgres

import (
	"sync"

	"hookline.dev/services/billing/internal/ledger"
)

// accountCache keeps recently used account states. Entries are valid only
// at the version they were stored with: the general path takes them only
// at the stream head it read, optimistic groups at any version (their
// writes verify it); see Store.tx.
type accountCache struct {
	mu  sync.Mutex
	m   map[string]*ledger.Account
	max int
}

func (c *accountCache) take(stream string, version int64) *ledger.Account {
	if a := c.takeAny(stream); a != nil && a.Version == version {
		return a
	}
	return nil
}

// takeAny takes an account at whatever version it was stored with.
func (c *accountCache) takeAny(stream string) *ledger.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.m[stream]
	delete(c.m, stream)
	return a
}

func (c *accountCache) put(stream string, a *ledger.Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k := range c.m { // evict an arbitrary entry; a miss only costs a load
			delete(c.m, k)
			break
		}
	}
	c.m[stream] = a
}

func (c *accountCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}
