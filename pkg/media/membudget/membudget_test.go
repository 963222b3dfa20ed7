package membudget

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newBudget(t *testing.T, size int64, wait time.Duration) *Budget {
	t.Helper()
	b, err := New(size, wait)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// queued waits until n acquisitions wait in b.
func queued(t *testing.T, b *Budget, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		got := b.waiters.Len()
		b.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// acquisition is an Acquire running in its own goroutine.
type acquisition struct {
	release func()
	err     error
	done    chan struct{}
}

func acquire(ctx context.Context, b *Budget, n int64) *acquisition {
	a := &acquisition{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.release, a.err = b.Acquire(ctx, n)
	}()
	return a
}

func (a *acquisition) granted() bool {
	select {
	case <-a.done:
		return a.err == nil
	default:
		return false
	}
}

func (a *acquisition) wait(t *testing.T) {
	t.Helper()
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the acquisition never returned")
	}
}

func TestNewRefusesNonsense(t *testing.T) {
	if _, err := New(0, time.Second); err == nil {
		t.Error("a budget of 0 bytes was accepted")
	}
	if _, err := New(100, 0); err == nil {
		t.Error("a maximum wait of 0 was accepted")
	}
}

func TestAcquireAndRelease(t *testing.T) {
	b := newBudget(t, 100, time.Minute)
	r1, err := b.Acquire(t.Context(), 60)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.Acquire(t.Context(), 40)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.InUse(); got != 100 {
		t.Fatalf("in use %d, want 100", got)
	}
	r1()
	r1() // a second call gives nothing back twice
	if got := b.InUse(); got != 40 {
		t.Fatalf("in use %d after releasing 60, want 40", got)
	}
	r2()
	if got := b.InUse(); got != 0 {
		t.Fatalf("in use %d after releasing everything", got)
	}
	if got := b.TakePeak(); got != 100 {
		t.Errorf("peak %d, want 100", got)
	}
	if got := b.TakePeak(); got != 0 {
		t.Errorf("peak %d of an idle period, want 0", got)
	}
	release, err := b.Acquire(t.Context(), 0)
	if err != nil || b.InUse() != 0 {
		t.Errorf("acquiring nothing: %v, in use %d", err, b.InUse())
	}
	release()
}

func TestLargerThanTheBudgetIsRefusedAtOnce(t *testing.T) {
	b := newBudget(t, 100, time.Minute)
	start := time.Now()
	if _, err := b.Acquire(t.Context(), 101); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	if time.Since(start) > time.Second {
		t.Error("the refusal waited")
	}
}

func TestBusyAfterTheMaximumWait(t *testing.T) {
	b := newBudget(t, 100, 50*time.Millisecond)
	release, err := b.Acquire(t.Context(), 70)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	start := time.Now()
	_, err = b.Acquire(t.Context(), 40)
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) || busy.RetryAfter != 50*time.Millisecond {
		t.Fatalf("err %v, want a BusyError of 50ms", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("gave up after %s, before the maximum wait", waited)
	}
	if got := b.InUse(); got != 70 {
		t.Errorf("in use %d after a refusal, want 70", got)
	}
}

// A small request that would fit does not pass a large one that waits
// before it: the large one would otherwise wait for ever under a stream
// of small ones.
func TestFirstComeFirstServed(t *testing.T) {
	b := newBudget(t, 100, time.Minute)
	holder, err := b.Acquire(t.Context(), 80)
	if err != nil {
		t.Fatal(err)
	}
	large := acquire(t.Context(), b, 50)
	queued(t, b, 1)
	small := acquire(t.Context(), b, 10)
	queued(t, b, 2)
	time.Sleep(20 * time.Millisecond)
	if small.granted() || large.granted() {
		t.Fatal("a waiter was served before the holder released")
	}
	holder()
	large.wait(t)
	small.wait(t)
	if large.err != nil || small.err != nil {
		t.Fatalf("large %v, small %v", large.err, small.err)
	}
	if got := b.InUse(); got != 60 {
		t.Errorf("in use %d, want 60", got)
	}
	large.release()
	small.release()
}

// A waiter that gives up leaves the queue, and those behind it that fit
// go ahead.
func TestCancelledWaiterLetsTheNextGo(t *testing.T) {
	b := newBudget(t, 100, time.Minute)
	holder, err := b.Acquire(t.Context(), 80)
	if err != nil {
		t.Fatal(err)
	}
	defer holder()
	ctx, cancel := context.WithCancel(t.Context())
	large := acquire(ctx, b, 50)
	queued(t, b, 1)
	small := acquire(t.Context(), b, 10)
	queued(t, b, 2)
	cancel()
	large.wait(t)
	if !errors.Is(large.err, context.Canceled) {
		t.Fatalf("the cancelled waiter got %v", large.err)
	}
	small.wait(t)
	if small.err != nil {
		t.Fatalf("the waiter behind it: %v", small.err)
	}
	small.release()
	queued(t, b, 0)
	if got := b.InUse(); got != 80 {
		t.Errorf("in use %d, want the holder's 80", got)
	}
}

// Under contention the bytes held never exceed the budget and every
// acquisition is either served or refused.
func TestNeverOverTheBudget(t *testing.T) {
	const size = 1000
	b := newBudget(t, size, 20*time.Millisecond)
	var held, most atomic.Int64
	var served, busy atomic.Int64
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1)) //nolint:gosec // G404: test sizes
			for range 50 {
				n := 1 + rng.Int64N(400)
				release, err := b.Acquire(t.Context(), n)
				if errors.Is(err, ErrBusy) {
					busy.Add(1)
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				served.Add(1)
				now := held.Add(n)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
				held.Add(-n)
				release()
			}
		})
	}
	wg.Wait()
	if most.Load() > size {
		t.Errorf("%d bytes held at once in a budget of %d", most.Load(), size)
	}
	if served.Load()+busy.Load() != 64*50 || served.Load() == 0 {
		t.Errorf("%d served and %d refused of %d", served.Load(), busy.Load(), 64*50)
	}
	if got := b.InUse(); got != 0 {
		t.Errorf("in use %d after everything was released", got)
	}
}

// Idle calls back once a spike is over: not while memory is held, not
// for small work, once per spike.
func TestIdleAfterASpike(t *testing.T) {
	b := newBudget(t, 1000, time.Minute)
	calls := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- b.Idle(ctx, time.Millisecond, 500, func() { calls <- struct{}{} }) }()
	quiet := func() {
		t.Helper()
		select {
		case <-calls:
			t.Fatal("called back without a spike that ended")
		case <-time.After(50 * time.Millisecond):
		}
	}
	small, err := b.Acquire(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	small()
	quiet()
	big, err := b.Acquire(t.Context(), 600)
	if err != nil {
		t.Fatal(err)
	}
	quiet()
	big()
	select {
	case <-calls:
	case <-time.After(5 * time.Second):
		t.Fatal("not called back after the spike")
	}
	quiet()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Memory held beyond the acquisitions counts against the budget until it
// is measured again: new work waits for it, and is served once it falls.
func TestOutside(t *testing.T) {
	b, err := New(100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	release, err := b.Acquire(context.Background(), 40)
	if err != nil {
		t.Fatal(err)
	}
	b.SetOutside(50)
	got := make(chan error, 1)
	go func() {
		r, err := b.Acquire(context.Background(), 20)
		if err == nil {
			defer r()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("20 bytes granted with 40 acquired and 50 outside of 100: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.SetOutside(-10) // measured again: the work's memory was given back
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	release()
}

// A grant is signalled on Acquired, at once or when a waiter is served;
// grants not yet read are one signal.
func TestAcquiredSignalsGrants(t *testing.T) {
	b, err := New(100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.Acquired():
		t.Fatal("signalled before any grant")
	default:
	}
	r1, err := b.Acquire(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.Acquire(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	<-b.Acquired()
	select {
	case <-b.Acquired():
		t.Fatal("two grants read as two signals")
	default:
	}
	waited := make(chan func(), 1)
	go func() {
		r, err := b.Acquire(context.Background(), 50)
		if err != nil {
			t.Error(err)
		}
		waited <- r
	}()
	queued(t, b, 1)
	r1()
	<-b.Acquired() // the waiter's grant
	(<-waited)()
	r2()
}
