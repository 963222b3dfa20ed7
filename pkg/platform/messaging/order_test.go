package messaging

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
)

// TestConsumerOrderKeyKeepsKeysInOrder: with an order key, the messages of
// one key are handled one after the other in the order they were
// published, while messages of different keys still run at once.
func TestConsumerOrderKeyKeepsKeysInOrder(t *testing.T) {
	e := setup(t)
	const keys, perKey = 24, 8
	var mu sync.Mutex
	seen := map[int][]int{} // key → positions in handling order
	var running, most atomic.Int64
	cfg := ConsumerConfig{
		Durable: "ordered", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.order.>"}, Workers: 16,
		OrderKey: func(ev events.Envelope) string {
			var d testData
			_ = ev.Decode(&d)
			return fmt.Sprint(d.N)
		},
	}
	// Interleave the keys, as concurrent producers would, and publish them
	// all before the consumer starts, so that it has every one to choose from.
	for pos := range perKey {
		for k := range keys {
			e.publishDirect(t, envelope(t, e.ctx, "thumbnails.order.done.v1", testData{N: k, Pos: pos}))
		}
	}
	e.consume(t, cfg, func(_ context.Context, ev events.Envelope) error {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		var d testData
		if err := ev.Decode(&d); err != nil {
			return Permanent(err)
		}
		// Uneven handling times: without the key, later messages of a key
		// would overtake earlier ones.
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		mu.Lock()
		seen[d.N] = append(seen[d.N], d.Pos)
		mu.Unlock()
		return nil
	})
	testkit.Eventually(t, 20*time.Second, "all handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, ps := range seen {
			n += len(ps)
		}
		return n == keys*perKey
	})
	mu.Lock()
	defer mu.Unlock()
	for k, ps := range seen {
		for i, p := range ps {
			if p != i {
				t.Fatalf("key %d handled in the order %v", k, ps)
			}
		}
	}
	if most.Load() < 2 {
		t.Errorf("at most %d handlers ran at once; different keys should run concurrently", most.Load())
	}
}
