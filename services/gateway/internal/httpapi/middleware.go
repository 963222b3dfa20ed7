package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/ratelimit"
)

// Rate limit response headers.
const (
	HeaderLimit      = "X-RateLimit-Limit"
	HeaderRemaining  = "X-RateLimit-Remaining"
	HeaderReset      = "X-RateLimit-Reset"
	HeaderRetryAfter = "Retry-After"
)

var errNotReady = apierr.New(apierr.Unavailable, "not ready")

type identityKey struct{}

// identityFrom returns the identity authenticate stored in ctx.
func identityFrom(ctx context.Context) (org.Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(org.Identity)
	return id, ok
}

// recoverer turns a panic into a logged 500 in the envelope. The proxy's
// http.ErrAbortHandler is passed on: it is how a handler tells net/http to
// drop a connection whose response cannot be completed.
func (s *server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler { //nolint:errorlint // a sentinel value passed to panic, compared as such
				panic(rec)
			}
			s.cfg.Log.ErrorContext(r.Context(), "panic", "panic", rec, "stack", string(debug.Stack()),
				"method", r.Method, "path", r.URL.Path, "request_id", httpx.RequestIDFrom(r.Context()))
			httpx.WriteError(w, r, nil, apierr.New(apierr.Internal, "internal error"))
		}()
		next.ServeHTTP(w, r)
	})
}

// bodyCap refuses bodies over MaxBodyBytes: at once when Content-Length
// says so, and otherwise by capping the stream, which fails the read (and
// so the proxied request) as soon as the cap is passed.
func (s *server) bodyCap(next http.Handler) http.Handler {
	limit := s.cfg.MaxBodyBytes
	return s.middleware(func(w http.ResponseWriter, r *http.Request) error {
		if r.ContentLength > limit {
			return bodyTooLarge(limit)
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// bearer extracts the token of a single `Authorization: Bearer <token>`
// header; anything else yields "".
func bearer(r *http.Request) string {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return ""
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return token
}

// authenticate resolves the API key and stores the identity in the
// context. Every failure of the key gets errInvalidAPIKey; a failure to
// look the key up (database down) is a 503 so clients retry rather than
// drop their key.
//
// Failures are counted per client address: an address past its allowance
// gets 429 before its key is even looked up, so a flood of made-up keys
// costs the database nothing. The count is per replica.
func (s *server) authenticate(next http.Handler) http.Handler {
	return s.middleware(func(w http.ResponseWriter, r *http.Request) error {
		addr := clientAddr(r, s.cfg.TrustedProxies)
		if d := s.cfg.AuthFailures.Peek(addr, s.cfg.AuthFailureLimit); !d.Allowed {
			return refuse(w, d, "too many failed authentications from this address")
		}
		id, err := s.cfg.Orgs.Authenticate(r.Context(), bearer(r))
		if errors.Is(err, org.ErrInvalidKey) {
			s.cfg.AuthFailures.Allow(addr, s.cfg.AuthFailureLimit)
			w.Header().Set("WWW-Authenticate", `Bearer realm="hookline"`)
			return errInvalidAPIKey
		}
		if err != nil {
			if r.Context().Err() == nil { // not merely a client that went away
				s.cfg.Log.ErrorContext(r.Context(), "authenticate", "err", err, "request_id", httpx.RequestIDFrom(r.Context()))
			}
			return apierr.New(apierr.Unavailable, "service temporarily unavailable; retry later")
		}
		telemetry.SetOrg(r.Context(), id.Organization.ID.String())
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, id)))
		return nil
	})
}

// adminAuth admits only the admin token. Both sides are hashed before the
// constant-time comparison so neither the content nor the length of the
// token leaks through timing.
func (s *server) adminAuth(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.AdminToken))
	return s.middleware(func(w http.ResponseWriter, r *http.Request) error {
		got := sha256.Sum256([]byte(bearer(r)))
		if s.cfg.AdminToken == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hookline-admin"`)
			return errInvalidAdminToken
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), adminKey{}, true)))
		return nil
	})
}

// adminKey marks a request that passed adminAuth.
type adminKey struct{}

// isAdmin reports whether the request passed adminAuth.
func isAdmin(ctx context.Context) bool { v, _ := ctx.Value(adminKey{}).(bool); return v }

// rateLimit takes a token from the key's bucket and reports the bucket on
// every response of an authenticated request.
func (s *server) rateLimit(next http.Handler) http.Handler {
	return s.middleware(func(w http.ResponseWriter, r *http.Request) error {
		id, _ := identityFrom(r.Context())
		lim, ok := s.cfg.Limits[id.Organization.Tier]
		if !ok {
			lim = s.defaultLimit
		}
		d := s.cfg.Limiter.Allow(r.Context(), id.Key.ID.String(), lim)
		h := w.Header()
		h.Set(HeaderLimit, strconv.Itoa(d.Limit))
		h.Set(HeaderRemaining, strconv.Itoa(d.Remaining))
		h.Set(HeaderReset, strconv.FormatInt(ceilSeconds(d.Reset), 10))
		if !d.Allowed {
			return refuse(w, d, "rate limit exceeded")
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// refuse sets Retry-After for a refused decision and returns its 429.
func refuse(w http.ResponseWriter, d ratelimit.Decision, why string) error {
	retry := max(ceilSeconds(d.RetryAfter), 1)
	w.Header().Set(HeaderRetryAfter, strconv.FormatInt(retry, 10))
	return apierr.New(apierr.RateLimited, why+"; retry after "+strconv.FormatInt(retry, 10)+" s").
		With("retryAfter", retry).With("limit", d.Limit)
}

// readBody reads a request body whole before the request goes on, within
// BodyReadTimeout, so a client trickling its body ties up only this
// goroutine and never a service's connection; and it refuses a body that
// is not JSON (every body of the API is) with 415.
func (s *server) readBody(next http.Handler) http.Handler {
	return s.middleware(func(w http.ResponseWriter, r *http.Request) error {
		if r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return nil
		}
		if err := httpx.RequireJSON(r); err != nil {
			return err
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout)) // unsupported only on HTTP/2, where the server's ReadTimeout still applies
		body, err := io.ReadAll(r.Body)
		if err != nil {
			// The deadline stays: net/http drains an unread body before it
			// answers, and that read must not wait on the client either.
			if tl := tooLargeFrom(err); tl != nil {
				return tl
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return apierr.New(apierr.InvalidRequest, "request body not received within "+s.cfg.BodyReadTimeout.String()).
					With("timeout", s.cfg.BodyReadTimeout.String())
			}
			return apierr.Wrap(apierr.InvalidRequest, "could not read request body", err)
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		next.ServeHTTP(w, r)
		return nil
	})
}

func ceilSeconds(d time.Duration) int64 {
	return int64(math.Ceil(d.Seconds()))
}

// idempotent applies Idempotency-Key to a POST (ARCHITECTURE.md §2).
//
// The body has to be read whole for the fingerprint, so it is buffered (it
// is capped by bodyCap already) and handed on as a fresh reader. The
// proxied request is detached from the client's cancellation: if the
// client gives up, the request still completes and its response is stored,
// so the client's retry gets the outcome instead of running it twice.
func (s *server) idempotent(next http.Handler) http.Handler {
	return s.middleware(func(w http.ResponseWriter, r *http.Request) error {
		values, present := r.Header[idempotency.Header]
		if !present || r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return nil
		}
		if len(values) != 1 {
			return idempotency.ErrInvalidKey
		}
		key := values[0]
		if err := idempotency.ValidateKey(key); err != nil {
			return err
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			if tl := tooLargeFrom(err); tl != nil {
				return tl
			}
			return apierr.Wrap(apierr.InvalidRequest, "could not read request body", err)
		}
		// Public requests are scoped to their organization; admin requests
		// (no identity) share the nil organization, which no real one has.
		id, _ := identityFrom(r.Context())
		scope := id.Organization.ID.String()
		fp := idempotency.FingerprintOf(r.Method, r.URL.Path, r.URL.RawQuery, body)

		replay, err := s.cfg.Idempotency.Begin(r.Context(), scope, key, fp)
		if err != nil {
			return err
		}
		if replay != nil {
			h := w.Header()
			if replay.ContentType != "" {
				h.Set("Content-Type", replay.ContentType)
			}
			h.Set(idempotency.ReplayedHeader, "true")
			w.WriteHeader(replay.Status)
			_, _ = w.Write(replay.Body) //nolint:gosec // G705: idempotent replay of the stored upstream response body under its stored Content-Type, not request input
			return nil
		}

		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.cfg.IdempotentTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }

		cw := &captureWriter{ResponseWriter: w, max: s.cfg.MaxStoredBody}
		finished := false
		defer func() {
			// Reached with finished=false only when next panicked (the
			// proxy aborts a response it cannot complete): free the key
			// so the client can retry, and let the panic continue.
			if !finished {
				s.finish(ctx, scope, key, fp, idempotency.Response{}, false)
			}
		}()
		next.ServeHTTP(cw, r)
		finished = true
		s.finish(ctx, scope, key, fp, idempotency.Response{
			Status:      cw.statusCode(),
			ContentType: cw.Header().Get("Content-Type"),
			Body:        cw.buf.Bytes(),
		}, !cw.overflow)
		return nil
	})
}

// finish records the outcome. The response has already gone to the client,
// so a failure here can only be logged; the key then stays in flight until
// its lock runs out.
func (s *server) finish(ctx context.Context, scope, key string, fp idempotency.Fingerprint, resp idempotency.Response, complete bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if !complete && resp.Status > 0 {
		s.cfg.Log.WarnContext(ctx, "idempotent response too large to store; key released",
			"limit", s.cfg.MaxStoredBody, "request_id", httpx.RequestIDFrom(ctx))
	}
	if err := s.cfg.Idempotency.Finish(ctx, scope, key, fp, resp, complete); err != nil {
		s.cfg.Log.ErrorContext(ctx, "record idempotent response", "err", err, "request_id", httpx.RequestIDFrom(ctx))
	}
}

// middleware adapts an error-returning middleware body.
func (s *server) middleware(h httpx.HandlerFunc) http.Handler {
	return s.adapt.Wrap(h)
}

// captureWriter passes a response through while keeping a copy of its
// status and body for idempotent replay. Write errors of the client side
// are swallowed: the client may be gone, but the upstream response must
// still be read to the end and recorded.
type captureWriter struct {
	http.ResponseWriter
	status   int
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 && code >= 200 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if !c.overflow {
		if c.buf.Len()+len(p) > c.max {
			c.overflow = true
			c.buf = bytes.Buffer{}
		} else {
			c.buf.Write(p)
		}
	}
	_, _ = c.ResponseWriter.Write(p)
	return len(p), nil
}

// Unwrap gives http.ResponseController access to Flush and deadlines.
func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *captureWriter) statusCode() int { return c.status }
