// Package safefetch is the one way Hookline fetches a URL that came from a
// request (ARCHITECTURE §5). Such URLs are attacker-controlled, so the fetcher
// refuses anything but http(s), refuses to connect to loopback, private,
// link-local, metadata and other non-public addresses, re-checks every
// redirect, and caps time and size. A stream (a media download) is also
// bounded in pace: a server that stops sending, or drips bytes, is cut off
// (Config.Stall) rather than allowed to hold a worker for the whole
// download timeout, and a body that ends before its declared length is an
// error, never a short file taken for the whole.
//
// The address check runs at dial time, on the very IPs the connection is then
// made to. Checking a hostname before the request and letting the transport
// resolve it again would let DNS rebinding swap in an internal address
// between the check and the connection.
package safefetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hookline.dev/pkg/platform/telemetry"
)

// Sentinel errors. Get wraps them with the URL and the reason, so callers can
// both test with errors.Is and show the user which URL was refused.
var (
	// ErrScheme: the URL is not http or https.
	ErrScheme = errors.New("safefetch: scheme not allowed")
	// ErrInvalidURL: the URL cannot be parsed, has no host, or has userinfo.
	ErrInvalidURL = errors.New("safefetch: invalid url")
	// ErrForbiddenAddress: the host is, or resolves to, a non-public or denied address.
	ErrForbiddenAddress = errors.New("safefetch: forbidden address")
	// ErrTooManyRedirects: the redirect chain exceeded Config.MaxRedirects.
	ErrTooManyRedirects = errors.New("safefetch: too many redirects")
	// ErrTooLarge: the body exceeds Config.MaxBytes.
	ErrTooLarge = errors.New("safefetch: response too large")
	// ErrStatus: the final response was not 2xx.
	ErrStatus = errors.New("safefetch: unexpected status")
	// ErrStalled: a stream received no byte for Stall.Idle, or less than
	// Stall.MinRate bytes a second over a Stall.Window (a *StallError).
	ErrStalled = errors.New("safefetch: download stalled")
	// ErrTruncated: a stream's body ended before the length the server
	// declared (the connection closed early, or a chunked body was cut).
	ErrTruncated = errors.New("safefetch: the body ended early")
)

// Defaults applied by Config.withDefaults.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultMaxBytes     = 5 << 20
	DefaultMaxRedirects = 5
)

// Config tunes a Fetcher. The zero value is usable.
type Config struct {
	// Timeout bounds the whole fetch, body included. Default 10s.
	Timeout time.Duration
	// MaxBytes caps the body. Default 5 MB.
	MaxBytes int64
	// MaxRedirects caps the redirect chain. 0 means the default (5); a
	// negative value follows no redirects at all.
	MaxRedirects int
	// AllowHosts lists hosts ("name"), host:port pairs ("127.0.0.1:8080"),
	// addresses or CIDR prefixes that may be reached even though they are not
	// public. It exists for tests and local fakes; production leaves it empty.
	AllowHosts []string
	// DenyHosts lists our own internal hosts in the same forms. A deny entry
	// wins over an allow entry, since it names something that must never be
	// fetched on a user's behalf.
	DenyHosts []string
	// Stall bounds the pace of a Stream (zero: only its context does).
	Stall Stall
}

// Stall is the least pace a Stream must keep once the server has answered.
// A download that keeps a slot of a shared worker must be making progress:
// waiting out a whole download timeout for a server that sends nothing,
// or two bytes a second, would let one source starve every other.
type Stall struct {
	// Idle fails a stream that receives no byte for this long (0: never).
	Idle time.Duration
	// MinRate fails a stream that receives, over a Window, less than
	// MinRate bytes a second on average (0: no minimum).
	MinRate int64
	// Window is the span MinRate is averaged over: every consecutive
	// Window since the answer's headers must carry MinRate×Window bytes.
	Window time.Duration
}

// Validate reports a negative bound, or a MinRate without a Window.
func (s Stall) Validate() error {
	if s.Idle < 0 || s.MinRate < 0 || s.Window < 0 {
		return errors.New("safefetch: the stall bounds must not be negative")
	}
	if s.MinRate > 0 && s.Window == 0 {
		return errors.New("safefetch: a minimum rate needs the window it is averaged over")
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	return c
}

// Validate reports malformed AllowHosts or DenyHosts entries. New ignores
// entries it cannot parse, which for DenyHosts would silently weaken the
// policy, so services should call Validate when loading configuration.
func (c Config) Validate() error {
	errs := []error{c.Stall.Validate()}
	for _, list := range []struct {
		name    string
		entries []string
	}{{"AllowHosts", c.AllowHosts}, {"DenyHosts", c.DenyHosts}} {
		for _, e := range list.entries {
			if _, err := parseRule(e); err != nil {
				errs = append(errs, fmt.Errorf("safefetch: %s entry %q: %w", list.name, e, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Response is a successfully fetched resource.
type Response struct {
	// URL is the final URL after redirects.
	URL string
	// ContentType is the server's Content-Type, or a sniffed one when the
	// server sent none or only a generic binary type.
	ContentType string
	Body        []byte
}

// Fetcher performs safe GETs. It is safe for concurrent use.
type Fetcher struct {
	cfg    Config
	allow  []rule
	deny   []rule
	client *http.Client
	// streamer is client without the overall timeout, for Stream.
	streamer *http.Client

	// lookup and dial are fields so tests can observe or fake them; they
	// default to the system resolver and a plain net.Dialer.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
}

// New returns a Fetcher for cfg. Malformed host entries are skipped; see
// Config.Validate.
func New(cfg Config) *Fetcher {
	cfg = cfg.withDefaults()
	f := &Fetcher{cfg: cfg}
	f.allow = parseRules(cfg.AllowHosts)
	f.deny = parseRules(cfg.DenyHosts)

	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	f.dial = dialer.DialContext
	f.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}

	base := &http.Transport{
		// Never honour HTTP(S)_PROXY: a proxy would make the connection for
		// us and the dial-time address check would see only the proxy.
		Proxy:                 nil,
		DialContext:           f.dialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	// A client span per request (and per redirect hop).
	transport := telemetry.Transport(base)
	f.client = &http.Client{
		Transport:     transport,
		Timeout:       cfg.Timeout,
		CheckRedirect: f.checkRedirect,
	}
	// Streams (media downloads) take longer than any page: only their
	// context bounds them, while connecting stays bounded by the transport.
	f.streamer = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	return f
}

// Get fetches rawURL and returns its body, refusing unsafe targets. Errors
// wrap ErrScheme, ErrInvalidURL, ErrForbiddenAddress, ErrTooManyRedirects,
// ErrTooLarge or ErrStatus when the failure is the URL's fault, and otherwise
// carry the network error.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (*Response, error) {
	return f.read(ctx, http.MethodGet, rawURL, "", nil)
}

// Post sends body to rawURL (an API of a site a user named, such as a
// video site's player API) with the same checks and limits as Get.
func (f *Fetcher) Post(ctx context.Context, rawURL, contentType string, body []byte) (*Response, error) {
	return f.read(ctx, http.MethodPost, rawURL, contentType, body)
}

func (f *Fetcher) read(ctx context.Context, method, rawURL, reqType string, body []byte) (*Response, error) {
	resp, err := f.open(ctx, method, rawURL, reqType, body)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	final := resp.Request.URL.String()
	if resp.ContentLength > f.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: %s declares %d bytes, limit %d", ErrTooLarge, final, resp.ContentLength, f.cfg.MaxBytes)
	}
	// Read one byte past the limit: that is the only way to tell "exactly at
	// the limit" from "over it" without trusting Content-Length.
	data, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("safefetch: read body of %s: %w", final, err)
	}
	if int64(len(data)) > f.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: %s exceeds %d bytes", ErrTooLarge, final, f.cfg.MaxBytes)
	}
	return &Response{
		URL:         final,
		ContentType: contentType(resp.Header.Get("Content-Type"), data),
		Body:        data,
	}, nil
}

// Stream copies rawURL's body to w, at most maxBytes of it (a download of
// media, far over the in-memory limit), and returns the content type the
// server declared and the bytes written. The fetcher's Timeout does not
// bound a stream; ctx and Config.Stall do. Errors add ErrStalled and
// ErrTruncated to Get's.
func (f *Fetcher) Stream(ctx context.Context, rawURL string, w io.Writer, maxBytes int64) (string, int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	resp, err := f.openWith(ctx, f.streamer, http.MethodGet, rawURL, "", nil)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	final := resp.Request.URL.String()
	if resp.ContentLength > maxBytes {
		return "", 0, fmt.Errorf("%w: %s declares %d bytes, limit %d", ErrTooLarge, final, resp.ContentLength, maxBytes)
	}
	body := watch(resp.Body, f.cfg.Stall, cancel)
	n, err := io.Copy(w, io.LimitReader(body, maxBytes+1))
	body.stop()
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, ErrStalled) {
		return "", n, fmt.Errorf("%w (%s)", cause, final)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		if resp.ContentLength > 0 {
			return "", n, fmt.Errorf("%w: %s sent %d of the %d bytes it declared", ErrTruncated, final, n, resp.ContentLength)
		}
		return "", n, fmt.Errorf("%w: %s was cut after %d bytes", ErrTruncated, final, n)
	}
	if err != nil {
		return "", n, fmt.Errorf("safefetch: read body of %s: %w", final, err)
	}
	if n > maxBytes {
		return "", n, fmt.Errorf("%w: %s exceeds %d bytes", ErrTooLarge, final, maxBytes)
	}
	return resp.Header.Get("Content-Type"), n, nil
}

// Head returns the final URL, declared content type and length of rawURL
// without reading its body: a ranged GET of one byte, which every media
// server answers (many refuse HEAD).
func (f *Fetcher) Head(ctx context.Context, rawURL string) (finalURL, contentType string, size int64, err error) {
	resp, err := f.open(ctx, http.MethodGet, rawURL, "", nil, "Range", "bytes=0-0")
	if err != nil {
		return "", "", 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	size = resp.ContentLength
	if cr := resp.Header.Get("Content-Range"); cr != "" {
		if i := strings.LastIndexByte(cr, '/'); i >= 0 {
			if n, perr := strconv.ParseInt(cr[i+1:], 10, 64); perr == nil {
				size = n
			}
		}
	}
	return resp.Request.URL.String(), resp.Header.Get("Content-Type"), size, nil
}

// open checks rawURL and sends the request through the fetcher's client;
// a non-2xx answer is ErrStatus. The caller closes the body.
func (f *Fetcher) open(ctx context.Context, method, rawURL, contentType string, body []byte, header ...string) (*http.Response, error) {
	return f.openWith(ctx, f.client, method, rawURL, contentType, body, header...)
}

func (f *Fetcher) openWith(ctx context.Context, client *http.Client, method, rawURL, contentType string, body []byte, header ...string) (*http.Response, error) {
	resp, err := f.do(ctx, client, method, rawURL, contentType, body, header...)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Drain a little so the connection can be reused for the next fetch.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		_ = resp.Body.Close()
		return nil, &StatusError{URL: resp.Request.URL.String(), Code: resp.StatusCode}
	}
	return resp, nil
}

// do checks rawURL and sends the request; any status is an answer.
func (f *Fetcher) do(ctx context.Context, client *http.Client, method, rawURL, contentType string, body []byte, header ...string) (*http.Response, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if err := f.checkURL(u); err != nil {
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("safefetch: build request for %s: %w", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", "Hookline-Fetcher/1")
	req.Header.Set("Accept", "*/*")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error already names the method and URL; it unwraps to our
		// sentinels when the dial check or CheckRedirect refused.
		return nil, fmt.Errorf("safefetch: %w", err)
	}
	return resp, nil
}

// Answer is the reply to Send, whatever its status.
type Answer struct {
	Status int
	// Body is the start of the reply's body, at most Send's maxRead bytes;
	// the rest was discarded unread.
	Body []byte
}

// Send posts body to rawURL with header (name, value pairs) under the
// same checks as Get (the address is checked again at this very dial, so
// a name that rebinds to an internal address since it was last checked is
// refused) and returns the answer whatever its status: a webhook delivery
// judges the status itself. At most maxRead bytes of the reply are read;
// a longer reply is not an error. Errors are Get's, except ErrStatus and
// ErrTooLarge, which Send never returns.
func (f *Fetcher) Send(ctx context.Context, rawURL, contentType string, body []byte, maxRead int64, header ...string) (Answer, error) {
	resp, err := f.do(ctx, f.client, http.MethodPost, rawURL, contentType, body, header...)
	if err != nil {
		return Answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, max(maxRead, 0)))
	if err != nil {
		return Answer{Status: resp.StatusCode}, fmt.Errorf("safefetch: read answer of %s: %w", resp.Request.URL.Redacted(), err)
	}
	return Answer{Status: resp.StatusCode, Body: data}, nil
}

// Check applies every check a fetch of rawURL would (scheme, host, each
// address the name resolves to now) without sending anything: a URL kept
// to be fetched later is refused when it is given. The fetch checks again;
// DNS may have changed by then.
func (f *Fetcher) Check(ctx context.Context, rawURL string) error {
	u, err := parseURL(rawURL)
	if err != nil {
		return err
	}
	if err := f.checkURL(u); err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	name := normalizeHost(u.Hostname())
	if matchAny(f.deny, name, netip.Addr{}, port) {
		return fmt.Errorf("%w: %s is a denied host", ErrForbiddenAddress, u.Redacted())
	}
	allowedName := matchAny(f.allow, name, netip.Addr{}, port)
	if _, err := netip.ParseAddr(name); err == nil {
		return nil // a literal address: checkURL judged it
	}
	ips, err := f.lookup(ctx, name)
	if err != nil {
		return fmt.Errorf("%w: %s does not resolve: %w", ErrInvalidURL, u.Redacted(), err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("%w: %s resolves to no address", ErrInvalidURL, u.Redacted())
	}
	for _, ip := range ips {
		if err := f.checkAddr(name, port, ip, allowedName); err != nil {
			return fmt.Errorf("%w (%s resolves to it)", err, u.Redacted())
		}
	}
	return nil
}

// StatusError is a non-2xx answer; it matches ErrStatus.
type StatusError struct {
	URL  string
	Code int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: %s returned %d", ErrStatus, e.URL, e.Code)
}

// Is makes errors.Is(err, ErrStatus) hold.
func (e *StatusError) Is(target error) bool { return target == ErrStatus }

// contentType keeps a specific server-declared type and sniffs otherwise.
// Callers still verify magic bytes for anything they decode (§5); this only
// makes the reported type useful when servers are lazy.
func contentType(header string, body []byte) string {
	mt, _, err := mime.ParseMediaType(header)
	if header == "" || err != nil || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		return http.DetectContentType(body)
	}
	return header
}

// parseURL does the syntactic checks that need no policy or network.
func parseURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrInvalidURL, rawURL, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return nil, fmt.Errorf("%w: %q in %s", ErrScheme, u.Scheme, u.Redacted())
	}
	if u.User != nil {
		// Credentials in a user URL would be sent to the target on our
		// behalf, and they are a classic parser-confusion vector.
		return nil, fmt.Errorf("%w: userinfo not allowed in %s", ErrInvalidURL, u.Redacted())
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%w: no host in %q", ErrInvalidURL, rawURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: bad port %q in %q", ErrInvalidURL, p, rawURL)
		}
	}
	return u, nil
}

// checkURL refuses denied hosts and literal non-public addresses before any
// request is made. It is an early, clearer refusal; the authoritative check is
// the one in dialContext.
func (f *Fetcher) checkURL(u *url.URL) error {
	name := normalizeHost(u.Hostname())
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	ip, err := netip.ParseAddr(name)
	if err != nil {
		if matchAny(f.deny, name, netip.Addr{}, port) {
			return fmt.Errorf("%w: %s is a denied host", ErrForbiddenAddress, u.Redacted())
		}
		return nil
	}
	if err := f.checkAddr(name, port, ip, false); err != nil {
		return fmt.Errorf("%w (in %s)", err, u.Redacted())
	}
	return nil
}

// checkRedirect re-applies the URL checks to each hop and caps the chain.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if f.cfg.MaxRedirects < 0 || len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, max(f.cfg.MaxRedirects, 0))
	}
	u, err := parseURL(req.URL.String())
	if err != nil {
		return fmt.Errorf("redirect refused: %w", err)
	}
	if err := f.checkURL(u); err != nil {
		return fmt.Errorf("redirect refused: %w", err)
	}
	return nil
}

// dialContext resolves the host itself, checks every address, and connects
// only to checked addresses. If any address of a name is forbidden the whole
// name is refused: a name that mixes public and private addresses is either
// misconfigured or an attack, and trying the public one first would make the
// outcome depend on ordering.
func (f *Fetcher) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: dial address %q: %w", ErrInvalidURL, addr, err)
	}
	name := normalizeHost(host)
	if matchAny(f.deny, name, netip.Addr{}, port) {
		return nil, fmt.Errorf("%w: %s is a denied host", ErrForbiddenAddress, host)
	}
	allowedName := matchAny(f.allow, name, netip.Addr{}, port)

	var ips []netip.Addr
	if ip, err := netip.ParseAddr(name); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = f.lookup(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("safefetch: resolve %s: %w", host, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("safefetch: resolve %s: no addresses", host)
		}
	}
	for _, ip := range ips {
		if err := f.checkAddr(name, port, ip, allowedName); err != nil {
			if ip.String() != name {
				return nil, fmt.Errorf("%w (%s resolves to it)", err, host)
			}
			return nil, err
		}
	}

	var errs []error
	for _, ip := range ips {
		// Dial the checked IP, never the name: a second resolution here is
		// exactly what a rebinding DNS server would exploit.
		conn, err := f.dial(ctx, network, net.JoinHostPort(ip.Unmap().WithZone("").String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("safefetch: connect %s: %w", addr, errors.Join(errs...))
}

// checkAddr applies deny, allow and the built-in non-public ranges to one IP.
func (f *Fetcher) checkAddr(name, port string, ip netip.Addr, allowedName bool) error {
	ip = ip.Unmap().WithZone("")
	if matchAny(f.deny, name, ip, port) {
		return fmt.Errorf("%w: %s is denied", ErrForbiddenAddress, ip)
	}
	if allowedName || matchAny(f.allow, name, ip, port) {
		return nil
	}
	if reason := nonPublic(ip); reason != "" {
		return fmt.Errorf("%w: %s is %s", ErrForbiddenAddress, ip, reason)
	}
	return nil
}

// normalizeHost lower-cases a host and drops a trailing dot, so "LocalHost."
// and "localhost" match the same rules.
func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}
