package fairshare_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"hookline.dev/services/clips/internal/fairshare"
)

// granted reports whether an Acquire in flight has its slot: waiting
// long for one that should (a slow machine is no failure), briefly for
// one that should not (a wrong grant is immediate).
func granted(t *testing.T, ch <-chan func(), want bool) (func(), bool) {
	t.Helper()
	wait := 50 * time.Millisecond
	if want {
		wait = 10 * time.Second
	}
	select {
	case rel := <-ch:
		return rel, true
	case <-time.After(wait):
		return nil, false
	}
}

func acquire(t *testing.T, p *fairshare.Pool, key string) <-chan func() {
	t.Helper()
	ch := make(chan func(), 1)
	go func() {
		rel, err := p.Acquire(context.Background(), key)
		if err != nil {
			t.Error(err)
		}
		ch <- rel
	}()
	time.Sleep(10 * time.Millisecond) // most likely queued, in order; if not, the tests only prove less
	return ch
}

func TestOneKeyNeverHoldsEverySlot(t *testing.T) {
	p := fairshare.New(3, 2)
	relA1, ok1 := p.TryAcquire("a")
	_, ok2 := p.TryAcquire("a")
	if !ok1 || !ok2 {
		t.Fatal("a's share refused")
	}
	if _, ok := p.TryAcquire("a"); ok {
		t.Fatal("a took a third slot of three")
	}
	relB, ok := p.TryAcquire("b")
	if !ok {
		t.Fatal("b refused while a slot was free to it")
	}
	if _, ok := p.TryAcquire("c"); ok || p.Held("a") != 2 || p.Held("b") != 1 {
		t.Fatal("over capacity")
	}
	relA1()
	relA1() // once only
	if p.Held("a") != 1 {
		t.Fatalf("a holds %d after one release", p.Held("a"))
	}
	relB()
	if _, ok := p.TryAcquire("c"); !ok {
		t.Fatal("c refused with two slots free")
	}
}

// A freed slot goes to the waiting key that holds the fewest, not to the
// one that came first.
func TestFreedSlotGoesToTheKeyHoldingFewest(t *testing.T) {
	p := fairshare.New(2, 0)
	relA, _ := p.Acquire(context.Background(), "a")
	relA2, _ := p.Acquire(context.Background(), "a")
	a3 := acquire(t, p, "a")
	b1 := acquire(t, p, "b")
	if _, ok := granted(t, a3, false); ok {
		t.Fatal("a third slot of two")
	}
	relA()
	relB, ok := granted(t, b1, true)
	if !ok {
		t.Fatal("b, holding none, did not get the freed slot")
	}
	if _, ok := granted(t, a3, false); ok {
		t.Fatal("a's third came before b's first")
	}
	relB()
	if _, ok := granted(t, a3, true); !ok {
		t.Fatal("a's waiter never served")
	}
	relA2()
}

// A key at its share waits without holding up another key.
func TestAKeyAtItsShareDoesNotBlockOthers(t *testing.T) {
	p := fairshare.New(3, 1)
	relA, _ := p.Acquire(context.Background(), "a")
	a2 := acquire(t, p, "a")
	b := acquire(t, p, "b")
	if _, ok := granted(t, b, true); !ok {
		t.Fatal("b waited behind a's waiter")
	}
	if _, ok := granted(t, a2, false); ok {
		t.Fatal("a over its share")
	}
	relA()
	if _, ok := granted(t, a2, true); !ok {
		t.Fatal("a's waiter not served after a's release")
	}
}

func TestAcquireGivesUpWithItsContext(t *testing.T) {
	p := fairshare.New(1, 0)
	rel, _ := p.Acquire(context.Background(), "a")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(ctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	rel()
	if _, ok := p.TryAcquire("c"); !ok {
		t.Fatal("the cancelled waiter kept a slot")
	}
}

func TestNilPoolHasNoLimit(t *testing.T) {
	var p *fairshare.Pool
	for range 100 {
		if _, ok := p.TryAcquire("a"); !ok {
			t.Fatal("refused")
		}
	}
	rel, err := p.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	rel()
}
