package safefetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dialLog records every address the fetcher tried to connect to. The spy
// dialer connects only to loopback (where the httptest servers live) and
// fails the test for anything else: this machine must never send traffic to
// private ranges, and a refused address must be refused before any dial.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

func newTestFetcher(t *testing.T, cfg Config) (*Fetcher, *dialLog) {
	t.Helper()
	f := New(cfg)
	log := &dialLog{}
	real := &net.Dialer{Timeout: 5 * time.Second}
	f.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		log.mu.Lock()
		log.addrs = append(log.addrs, addr)
		log.mu.Unlock()
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Errorf("dial with unsplittable address %q", addr)
			return nil, err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			t.Errorf("dial by name %q: the fetcher must dial the checked IP", addr)
			return nil, errors.New("test: dial by name")
		}
		if !ip.IsLoopback() {
			t.Errorf("dial to non-loopback %s attempted", addr)
			return nil, errors.New("test: non-loopback dial blocked")
		}
		return real.DialContext(ctx, network, addr)
	}
	return f, log
}

// hostPort returns the "127.0.0.1:port" of a test server.
func hostPort(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func TestLoopbackRefusedWithoutAllowList(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()

	f, log := newTestFetcher(t, Config{})
	_, err := f.Get(context.Background(), srv.URL+"/x")
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("err = %v, want ErrForbiddenAddress", err)
	}
	if !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("error %q does not name the URL", err)
	}
	if hits.Load() != 0 || len(log.list()) != 0 {
		t.Errorf("server hits = %d, dials = %v; want none", hits.Load(), log.list())
	}
}

func TestLoopbackAllowedWithAllowList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, "/img", http.StatusFound)
		case "/img":
			// A lazy server: generic type, so the fetcher must sniff.
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(pngMagic)
		case "/text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write(pngMagic)
		}
	}))
	defer srv.Close()

	f, log := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}})
	resp, err := f.Get(context.Background(), srv.URL+"/start")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if resp.URL != srv.URL+"/img" {
		t.Errorf("final URL = %q, want %q", resp.URL, srv.URL+"/img")
	}
	if resp.ContentType != "image/png" {
		t.Errorf("sniffed content type = %q, want image/png", resp.ContentType)
	}
	if !bytes.Equal(resp.Body, pngMagic) {
		t.Errorf("body = %q", resp.Body)
	}
	for _, a := range log.list() {
		if a != hostPort(t, srv) {
			t.Errorf("dialled %q, want only the allowed server", a)
		}
	}

	resp, err = f.Get(context.Background(), srv.URL+"/text")
	if err != nil {
		t.Fatalf("Get /text: %v", err)
	}
	if resp.ContentType != "text/plain; charset=utf-8" {
		t.Errorf("specific server type was replaced: %q", resp.ContentType)
	}
}

func TestAllowListForms(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(hostPort(t, srv))

	for _, allow := range []string{"127.0.0.1", "127.0.0.0/8", "127.0.0.1:" + port} {
		f, _ := newTestFetcher(t, Config{AllowHosts: []string{allow}})
		if _, err := f.Get(context.Background(), srv.URL); err != nil {
			t.Errorf("allow %q: %v", allow, err)
		}
	}
	// An allow entry for another port does not open this one.
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{"127.0.0.1:1"}})
	if _, err := f.Get(context.Background(), srv.URL); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("allow on other port: err = %v, want ErrForbiddenAddress", err)
	}
	// Deny wins over allow.
	f, log := newTestFetcher(t, Config{AllowHosts: []string{"127.0.0.0/8"}, DenyHosts: []string{"127.0.0.1:" + port}})
	if _, err := f.Get(context.Background(), srv.URL); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("deny over allow: err = %v, want ErrForbiddenAddress", err)
	}
	if len(log.list()) != 0 {
		t.Errorf("denied host was dialled: %v", log.list())
	}
}

func TestRedirectToForbiddenRefused(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { otherHits.Add(1) }))
	defer other.Close()

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/private":
			http.Redirect(w, r, "http://10.0.0.1/admin", http.StatusMovedPermanently)
		case "/other-loopback":
			// Loopback, but not on the allow-list: caught by the dial check.
			http.Redirect(w, r, other.URL+"/", http.StatusTemporaryRedirect)
		case "/localhost":
			http.Redirect(w, r, "http://localhost:"+strings.Split(hostPort(t, other), ":")[1]+"/", http.StatusFound)
		case "/ftp":
			http.Redirect(w, r, "ftp://example.com/file", http.StatusFound)
		}
	}))
	defer srv.Close()

	f, log := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}})
	tests := []struct {
		path string
		want error
	}{
		{"/metadata", ErrForbiddenAddress},
		{"/private", ErrForbiddenAddress},
		{"/other-loopback", ErrForbiddenAddress},
		{"/localhost", ErrForbiddenAddress},
		{"/ftp", ErrScheme},
	}
	for _, tc := range tests {
		_, err := f.Get(context.Background(), srv.URL+tc.path)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.path, err, tc.want)
		}
	}
	if otherHits.Load() != 0 {
		t.Errorf("forbidden redirect target was reached %d times", otherHits.Load())
	}
	for _, a := range log.list() {
		if a != hostPort(t, srv) {
			t.Errorf("dialled %q after a refused redirect", a)
		}
	}
}

func TestRedirectCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusFound)
	}))
	defer srv.Close()
	allow := []string{hostPort(t, srv)}

	f, _ := newTestFetcher(t, Config{AllowHosts: allow, MaxRedirects: 2})
	if _, err := f.Get(context.Background(), srv.URL+"/hop/0"); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("MaxRedirects 2: err = %v, want ErrTooManyRedirects", err)
	}
	f, _ = newTestFetcher(t, Config{AllowHosts: allow, MaxRedirects: -1})
	if _, err := f.Get(context.Background(), srv.URL+"/hop/0"); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("MaxRedirects -1: err = %v, want ErrTooManyRedirects", err)
	}
}

func TestForbiddenLiteralsRefusedWithoutTraffic(t *testing.T) {
	f, log := newTestFetcher(t, Config{})
	f.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		t.Errorf("literal address caused a DNS lookup of %q", host)
		return nil, errors.New("test: no lookups")
	}
	urls := []string{
		"http://10.0.0.1/",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::1]/",
		"http://192.168.1.1/",
		"http://172.16.0.1/",
		"https://127.0.0.1:8443/",
		"http://0.0.0.0/",
		"http://100.64.0.1/",
		"http://[fd00:ec2::254]/",
		"http://[fe80::1%25eth0]/",
		"http://[::ffff:10.0.0.1]/",
		"http://[64:ff9b::a9fe:a9fe]/",
		"http://224.0.0.1/",
		"http://255.255.255.255/",
	}
	for _, u := range urls {
		if _, err := f.Get(context.Background(), u); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("dials attempted: %v", got)
	}
}

// TestDialCheckIsAuthoritative calls the dial hook directly, as the transport
// would, to show the check holds even if the pre-request URL check were
// bypassed.
func TestDialCheckIsAuthoritative(t *testing.T) {
	f, log := newTestFetcher(t, Config{})
	for _, addr := range []string{"10.0.0.1:80", "[::1]:443", "169.254.169.254:80", "172.16.0.1:80", "192.168.1.1:80"} {
		conn, err := f.dialContext(context.Background(), "tcp", addr)
		if conn != nil {
			_ = conn.Close()
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("dialContext(%s): err = %v, want ErrForbiddenAddress", addr, err)
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("dials attempted: %v", got)
	}
}

func TestHostnamesResolvingToForbiddenRefused(t *testing.T) {
	// Real resolver: localhost comes from /etc/hosts.
	f, log := newTestFetcher(t, Config{})
	if _, err := f.Get(context.Background(), "http://localhost:9/"); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("localhost: err = %v, want ErrForbiddenAddress", err)
	}

	// Fake resolver for names an attacker controls.
	f.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "rebind.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "mixed.test":
			// One public and one private address: refuse the name outright.
			return []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("10.1.2.3")}, nil
		case "meta.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		return nil, fmt.Errorf("test: unknown host %q", host)
	}
	for _, u := range []string{"http://rebind.test/", "http://mixed.test/", "http://META.test./x"} {
		if _, err := f.Get(context.Background(), u); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("dials attempted: %v", got)
	}
}

func TestDialsTheCheckedIP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(hostPort(t, srv))

	f, log := newTestFetcher(t, Config{AllowHosts: []string{"127.0.0.1"}})
	var lookups atomic.Int32
	f.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		lookups.Add(1)
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	resp, err := f.Get(context.Background(), "http://files.test:"+port+"/")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if string(resp.Body) != "ok" {
		t.Errorf("body = %q", resp.Body)
	}
	// The spy fails the test if a name were dialled; check the target too.
	if got := log.list(); len(got) != 1 || got[0] != "127.0.0.1:"+port {
		t.Errorf("dials = %v, want exactly the resolved and checked IP", got)
	}
	if lookups.Load() != 1 {
		t.Errorf("lookups = %d, want 1 (a second resolution is a rebinding window)", lookups.Load())
	}
}

func TestDenyHostsByName(t *testing.T) {
	f, log := newTestFetcher(t, Config{DenyHosts: []string{"billing.internal", "gateway.internal:8080"}})
	f.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		t.Errorf("denied host %q was resolved", host)
		return nil, errors.New("test: no lookups")
	}
	for _, u := range []string{"http://billing.internal/", "http://Billing.Internal./x", "http://gateway.internal:8080/"} {
		if _, err := f.Get(context.Background(), u); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("dials attempted: %v", got)
	}
}

func TestSizeCap(t *testing.T) {
	const limit = 1024
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/exact":
			_, _ = w.Write(bytes.Repeat([]byte("a"), limit))
		case "/over-chunked":
			// Flushing first forces chunked encoding: no Content-Length to
			// trust, so the read cap must catch it.
			w.(http.Flusher).Flush()
			_, _ = w.Write(bytes.Repeat([]byte("a"), limit+1))
		case "/declared":
			w.Header().Set("Content-Length", "999999")
			_, _ = w.Write(bytes.Repeat([]byte("a"), 10))
		}
	}))
	defer srv.Close()
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}, MaxBytes: limit})

	resp, err := f.Get(context.Background(), srv.URL+"/exact")
	if err != nil {
		t.Fatalf("exact limit: %v", err)
	}
	if len(resp.Body) != limit {
		t.Errorf("body length = %d, want %d", len(resp.Body), limit)
	}
	for _, p := range []string{"/over-chunked", "/declared"} {
		if _, err := f.Get(context.Background(), srv.URL+p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", p, err)
		}
	}
}

func TestStatus(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}})
	_, err := f.Get(context.Background(), srv.URL+"/missing.png")
	if !errors.Is(err, ErrStatus) {
		t.Fatalf("err = %v, want ErrStatus", err)
	}
	if !strings.Contains(err.Error(), "/missing.png") || !strings.Contains(err.Error(), "404") {
		t.Errorf("error %q lacks URL or status", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	f, _ := newTestFetcher(t, Config{AllowHosts: []string{hostPort(t, srv)}, Timeout: 100 * time.Millisecond})
	// The caller's deadline only catches a hang: the fetch must end on the
	// fetcher's own timeout, while the caller's ctx is still live.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f.Get(ctx, srv.URL); err == nil {
		t.Fatal("slow server did not time out")
	}
	if ctx.Err() != nil {
		t.Errorf("the fetch waited for the caller's 30 s deadline; its own timeout is 100 ms")
	}
}

func TestSchemeAndSyntax(t *testing.T) {
	f, log := newTestFetcher(t, Config{})
	tests := []struct {
		url  string
		want error
	}{
		{"ftp://example.com/file", ErrScheme},
		{"file:///etc/passwd", ErrScheme},
		{"gopher://example.com/", ErrScheme},
		{"//example.com/x", ErrScheme},
		{"http://user:pass@example.com/", ErrInvalidURL},
		{"http:///nohost", ErrInvalidURL},
		{"http://example.com:99999/", ErrInvalidURL},
		{"http://exa mple.com/", ErrInvalidURL},
	}
	for _, tc := range tests {
		if _, err := f.Get(context.Background(), tc.url); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.url, err, tc.want)
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Errorf("dials attempted: %v", got)
	}
}

func TestNonPublic(t *testing.T) {
	forbidden := []string{
		"127.0.0.1", "127.255.0.1", "::1", "10.0.0.1", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "fc00::1", "fd12:3456::1", "169.254.1.1", "169.254.169.254",
		"fe80::1", "fd00:ec2::254", "0.0.0.0", "::", "224.0.0.1", "ff02::1",
		"100.64.0.1", "100.127.255.255", "::ffff:127.0.0.1", "64:ff9b::7f00:1",
		"2002:0a00:0001::1", "255.255.255.255", "::127.0.0.1",
	}
	for _, s := range forbidden {
		if nonPublic(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s considered public", s)
		}
	}
	public := []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "64:ff9b::808:808", "2002:0808:0808::1"}
	for _, s := range public {
		if reason := nonPublic(netip.MustParseAddr(s)); reason != "" {
			t.Errorf("%s refused as %s", s, reason)
		}
	}
}

func TestConfig(t *testing.T) {
	c := Config{}.withDefaults()
	if c.Timeout != 10*time.Second || c.MaxBytes != 5<<20 || c.MaxRedirects != 5 {
		t.Errorf("defaults = %+v", c)
	}
	good := Config{
		AllowHosts: []string{"127.0.0.1", "[::1]:8080", "10.0.0.0/8", "minio", "minio:9000", "::1"},
		DenyHosts:  []string{"billing.internal", "fd00::/8"},
	}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate(good): %v", err)
	}
	bad := Config{AllowHosts: []string{"10.0.0.0/33"}, DenyHosts: []string{"http://x", "host:0", ""}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("Validate(bad) = nil")
	}
	for _, want := range []string{"10.0.0.0/33", "http://x", "host:0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error %q does not mention %q", err, want)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"http://example.com/a.png", "https://[::1]:443/", "ftp://x", "http://u:p@h/",
		"http://10.0.0.1", "HTTP://EXAMPLE.COM", "http://%zz", "http://h:0/", "\thttps://x.y ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := parseURL(raw)
		if err != nil {
			if !errors.Is(err, ErrScheme) && !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("parseURL(%q) error %v wraps no sentinel", raw, err)
			}
			return
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			t.Fatalf("accepted scheme %q", u.Scheme)
		}
		if u.User != nil {
			t.Fatalf("accepted userinfo in %q", raw)
		}
		if u.Hostname() == "" {
			t.Fatalf("accepted empty host in %q", raw)
		}
		// What we accept must survive the round trip through the request
		// builder, or Get would fail later with a less useful error.
		if _, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u.String(), nil); err != nil {
			t.Fatalf("accepted %q but request building fails: %v", raw, err)
		}
	})
}
