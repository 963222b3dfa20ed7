package httpapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/gateway/internal/idempotency"
)

// NewTransport returns the transport shared by all proxies. The defaults of
// http.DefaultTransport keep only two idle connections per host, which under
// load means a new TCP connection for most requests; the gateway talks to a
// handful of hosts at high concurrency, so it keeps many.
// responseHeaderTimeout bounds the wait for a service's answer (0: none).
func NewTransport(responseHeaderTimeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy: nil, // services are reached directly, never through an outbound proxy
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		// Proxied bodies are passed through untouched; letting the
		// transport negotiate gzip would make it decompress them.
		DisableCompression:    true,
		ResponseHeaderTimeout: responseHeaderTimeout,
	}
}

// bufferPool reuses the copy buffers of the proxies; without it every
// proxied response allocates 32 KiB.
type bufferPool struct{ p sync.Pool }

func newBufferPool() *bufferPool {
	return &bufferPool{p: sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}}
}

func (b *bufferPool) Get() []byte  { return *(b.p.Get().(*[]byte)) }
func (b *bufferPool) Put(p []byte) { b.p.Put(&p) }

var sharedBuffers = newBufferPool()

// Headers the gateway owns on responses; a service's copy is dropped so the
// client sees each once.
var gatewayResponseHeaders = []string{
	httpx.RequestIDHeader, HeaderLimit, HeaderRemaining, HeaderReset, idempotency.ReplayedHeader,
}

// newProxy forwards to one service: /api/v1 is stripped, the caller's
// credentials are replaced by a signed principal, and a failure to reach
// the service becomes 503 unavailable.
func (s *server) newProxy(service string, target *url.URL) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			in := pr.In.URL
			pr.Out.URL.Path = strings.TrimPrefix(in.Path, Prefix)
			if in.RawPath != "" {
				pr.Out.URL.RawPath = strings.TrimPrefix(in.RawPath, Prefix)
			}
			pr.SetURL(target)
			pr.SetXForwarded()
			h := pr.Out.Header
			// The API key stays at the edge: services trust only the
			// principal, and a key must not end up in their logs.
			h.Del("Authorization")
			h.Del(principal.Header)
			ctx := pr.In.Context()
			rid := httpx.RequestIDFrom(ctx)
			h.Set(httpx.RequestIDHeader, rid)
			var p principal.Principal
			if id, ok := identityFrom(ctx); ok {
				p = principal.Principal{
					OrgID:     id.Organization.ID.String(),
					KeyID:     id.Key.ID.String(),
					Tier:      id.Organization.Tier,
					RequestID: rid,
					Expires:   s.cfg.Now().Add(s.cfg.PrincipalTTL).UTC(),
				}
			} else if isAdmin(ctx) {
				// The operator, through the admin API (e.g. the music
				// library): no organization's key, no customer's data.
				p = principal.Principal{OrgID: principal.OperatorOrg, KeyID: "admin", Admin: true, RequestID: rid,
					Expires: s.cfg.Now().Add(s.cfg.PrincipalTTL).UTC()}
			}
			if p.OrgID != "" {
				if pr.In.Method == http.MethodPost {
					// The idempotent middleware has validated it; signing
					// it lets services key their reservations on it.
					p.IdempotencyKey = pr.In.Header.Get(idempotency.Header)
				}
				signed, err := principal.Sign(s.cfg.PrincipalSecret, p)
				if err == nil {
					h.Set(principal.Header, signed)
				} else {
					// Without the header the service answers 401; the
					// request is never forwarded as anyone.
					s.cfg.Log.ErrorContext(ctx, "sign principal", "err", err, "request_id", rid)
				}
			}
			telemetry.InjectHTTP(ctx, h)
		},
		Transport:  s.cfg.Transport,
		BufferPool: sharedBuffers,
		ModifyResponse: func(resp *http.Response) error {
			for _, k := range gatewayResponseHeaders {
				resp.Header.Del(k)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if tl := tooLargeFrom(err); tl != nil {
				httpx.WriteError(w, r, nil, tl)
				return
			}
			if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
				// The client went away; nobody is listening for an answer.
				return
			}
			s.cfg.Log.WarnContext(r.Context(), "upstream unavailable", "upstream", service, "err", err,
				"request_id", httpx.RequestIDFrom(r.Context()))
			msg := "the " + service + " service is unavailable; retry later"
			if errors.Is(err, context.DeadlineExceeded) {
				msg = "the " + service + " service did not answer in time; retry later"
			}
			httpx.WriteError(w, r, nil, apierr.New(apierr.Unavailable, msg).With("service", service))
		},
	}
}

// withDeadline bounds h's request, so a stalled service fails it with
// context.DeadlineExceeded (503 from the proxy's ErrorHandler).
func withDeadline(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// notDeployed answers for a service that has no upstream configured.
func notDeployed(service string) httpx.HandlerFunc {
	msg := "the " + service + " service is not deployed"
	return func(http.ResponseWriter, *http.Request) error {
		return apierr.New(apierr.Unavailable, msg).With("service", service)
	}
}
