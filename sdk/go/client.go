package hookline

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultBaseURL is the gateway `make up` starts.
const DefaultBaseURL = "http://127.0.0.1:8080"

// Version is the SDK's version, sent in the User-Agent.
const Version = "0.1.0"

// Client calls the Hookline API. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	apiKey     string
	adminToken string
	http       *http.Client
	userAgent  string
	retry      RetryPolicy
	// sleep waits between attempts; tests replace it to see the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client) error

// WithBaseURL sets the gateway's address. Both the origin
// (http://127.0.0.1:8080) and the public API's base
// (http://127.0.0.1:8080/api/v1, as `make up` prints it) are accepted.
func WithBaseURL(raw string) Option {
	return func(c *Client) error {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("hookline: base URL %q is not an absolute http(s) URL", raw)
		}
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v1")
		u.RawQuery, u.Fragment = "", ""
		c.base = u
		return nil
	}
}

// WithAPIKey sets the organization's API key (hk_live_…), sent on every
// public /api/v1 call.
func WithAPIKey(key string) Option {
	return func(c *Client) error { c.apiKey = key; return nil }
}

// WithAdminToken sets the operator's admin token, sent on the /admin/v1
// calls (CreateOrganization, CreateKey, GrantCredits, …) only.
func WithAdminToken(token string) Option {
	return func(c *Client) error { c.adminToken = token; return nil }
}

// WithHTTPClient replaces http.DefaultClient (for timeouts, proxies,
// tracing transports).
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) error {
		if h == nil {
			return errors.New("hookline: nil HTTP client")
		}
		c.http = h
		return nil
	}
}

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error { c.retry = p; return nil }
}

// WithUserAgent prefixes the User-Agent with the caller's product.
func WithUserAgent(product string) Option {
	return func(c *Client) error { c.userAgent = product + " " + c.userAgent; return nil }
}

// New returns a client of the gateway at DefaultBaseURL unless
// WithBaseURL says otherwise.
func New(opts ...Option) (*Client, error) {
	c := &Client{http: http.DefaultClient, userAgent: "hookline-go/" + Version, retry: DefaultRetryPolicy, sleep: sleepCtx}
	if err := WithBaseURL(DefaultBaseURL)(c); err != nil {
		return nil, err
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// BaseURL is the gateway's origin the client calls.
func (c *Client) BaseURL() string { return c.base.String() }

// RequestOption changes one call.
type RequestOption func(*requestConfig)

type requestConfig struct {
	idempotencyKey string
	noIdempotency  bool
	requestID      string
	header         http.Header
	response       *Response
}

// WithIdempotencyKey sends key as the call's Idempotency-Key instead of a
// generated one: a repeat of the call with the same key (from another
// process, after a crash) replays the first outcome instead of doing the
// work twice.
func WithIdempotencyKey(key string) RequestOption {
	return func(r *requestConfig) { r.idempotencyKey = key }
}

// WithoutIdempotencyKey sends a POST without an Idempotency-Key. The call
// is then not retried after a 5xx or a broken connection, since it might
// have been carried out.
func WithoutIdempotencyKey() RequestOption {
	return func(r *requestConfig) { r.noIdempotency = true }
}

// WithRequestID sends id as X-Request-ID (1 to 128 visible ASCII
// characters), to find the call in the services' logs.
func WithRequestID(id string) RequestOption {
	return func(r *requestConfig) { r.requestID = id }
}

// WithHeader adds a header to the call.
func WithHeader(name, value string) RequestOption {
	return func(r *requestConfig) {
		if r.header == nil {
			r.header = http.Header{}
		}
		r.header.Add(name, value)
	}
}

// CaptureResponse fills *into with what the final response said besides its
// body: status, request id, replay and rate-limit headers, attempts.
func CaptureResponse(into *Response) RequestOption {
	return func(r *requestConfig) { r.response = into }
}

// Response describes the response to a call.
type Response struct {
	StatusCode int
	Header     http.Header
	// RequestID is the X-Request-ID the gateway answered with.
	RequestID string
	// IdempotencyKey is the key the call was sent with ("" without).
	IdempotencyKey string
	// Replayed is true when the gateway replayed the stored outcome of an
	// earlier call with the same Idempotency-Key.
	Replayed bool
	// Attempts counts the requests sent, retries included.
	Attempts int
}

// newIdempotencyKey is 128 random bits, so two calls never share one.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "hlsdk_" + hex.EncodeToString(b[:])
}

// call is one operation: where it goes and what it sends.
type call struct {
	method string
	path   string
	query  url.Values
	body   any // encoded as JSON when not nil
	admin  bool
	// raw keeps the body undecoded (non-JSON documents).
	accept string
}

// do sends the call, retrying what the policy allows, and decodes a 2xx
// body into out (when out is not nil). A non-2xx response is an *APIError.
func (c *Client) do(ctx context.Context, cl call, out any, opts []RequestOption) error {
	raw, err := c.send(ctx, cl, opts)
	if err != nil {
		return err
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("hookline: %s %s: decode response: %w", cl.method, cl.path, err)
	}
	return nil
}

// send is do without decoding: it returns the raw 2xx body.
func (c *Client) send(ctx context.Context, cl call, opts []RequestOption) ([]byte, error) {
	var rc requestConfig
	for _, o := range opts {
		o(&rc)
	}
	var payload []byte
	if cl.body != nil {
		b, err := json.Marshal(cl.body)
		if err != nil {
			return nil, fmt.Errorf("hookline: %s %s: encode request: %w", cl.method, cl.path, err)
		}
		payload = b
	}
	key := ""
	if cl.method == http.MethodPost && !rc.noIdempotency {
		key = rc.idempotencyKey
		if key == "" {
			key = newIdempotencyKey()
		}
	}
	idempotent := cl.method == http.MethodGet || cl.method == http.MethodHead || key != ""
	u := *c.base
	u.Path += cl.path
	if len(cl.query) > 0 {
		u.RawQuery = cl.query.Encode()
	}
	for attempt := 0; ; attempt++ {
		ans, err := c.attempt(ctx, cl, u.String(), payload, key, rc)
		if rc.response != nil && ans != nil {
			*rc.response = Response{StatusCode: ans.status, Header: ans.header, RequestID: ans.header.Get("X-Request-ID"),
				IdempotencyKey: key, Replayed: ans.header.Get("Idempotent-Replayed") == "true", Attempts: attempt + 1}
		}
		if err == nil && ans.status < 300 {
			return ans.body, nil
		}
		var apiErr *APIError
		if err == nil {
			apiErr = newAPIError(ans.status, ans.header, ans.body)
			err = apiErr
		} else if ctx.Err() != nil {
			return nil, err
		}
		wait, ok := c.retry.next(attempt, idempotent, apiErr)
		if !ok {
			return nil, err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, errors.Join(err, serr)
		}
	}
}

// reply is a response read to its end.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// attempt sends one request. A transport failure is returned as err with
// a nil response.
func (c *Client) attempt(ctx context.Context, cl call, target string, payload []byte, key string, rc requestConfig) (*reply, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, body)
	if err != nil {
		return nil, fmt.Errorf("hookline: %s %s: %w", cl.method, cl.path, err)
	}
	for name, values := range rc.header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	accept := cl.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", c.userAgent)
	bearer := c.apiKey
	if cl.admin {
		bearer = c.adminToken
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if rc.requestID != "" {
		req.Header.Set("X-Request-ID", rc.requestID)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hookline: %s %s: %w", cl.method, cl.path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		// The response broke off: as unknown an outcome as a lost connection.
		return nil, fmt.Errorf("hookline: %s %s: read response: %w", cl.method, cl.path, err)
	}
	return &reply{status: resp.StatusCode, header: resp.Header, body: raw}, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// envelope is the {"data": …} of every single-resource response.
type envelope[T any] struct {
	Data T `json:"data"`
}

// getData sends a GET and returns the response's data.
func getData[T any](ctx context.Context, c *Client, path string, query url.Values, opts []RequestOption) (*T, error) {
	var env envelope[T]
	if err := c.do(ctx, call{method: http.MethodGet, path: path, query: query}, &env, opts); err != nil {
		return nil, err
	}
	return &env.Data, nil
}

// sendData sends a call with a JSON body and returns the response's data.
func sendData[T any](ctx context.Context, c *Client, cl call, opts []RequestOption) (*T, error) {
	var env envelope[T]
	if err := c.do(ctx, cl, &env, opts); err != nil {
		return nil, err
	}
	return &env.Data, nil
}

// pathID escapes one path segment.
func pathID(id string) string { return url.PathEscape(id) }
