package safefetch

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// StallError is a stream cut off for its pace; it matches ErrStalled.
type StallError struct {
	// Detail says what the pace was: "no data for 30s", "1200 bytes in
	// 1m0s, under the minimum of 32768 bytes a second".
	Detail string
}

func (e *StallError) Error() string { return ErrStalled.Error() + ": " + e.Detail }

// Is makes errors.Is(err, ErrStalled) hold.
func (e *StallError) Is(target error) bool { return target == ErrStalled }

// paced is a body whose pace a watchdog checks against a Stall: it cancels
// the request, with an ErrStalled cause, when the body goes idle or falls
// under the minimum rate. Reading sees the cancellation as an error; the
// cause says why.
type paced struct {
	io.Reader
	got  atomic.Int64 // bytes read so far
	last atomic.Int64 // when the last byte arrived, UnixNano
	done chan struct{}
	wg   sync.WaitGroup
}

// watch starts the watchdog of body under s; a zero Stall watches nothing.
// stop ends it.
func watch(body io.Reader, s Stall, cancel context.CancelCauseFunc) *paced {
	p := &paced{Reader: body, done: make(chan struct{})}
	p.last.Store(time.Now().UnixNano())
	if s.Idle <= 0 && s.MinRate <= 0 {
		return p
	}
	// Ticking at a quarter of the shortest bound finds a stall within a
	// quarter of that bound of when it happened.
	tick := s.Idle
	if s.MinRate > 0 && (tick <= 0 || s.Window < tick) {
		tick = s.Window
	}
	tick = max(tick/4, 10*time.Millisecond)
	p.wg.Go(func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		windowStart, windowBytes := time.Now(), int64(0)
		for {
			select {
			case <-p.done:
				return
			case now := <-t.C:
				if idle := now.Sub(time.Unix(0, p.last.Load())); s.Idle > 0 && idle >= s.Idle {
					cancel(&StallError{Detail: fmt.Sprintf("no data for %s", s.Idle)})
					return
				}
				if s.MinRate <= 0 || now.Sub(windowStart) < s.Window {
					continue
				}
				got, span := p.got.Load()-windowBytes, now.Sub(windowStart)
				if want := int64(float64(s.MinRate) * span.Seconds()); got < want {
					cancel(&StallError{Detail: fmt.Sprintf("%d bytes in %s, under the minimum of %d bytes a second", got, span.Round(time.Second), s.MinRate)})
					return
				}
				windowStart, windowBytes = now, p.got.Load()
			}
		}
	})
	return p
}

func (p *paced) Read(b []byte) (int, error) {
	n, err := p.Reader.Read(b)
	if n > 0 {
		p.got.Add(int64(n))
		p.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// stop ends the watchdog and waits for it.
func (p *paced) stop() {
	close(p.done)
	p.wg.Wait()
}
