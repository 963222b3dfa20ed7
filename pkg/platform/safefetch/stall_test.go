package safefetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// pacedServer serves /drip (2 bytes every 100 ms, for ever), /pause (a
// kilobyte, then nothing), /short (declares 4096 bytes, sends 100 and
// hangs up), /cut (a chunked body cut mid-chunk) and /whole (a kilobyte
// at once).
func pacedServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/drip":
			for {
				if _, err := w.Write([]byte("ab")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(100 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
		case "/pause":
			_, _ = w.Write(bytes.Repeat([]byte("a"), 1024))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/short":
			w.Header().Set("Content-Length", "4096")
			_, _ = w.Write(bytes.Repeat([]byte("a"), 100))
		case "/cut":
			w.(http.Flusher).Flush()
			_, _ = w.Write(bytes.Repeat([]byte("a"), 100))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_, _ = conn.Write([]byte("400\r\nabc"))
				_ = conn.Close()
			}
		case "/whole":
			_, _ = w.Write(bytes.Repeat([]byte("a"), 1024))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamStalls(t *testing.T) {
	srv := pacedServer(t)
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)},
		Stall: Stall{Idle: 300 * time.Millisecond, MinRate: 1000, Window: 600 * time.Millisecond}})
	for path, want := range map[string]string{"/drip": "under the minimum of 1000 bytes a second", "/pause": "no data for 300ms"} {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, n, err := f.Stream(ctx, srv.URL+path, io.Discard, 1<<20)
		cancel()
		var se *StallError
		if !errors.Is(err, ErrStalled) || !errors.As(err, &se) || !strings.Contains(se.Detail, want) {
			t.Errorf("%s: %d bytes, err %v; want a StallError saying %q", path, n, err, want)
		}
		// Generous: the bound is a second, a stall without it lasts for ever.
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: the stall took %s to be noticed", path, d)
		}
	}
	var got bytes.Buffer
	if _, n, err := f.Stream(context.Background(), srv.URL+"/whole", &got, 1<<20); err != nil || n != 1024 || got.Len() != 1024 {
		t.Errorf("a whole body: %d bytes, %v", n, err)
	}
}

// Without a Stall only the context bounds a stream: a slow body is read
// to its end.
func TestStreamWithoutStallWaits(t *testing.T) {
	srv := pacedServer(t)
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}})
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, n, err := f.Stream(ctx, srv.URL+"/drip", io.Discard, 1<<20)
	if errors.Is(err, ErrStalled) || !errors.Is(err, context.DeadlineExceeded) || n < 6 {
		t.Errorf("%d bytes, err %v; want the deadline after some bytes", n, err)
	}
}

func TestStreamEndedEarly(t *testing.T) {
	srv := pacedServer(t)
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}})
	for path, want := range map[string]string{"/short": "sent 100 of the 4096 bytes it declared", "/cut": "was cut after"} {
		_, _, err := f.Stream(context.Background(), srv.URL+path, io.Discard, 1<<20)
		if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v; want ErrTruncated saying %q", path, err, want)
		}
	}
}

func TestStallValidate(t *testing.T) {
	for _, s := range []Stall{{Idle: -1}, {MinRate: -1}, {MinRate: 10}, {Window: -time.Second}} {
		if (Config{Stall: s}).Validate() == nil {
			t.Errorf("%+v passed", s)
		}
	}
	if err := (Config{Stall: Stall{Idle: time.Second, MinRate: 10, Window: time.Minute}}).Validate(); err != nil {
		t.Error(err)
	}
}
