// Package membudget bounds the memory that a process's image work holds at
// once. Decoded pictures dwarf everything else a service keeps: one 40 MP
// photograph is 160 MB of pixels before any edit has copied it, so the
// process's footprint is the sum of the pictures in flight, and bounding
// each picture bounds nothing when twenty arrive together.
//
// A Budget is a weighted semaphore counted in bytes. Work estimates what
// it will hold (from the picture's header, before decoding it), acquires
// that, and releases it when the memory is garbage again. Waiters are
// served first come, first served, so a large request is never passed over
// indefinitely by small ones; a waiter gives up after the budget's
// MaxWait (ErrBusy, the caller answers "retry later") or when its context
// ends, and a request larger than the whole budget is refused at once
// (ErrTooLarge): it could never run.
//
// A caller must never wait for a second acquisition while holding a first
// one: two requests each holding half of the budget and waiting for more
// would wait for each other until MaxWait. Acquire what a piece of work
// needs at once.
//
// Idle tells when a spike is over: the Go runtime keeps the heap a burst
// of work grew until its next collection, which for a process gone quiet
// comes minutes later.
package membudget

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrTooLarge is returned for an acquisition larger than the whole budget.
var ErrTooLarge = errors.New("membudget: more memory than the whole budget")

// ErrBusy is what a *BusyError is: the budget stayed too full for
// MaxWait.
var ErrBusy = errors.New("membudget: the memory budget stayed full")

// BusyError is returned when an acquisition waited MaxWait without the
// memory becoming free. It matches ErrBusy with errors.Is.
type BusyError struct {
	// RetryAfter is how long the caller should wait before trying again:
	// the budget's MaxWait, which is about how long the work that holds
	// the memory runs.
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v for %s", ErrBusy, e.RetryAfter)
}

// Is makes errors.Is(err, ErrBusy) hold for a *BusyError.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Budget is a number of bytes shared by the work of one process. It is
// safe for concurrent use.
type Budget struct {
	size    int64
	maxWait time.Duration

	mu      sync.Mutex
	used    int64
	outside int64     // held beyond the acquisitions, as last measured (SetOutside)
	peak    int64     // the most used since the last TakePeak
	waiters list.List // of *waiter, in arrival order

	acquired chan struct{} // signalled (without blocking) at each grant
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when the bytes are granted
}

// New returns a budget of size bytes whose acquisitions wait at most
// maxWait.
func New(size int64, maxWait time.Duration) (*Budget, error) {
	if size <= 0 {
		return nil, fmt.Errorf("membudget: size %d must be positive", size)
	}
	if maxWait <= 0 {
		return nil, fmt.Errorf("membudget: maximum wait %s must be positive", maxWait)
	}
	return &Budget{size: size, maxWait: maxWait, acquired: make(chan struct{}, 1)}, nil
}

// Acquired receives after bytes have been granted: the owner that
// measures the process (SetOutside) makes room for what the work is about
// to allocate at once rather than at its next reading. Grants that come
// before it is read are one signal.
func (b *Budget) Acquired() <-chan struct{} { return b.acquired }

// Size is the budget in bytes.
func (b *Budget) Size() int64 { return b.size }

// InUse is the number of bytes held now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// TakePeak returns the most bytes held at once since the previous call
// (or since New), and starts the next period at what is held now.
func (b *Budget) TakePeak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.peak
	b.peak = b.used
	return p
}

// Acquire waits until n bytes fit in the budget behind every earlier
// waiter, and returns the function that gives them back (it may be called
// more than once; only the first call counts). n below 1 holds nothing.
// Errors: ErrTooLarge (n is more than the whole budget), a *BusyError
// (MaxWait passed first), or ctx's error.
func (b *Budget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if n <= 0 {
		return func() {}, nil
	}
	if n > b.size {
		return nil, fmt.Errorf("%w: %d bytes of %d", ErrTooLarge, n, b.size)
	}
	b.mu.Lock()
	if b.waiters.Len() == 0 && b.used+b.outside+n <= b.size {
		b.take(n)
		b.mu.Unlock()
		return b.releaser(n), nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	elem := b.waiters.PushBack(w)
	b.mu.Unlock()

	timer := time.NewTimer(b.maxWait)
	defer timer.Stop()
	var cause error
	select {
	case <-w.ready:
		return b.releaser(n), nil
	case <-ctx.Done():
		cause = ctx.Err()
	case <-timer.C:
		cause = &BusyError{RetryAfter: b.maxWait}
	}
	b.mu.Lock()
	select {
	case <-w.ready:
		// Granted while giving up: give it back.
		b.used -= n
	default:
		b.waiters.Remove(elem)
	}
	// Either way the head of the queue may fit now.
	b.grant()
	b.mu.Unlock()
	return nil, cause
}

// SetOutside records that the work holds n bytes more than it acquired,
// as its owner measures the process (the estimates of some work are
// short, or memory is held that no acquisition names): until the next
// call they count against the budget like an acquisition, so that new
// work waits for them to be given back rather than add to them. The
// estimates that are too generous offset the short ones, as the measure
// is of all the work at once. n below 0 counts as 0; the waiters that fit
// once it falls are served.
func (b *Budget) SetOutside(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.outside = max(n, 0)
	b.grant()
}

// take counts n more bytes held; b.mu is held.
func (b *Budget) take(n int64) {
	b.used += n
	b.peak = max(b.peak, b.used)
	select {
	case b.acquired <- struct{}{}:
	default:
	}
}

// grant hands the bytes to the waiters at the head of the queue that fit,
// in order, stopping at the first that does not: a waiter behind it must
// not pass it. b.mu is held.
func (b *Budget) grant() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*waiter) // the list holds nothing else
		if b.used+b.outside+w.n > b.size {
			return
		}
		b.take(w.n)
		b.waiters.Remove(e)
		close(w.ready)
	}
}

func (b *Budget) releaser(n int64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= n
			b.grant()
			b.mu.Unlock()
		})
	}
}

// Idle calls f each time, looking every interval, that nothing is held
// after at least threshold bytes were held at once since its previous
// call (or since it started). It returns when ctx ends.
func (b *Budget) Idle(ctx context.Context, every time.Duration, threshold int64, f func()) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if b.InUse() == 0 && b.TakePeak() >= threshold {
			f()
		}
	}
}
