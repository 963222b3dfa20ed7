package safefetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// Check refuses what a fetch would refuse, resolving names now, and
// sends nothing.
func TestCheck(t *testing.T) {
	f, log := newTestFetcher(t, Config{})
	f.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "public.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "rebind.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.7")}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, c := range []struct {
		url  string
		want error
	}{
		{"https://public.example/hook", nil},
		{"https://rebind.example/hook", ErrForbiddenAddress},
		{"http://127.0.0.1:9/hook", ErrForbiddenAddress},
		{"http://[::1]/hook", ErrForbiddenAddress},
		{"http://169.254.169.254/latest", ErrForbiddenAddress},
		{"ftp://public.example/", ErrScheme},
		{"https://nowhere.example/", ErrInvalidURL},
	} {
		err := f.Check(context.Background(), c.url)
		if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("Check(%s) = %v, want %v", c.url, err, c.want)
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Fatalf("Check dialled %v", got)
	}
	allowed, _ := newTestFetcher(t, Config{AllowHosts: []string{"127.0.0.1"}})
	if err := allowed.Check(context.Background(), "http://127.0.0.1:9/hook"); err != nil {
		t.Fatalf("allow-listed loopback: %v", err)
	}
}

// Send returns any status as an answer, passes the headers, and reads no
// more of the reply than asked.
func TestSend(t *testing.T) {
	var got http.Header
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, strings.Repeat("x", 10_000))
	}))
	defer srv.Close()
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{"127.0.0.1"}})
	a, err := f.Send(context.Background(), srv.URL, "application/json", []byte(`{"a":1}`), 100, "Webhook-Id", "msg_1")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != 503 || len(a.Body) != 100 || body != `{"a":1}` || got.Get("Webhook-Id") != "msg_1" || got.Get("Content-Type") != "application/json" {
		t.Fatalf("answer %d (%d bytes), sent %q with %v", a.Status, len(a.Body), body, got)
	}
	refused, _ := newTestFetcher(t, Config{})
	if _, err := refused.Send(context.Background(), srv.URL, "application/json", nil, 100); !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("loopback without the allow-list: %v", err)
	}
}
