// Package httpapi is the gateway's HTTP edge: the public /api/v1 surface
// (authentication, rate limiting, idempotency, the routing table and the
// reverse proxy to the services), the admin API /admin/v1, health probes,
// and the DTOs and error mapping of both.
//
// Middleware order on /api/v1, outermost first: request id, telemetry,
// body cap, authentication (with the per-address limit of failures), rate
// limit, reading the body (JSON only, within a deadline), then per route
// idempotency, the upstream deadline and the proxy. HEAD is answered by
// GET routes. Authentication runs before routing, so an unauthenticated caller
// gets the same 401 for every path and learns nothing about which exist;
// an authenticated caller gets 404 for unknown paths and 405 for a wrong
// method, in the error envelope. The OpenAPI document (/api/v1/openapi.json)
// and its HTML rendering (/docs) are public. POST /mcp serves the API's
// tools to AI agents (Model Context Protocol), behind the same
// authentication.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/openapi"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/ratelimit"
)

// Prefix is the path prefix of the public API.
const Prefix = "/api/v1"

// AdminPrefix is the path prefix of the admin API.
const AdminPrefix = "/admin/v1"

// MusicTracks is the admin path of the music library, forwarded to clips
// as AdminPrefix + MusicTracks.
const MusicTracks = "/music-tracks"

// Broll is the admin path of the b-roll library, forwarded likewise.
const Broll = "/broll"

// Config is what the handler needs. Every field but Upstreams entries,
// Now, Transport and Ready is required.
type Config struct {
	Orgs    *org.Service
	Limiter *ratelimit.Shared
	Limits  map[string]ratelimit.Limit
	// AuthFailures counts failed authentications per client address under
	// AuthFailureLimit; an address past it gets 429 before any key lookup.
	AuthFailures     *ratelimit.Limiter
	AuthFailureLimit ratelimit.Limit
	// TrustedProxies are the peers whose X-Forwarded-For names the client.
	TrustedProxies []netip.Prefix
	Idempotency    *idempotency.Guard
	// Upstreams maps a service name to its base URL. A service without an
	// entry is not deployed: its paths answer 503.
	Upstreams map[string]*url.URL
	// Transport carries proxied requests; one shared, tuned transport keeps
	// connections to the services alive across requests.
	Transport       http.RoundTripper
	PrincipalSecret []byte
	// PrincipalTTL is the validity of a signed principal (60 s default):
	// long enough for clock skew between hosts, short enough that a
	// captured header is useless soon after.
	PrincipalTTL time.Duration
	AdminToken   string
	MaxBodyBytes int64
	// BodyReadTimeout bounds reading a request body, which happens before
	// the upstream request starts.
	BodyReadTimeout time.Duration
	// Deadlines bound a proxied request by kind of route.
	Deadlines Deadlines
	// MaxStoredBody caps the response body kept for idempotent replay.
	MaxStoredBody int
	// IdempotentTimeout bounds a proxied request that carries an
	// Idempotency-Key. Such a request keeps running when the client
	// disconnects, so its outcome can still be stored for the retry.
	IdempotentTimeout time.Duration
	// Ready reports whether dependencies answer, for /readyz.
	Ready func(context.Context) error
	Log   *slog.Logger
	Now   func() time.Time
}

// server holds the handlers' dependencies.
type server struct {
	cfg          Config
	adapt        httpx.Adapter
	defaultLimit ratelimit.Limit
	proxies      map[string]http.Handler
	// root is the whole handler; the MCP tools call it in process.
	root http.Handler
}

// NewHandler builds the gateway's HTTP handler. defaultTier names the
// limit used for an organization whose tier has no configured limit (a
// tier removed from configuration after organizations were created).
func NewHandler(cfg Config, defaultTier string) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.PrincipalTTL <= 0 {
		cfg.PrincipalTTL = time.Minute
	}
	if cfg.MaxStoredBody <= 0 {
		cfg.MaxStoredBody = 4 << 20
	}
	if cfg.IdempotentTimeout <= 0 {
		cfg.IdempotentTimeout = 5 * time.Minute
	}
	if cfg.Transport == nil {
		cfg.Transport = NewTransport(0)
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = 10 * time.Second
	}
	cfg.Deadlines = cfg.Deadlines.withDefaults()
	s := &server{
		cfg:          cfg,
		adapt:        httpx.Adapter{Log: cfg.Log, MapError: MapError},
		defaultLimit: cfg.Limits[defaultTier],
		proxies:      make(map[string]http.Handler, len(Services)),
	}
	for _, svc := range Services {
		if u := cfg.Upstreams[svc]; u != nil {
			s.proxies[svc] = s.newProxy(svc, u)
		} else {
			s.proxies[svc] = s.adapt.Wrap(notDeployed(svc))
		}
	}
	s.root = s.routes()
	return s.root
}

func (s *server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(httpx.RequestID, telemetry.HTTPMiddleware("gateway", s.cfg.Log), s.recoverer, middleware.GetHead)
	r.NotFound(httpx.NotFound)
	r.MethodNotAllowed(methodNotAllowed(r))

	r.Get("/healthz", s.adapt.Wrap(httpx.Healthz))
	r.Get("/readyz", s.adapt.Wrap(s.readyz))
	// The API's description is public: it is registered beside the /api/v1
	// mount, outside authentication (a static route wins over the mount).
	r.Get(Prefix+"/openapi.json", s.adapt.Wrap(openapi.ServeJSON))
	r.Get("/docs", s.adapt.Wrap(openapi.ServeDocs))

	admin := chi.NewRouter()
	admin.Use(s.bodyCap, s.adminAuth)
	admin.NotFound(httpx.NotFound)
	admin.MethodNotAllowed(methodNotAllowed(admin))
	// Admin POSTs honour Idempotency-Key too: a retried grant must not
	// grant twice.
	admin.With(s.idempotent).Post("/organizations", s.adapt.Wrap(s.createOrganization))
	admin.With(s.idempotent).Post("/organizations/{id}/keys", s.adapt.Wrap(s.createKey))
	admin.With(s.idempotent).Post("/organizations/{id}/credits", s.adapt.Wrap(s.grantCredits))
	admin.Delete("/keys/{id}", s.adapt.Wrap(s.revokeKey))
	// The clips service's music library, filled by the operator.
	admin.With(s.idempotent).Method(http.MethodPost, MusicTracks, s.proxies[Clips])
	admin.Method(http.MethodGet, MusicTracks, s.proxies[Clips])
	admin.With(s.idempotent).Method(http.MethodPost, Broll, s.proxies[Clips])
	admin.Method(http.MethodGet, Broll, s.proxies[Clips])
	r.Mount(AdminPrefix, admin)

	// The MCP server: the same API key, checked by the same middleware;
	// its tools' calls go through /api/v1 and are rate limited there.
	r.With(s.bodyCap, s.authenticate).Post(MCPPath, s.newMCP().ServeHTTP)

	api := chi.NewRouter()
	api.Use(s.bodyCap, s.authenticate, s.rateLimit, s.readBody)
	api.NotFound(httpx.NotFound)
	api.MethodNotAllowed(methodNotAllowed(api))
	api.Get(verify, s.adapt.Wrap(s.verify))
	for _, rt := range Routes {
		for _, m := range rt.Methods {
			h := withDeadline(s.cfg.Deadlines.of(rt, m), s.proxies[rt.Service])
			if m == http.MethodPost {
				api.With(s.idempotent).Method(m, rt.Pattern, h)
			} else {
				api.Method(m, rt.Pattern, h)
			}
		}
	}
	r.Mount(Prefix, api)
	return r
}

// methodNotAllowed answers 405 in the envelope with the Allow header that
// chi only sets for its own default handler. GET routes answer HEAD too.
func methodNotAllowed(mux *chi.Mux) http.HandlerFunc {
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	return func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
			path = rctx.RoutePath
		}
		for _, m := range methods {
			if mux.Match(chi.NewRouteContext(), m, path) {
				w.Header().Add("Allow", m)
				if m == http.MethodGet {
					w.Header().Add("Allow", http.MethodHead)
				}
			}
		}
		httpx.MethodNotAllowed(w, r)
	}
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.cfg.Ready(ctx); err != nil {
			s.cfg.Log.WarnContext(r.Context(), "not ready", "err", err)
			return errNotReady
		}
	}
	return httpx.OK(w, map[string]string{"status": "ready"})
}
