package testkit

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// RunFunc is a service's entry point, as its main calls it.
type RunFunc func(ctx context.Context, getenv func(string) string, stdout io.Writer) error

// stopWithin bounds how long a stop waits for what it cancelled: a service
// that hangs on shutdown fails its test instead of running into the test
// binary's timeout.
const stopWithin = 30 * time.Second

// readyWithin bounds how long a service started in-process may take to
// become ready. Under make test's load a service built with -race loads
// dlib, Tesseract and the emoji catalogue for more than 30 s; one that
// exits early fails at once, so a long bound costs a passing test
// nothing.
const readyWithin = 2 * time.Minute

// StartService runs a service in-process with exactly env, its output in
// the test log, and waits until readyURL answers 200; a service that exits
// before it is ready fails the test at once, with its error. The returned
// stop (also run at cleanup, once) cancels it and fails the test if it did
// not stop cleanly.
func StartService(t testing.TB, name string, run RunFunc, env map[string]string, readyURL string) (stop func()) {
	t.Helper()
	out := &logWriter{t: t}
	r := launch(name, func(ctx context.Context) error { return run(ctx, Getenv(env), out) })
	stop = r.stopper(t, out.mute)
	t.Cleanup(stop)
	waitHTTP(t, readyURL, readyWithin, r)
	return stop
}

// Background runs fn until the returned stop is called or the test ends.
// stop (run once) cancels fn's ctx, waits for fn and fails the test if fn
// returned an error or did not return within 30 s.
func Background(t testing.TB, name string, fn func(ctx context.Context) error) (stop func()) {
	stop = launch(name, fn).stopper(t, func() {})
	t.Cleanup(stop)
	return stop
}

// running is a function started by launch.
type running struct {
	name   string
	cancel context.CancelFunc
	done   chan struct{} // closed once err is set
	err    error
}

func launch(name string, fn func(ctx context.Context) error) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{name: name, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = fn(ctx)
	}()
	return r
}

// exited reports whether the function has returned, and its error.
func (r *running) exited() (bool, error) {
	select {
	case <-r.done:
		return true, r.err
	default:
		return false, nil
	}
}

// stopper returns the stop of r: cancel, wait (bounded), report, then
// after.
func (r *running) stopper(t testing.TB, after func()) func() {
	return sync.OnceFunc(func() {
		r.cancel()
		select {
		case <-r.done:
			if r.err != nil {
				t.Errorf("%s stopped with: %v", r.name, r.err)
			}
		case <-time.After(stopWithin):
			t.Errorf("%s did not stop within %s of being cancelled", r.name, stopWithin)
		}
		after()
	})
}

// logWriter sends a service's log lines to the test log until it is muted:
// after its stop, when a service that did not stop may still write but the
// test may be over.
type logWriter struct {
	t     testing.TB
	muted atomic.Bool
}

func (w *logWriter) Write(b []byte) (int, error) {
	if !w.muted.Load() {
		w.t.Log(strings.TrimSpace(string(b)))
	}
	return len(b), nil
}

func (w *logWriter) mute() { w.muted.Store(true) }
