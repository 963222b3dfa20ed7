package testkit

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// RunFunc is a service's entry point, as its main calls it.
type RunFunc func(ctx context.Context, getenv func(string) string, stdout io.Writer) error

// StartService runs a service in-process with exactly env, its output in
// the test log, and waits until readyURL answers 200. The returned stop
// (also run at cleanup, once) cancels it and fails the test if it did not
// stop cleanly.
func StartService(t testing.TB, name string, run RunFunc, env map[string]string, readyURL string) (stop func()) {
	t.Helper()
	stop = Background(t, name, func(ctx context.Context) error { return run(ctx, Getenv(env), logWriter{t}) })
	WaitHTTP(t, readyURL, 30*time.Second)
	return stop
}

// Background runs fn until the returned stop is called or the test ends.
// stop (run once) cancels fn's ctx, waits for fn and fails the test if fn
// returned an error.
func Background(t testing.TB, name string, fn func(ctx context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s stopped with: %v", name, err)
		}
	})
	t.Cleanup(stop)
	return stop
}

// logWriter sends a service's log lines to the test log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
