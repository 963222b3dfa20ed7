package app_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/gateway/internal/app"
)

const (
	testAdminToken = "admin-token-for-tests-0123456789"
	testMaxBody    = 4096
)

// The tiers of the test gateway: "tiny" has a burst of 3 and refills so
// slowly that a test can exhaust it; the others are generous so parallel
// tests never trip over the limit.
var testEnv = map[string]string{
	"HOOKLINE_ADMIN_TOKEN":    testAdminToken,
	"HOOKLINE_TIERS":          tierTable(1000, 1000, tiers.RateLimit{PerSecond: 0.01, Burst: 3}),
	"HOOKLINE_MAX_BODY_BYTES": "4096",
	// Tests send many bad keys from one address; the per-address limit
	// has a test of its own.
	"HOOKLINE_AUTH_FAILURE_LIMIT": "1000/1000",
	"HOOKLINE_SHUTDOWN_TIMEOUT":   "5s",
	"HOOKLINE_DB_MAX_CONNS":       "8",
}

// tierTable is a tier table whose usual tiers allow perSecond/burst and
// whose "tiny" tier has the limit tiny.
func tierTable(perSecond float64, burst int, tiny tiers.RateLimit) string {
	var ts []tiers.Tier
	for _, name := range []string{"free", "creator", "pro", "agency"} {
		ts = append(ts, tiers.Tier{Name: name, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: perSecond, Burst: burst}})
	}
	return tiers.Encode(append(ts, tiers.Tier{Name: "tiny", BillingCycle: "monthly", RateLimit: tiny})...)
}

// upstream is a fake service: it admits only requests with a valid
// principal (pkg/platform/principal's middleware, as the real services do) and
// answers with what it saw. Tests install per-case behaviour keyed by the
// X-Test-Case header, which the gateway forwards untouched.
type upstream struct {
	name  string
	srv   *httptest.Server
	calls sync.Map // organization id → *atomic.Int64: tests run in parallel, each with its own tenant
	cases sync.Map // X-Test-Case → func(w, r, seen) (handled bool)
}

// callsFor counts the requests the service has seen for one organization.
func (u *upstream) callsFor(orgID string) int64 {
	n, _ := u.calls.LoadOrStore(orgID, new(atomic.Int64))
	return n.(*atomic.Int64).Load()
}

// seen is what an upstream reports about a request.
type seen struct {
	Service       string `json:"service"`
	Method        string `json:"method"`
	Path          string `json:"path"`
	Query         string `json:"query"`
	OrgID         string `json:"orgId"`
	KeyID         string `json:"keyId"`
	Tier          string `json:"tier"`
	RequestID     string `json:"requestId"`
	HeaderID      string `json:"headerRequestId"`
	Authorization string `json:"authorization"`
	Body          string `json:"body"`
	Nonce         string `json:"nonce"`
	Traceparent   string `json:"traceparent"`

	IdempotencyKey string `json:"idempotencyKey"`
}

type caseFunc func(w http.ResponseWriter, r *http.Request, s seen) bool

func newUpstream(t testing.TB, name string) *upstream {
	t.Helper()
	u := &upstream{name: name}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := principal.From(r.Context())
		n, _ := u.calls.LoadOrStore(p.OrgID, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		body, _ := io.ReadAll(r.Body)
		s := seen{
			Service: name, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			OrgID: p.OrgID, KeyID: p.KeyID, Tier: p.Tier, RequestID: p.RequestID,
			HeaderID:      r.Header.Get("X-Request-ID"),
			Authorization: r.Header.Get("Authorization"),
			Body:          string(body),
			Nonce:         uuid.NewString(),
			Traceparent:   r.Header.Get("traceparent"),

			IdempotencyKey: p.IdempotencyKey,
		}
		if c := r.Header.Get("X-Test-Case"); c != "" {
			if f, ok := u.cases.Load(c); ok && f.(caseFunc)(w, r, s) {
				return
			}
		}
		status := http.StatusOK
		if r.Method == http.MethodPost {
			status = http.StatusCreated
		}
		writeJSON(w, status, map[string]any{"data": s})
	})
	u.srv = httptest.NewServer(principal.Require([]byte(apptest.Secret))(h))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) on(name string, f caseFunc) { u.cases.Store(name, f) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// gateway is a running gateway under test with its fake upstreams.
type gateway struct {
	*apptest.Service
	upstreams map[string]*upstream
}

// startGateway runs the real service through app.Run against a fresh
// schema and NATS namespace. deploy lists the services that get a fake
// upstream; env overrides variables (upstream URLs, or HOOKLINE_DB_SCHEMA
// to share another gateway's database).
func startGateway(t testing.TB, deploy []string, env map[string]string) *gateway {
	t.Helper()
	g := &gateway{upstreams: map[string]*upstream{}}
	vars := maps.Clone(testEnv)
	for _, svc := range deploy {
		u := newUpstream(t, svc)
		g.upstreams[svc] = u
		vars["HOOKLINE_"+strings.ToUpper(svc)+"_URL"] = u.srv.URL
	}
	maps.Copy(vars, env)
	var pairs []string
	for k, v := range vars {
		pairs = append(pairs, k, v)
	}
	g.Service = apptest.Start(t, apptest.Config{Name: "gateway", Run: app.Run, Env: pairs})
	return g
}

// response is a finished HTTP exchange.
type response testkit.Exchange

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response %d is not JSON: %v\n%s", r.Status, err, r.Body)
	}
	return m
}

// data returns the "data" object of a success envelope.
func (r response) data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := r.json(t)["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", r.Body)
	}
	return d
}

// seen decodes an upstream echo.
func (r response) seen(t testing.TB) seen {
	t.Helper()
	var env struct {
		Data seen `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil || env.Data.Service == "" {
		t.Fatalf("not an upstream echo (%d): %s", r.Status, r.Body)
	}
	return env.Data
}

// wantError checks status and code of an error envelope whose details are
// an object.
func (r response) wantError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	m := r.json(t)
	if m["code"] != code {
		t.Fatalf("code %v, want %s: %s", m["code"], code, r.Body)
	}
	if _, ok := m["error"].(string); !ok {
		t.Fatalf("error message missing: %s", r.Body)
	}
	d, ok := m["details"].(map[string]any)
	if !ok {
		t.Fatalf("details is not an object: %s", r.Body)
	}
	return d
}

func (r response) wantStatus(t testing.TB, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// do sends a request to the gateway (testkit.Send).
func (g *gateway) do(t testing.TB, method, path string, body any, headers ...string) response {
	t.Helper()
	return response(testkit.Send(t, g.Client, method, g.URL+path, body, headers...))
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

func admin() []string { return bearer(testAdminToken) }

// api calls /api/v1 with a key.
func (g *gateway) api(t testing.TB, key, method, path string, body any, headers ...string) response {
	t.Helper()
	return g.do(t, method, "/api/v1"+path, body, append(bearer(key), headers...)...)
}

// tenant is an organization with one key.
type tenant struct {
	OrgID string
	KeyID string
	Key   string
	Name  string
	Tier  string
}

func (g *gateway) createOrg(t testing.TB, name, tier string) string {
	t.Helper()
	r := g.do(t, http.MethodPost, "/admin/v1/organizations", map[string]any{"name": name, "tier": tier}, admin()...)
	r.wantStatus(t, http.StatusCreated)
	return r.data(t)["id"].(string)
}

func (g *gateway) createKey(t testing.TB, orgID string, body map[string]any) map[string]any {
	t.Helper()
	r := g.do(t, http.MethodPost, "/admin/v1/organizations/"+orgID+"/keys", body, admin()...)
	r.wantStatus(t, http.StatusCreated)
	return r.data(t)
}

func (g *gateway) newTenant(t testing.TB, tier string) tenant {
	t.Helper()
	name := "org-" + testkit.Suffix()
	id := g.createOrg(t, name, tier)
	k := g.createKey(t, id, map[string]any{"name": "test key"})
	return tenant{OrgID: id, KeyID: k["id"].(string), Key: k["key"].(string), Name: name, Tier: tier}
}

// waitEvent reads the namespaced GATEWAY stream with an ordered consumer
// until an event of subject satisfies match.
func (g *gateway) waitEvent(t testing.TB, subject string, match func(events.Envelope) bool) events.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var cons jetstream.Consumer
	var err error
	for {
		cons, err = g.Bus.JS.OrderedConsumer(ctx, g.Bus.StreamName(events.StreamGateway), jetstream.OrderedConsumerConfig{
			FilterSubjects: []string{g.Bus.Subject(subject)},
		})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("ordered consumer on %s: %v", g.Bus.StreamName(events.StreamGateway), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		msg, err := cons.Next(jetstream.FetchMaxWait(time.Second))
		if ctx.Err() != nil {
			t.Fatalf("no matching %s event within 20 s (last error %v)", subject, err)
		}
		if err != nil {
			continue
		}
		env, err := events.Parse(msg.Data())
		if err != nil {
			t.Fatalf("bad envelope on %s: %v", msg.Subject(), err)
		}
		if env.Type != subject {
			t.Fatalf("envelope type %q on subject %s", env.Type, msg.Subject())
		}
		if match(env) {
			return env
		}
	}
}

// runWith runs the service with exactly vars and discards its output.
func runWith(ctx context.Context, vars map[string]string) error {
	return app.Run(ctx, testkit.Getenv(vars), io.Discard)
}
