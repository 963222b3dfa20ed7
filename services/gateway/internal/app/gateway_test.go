package app_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/gateway/internal/httpapi"
)

// TestGateway runs one gateway (billing, assets and thumbnails deployed,
// clips not) and exercises it from parallel subtests.
func TestGateway(t *testing.T) {
	g := startGateway(t, []string{httpapi.Billing, httpapi.Assets, httpapi.Thumbnails}, nil)

	t.Run("health", func(t *testing.T) {
		t.Parallel()
		g.do(t, http.MethodGet, "/healthz", nil).wantStatus(t, http.StatusOK)
		g.do(t, http.MethodGet, "/readyz", nil).wantStatus(t, http.StatusOK)
	})

	t.Run("admin API refuses everything but the admin token", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		body := map[string]any{"name": "x", "tier": "free"}
		for name, h := range map[string][]string{
			"no token":    nil,
			"wrong token": bearer(testAdminToken + "x"),
			"public key":  bearer(tn.Key),
			"basic":       {"Authorization", "Basic " + testAdminToken},
		} {
			r := g.do(t, http.MethodPost, "/admin/v1/organizations", body, h...)
			r.wantError(t, http.StatusUnauthorized, "unauthorized")
			if name == "public key" && r.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: no WWW-Authenticate", name)
			}
		}
		// ...and the admin token is no API key.
		g.api(t, testAdminToken, http.MethodGet, "/auth/verify", nil).wantError(t, http.StatusUnauthorized, "unauthorized")
	})

	t.Run("organization creation emits gateway.organization.created.v1", func(t *testing.T) {
		t.Parallel()
		r := g.do(t, http.MethodPost, "/admin/v1/organizations", map[string]any{"name": "  Acme Studios  ", "tier": "pro"}, admin()...)
		r.wantStatus(t, http.StatusCreated)
		d := r.data(t)
		id, _ := d["id"].(string)
		if _, err := uuid.Parse(id); err != nil || d["name"] != "Acme Studios" || d["tier"] != "pro" {
			t.Fatalf("organization = %v", d)
		}
		env := g.waitEvent(t, events.GatewayOrganizationCreated, func(e events.Envelope) bool { return e.OrgID == id })
		var p events.OrganizationCreated
		if err := env.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.OrganizationID != id || p.Name != "Acme Studios" || p.Tier != "pro" || env.Source != "gateway" {
			t.Fatalf("event = %+v, payload %+v", env, p)
		}
	})

	t.Run("a retried admin grant grants once", func(t *testing.T) {
		t.Parallel()
		orgID := g.createOrg(t, "retries", "pro")
		path := "/admin/v1/organizations/" + orgID + "/credits"
		body := map[string]any{"credits": 50, "kind": "purchased", "reason": "invoice 42"}
		idem := append(admin(), "Idempotency-Key", "grant-invoice-42")
		first := g.do(t, http.MethodPost, path, body, idem...).data(t)
		second := g.do(t, http.MethodPost, path, body, idem...).data(t)
		if first["grantId"] == nil || first["grantId"] != second["grantId"] {
			t.Fatalf("retry granted again: %v then %v", first, second)
		}
		changed := map[string]any{"credits": 60, "kind": "purchased", "reason": "invoice 42"}
		g.do(t, http.MethodPost, path, changed, idem...).wantError(t, http.StatusConflict, "idempotency_conflict")
	})

	t.Run("admin validation", func(t *testing.T) {
		t.Parallel()
		d := g.do(t, http.MethodPost, "/admin/v1/organizations", map[string]any{"name": "", "tier": "gold"}, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")
		fields, _ := d["fields"].(map[string]any)
		if fields["name"] == nil || fields["tier"] == nil {
			t.Errorf("fields = %v, want name and tier", d)
		}
		g.do(t, http.MethodPost, "/admin/v1/organizations", `{"name":"x","tier":"free","extra":1}`, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")

		orgID := g.createOrg(t, "validation", "free")
		keys := "/admin/v1/organizations/" + orgID + "/keys"
		g.do(t, http.MethodPost, keys, map[string]any{"name": "k", "expiresAt": "tomorrow"}, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")
		g.do(t, http.MethodPost, keys, map[string]any{"name": "k", "expiresAt": time.Now().Add(-time.Minute).Format(time.RFC3339)}, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")
		g.do(t, http.MethodPost, keys, map[string]any{"name": strings.Repeat("n", 101)}, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")
		g.do(t, http.MethodPost, "/admin/v1/organizations/"+uuid.NewString()+"/keys", map[string]any{"name": "k"}, admin()...).
			wantError(t, http.StatusNotFound, "not_found")
		g.do(t, http.MethodPost, "/admin/v1/organizations/not-a-uuid/keys", map[string]any{"name": "k"}, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")
		g.do(t, http.MethodDelete, "/admin/v1/keys/"+uuid.NewString(), nil, admin()...).
			wantError(t, http.StatusNotFound, "not_found")
		g.do(t, http.MethodDelete, "/admin/v1/keys/nope", nil, admin()...).
			wantError(t, http.StatusBadRequest, "invalid_request")
		g.do(t, http.MethodGet, "/admin/v1/organizations", nil, admin()...).
			wantError(t, http.StatusMethodNotAllowed, "method_not_allowed")

		credits := "/admin/v1/organizations/" + orgID + "/credits"
		for _, body := range []string{
			`{"credits":0,"kind":"purchased","reason":"r"}`,
			`{"credits":1000001,"kind":"purchased","reason":"r"}`,
			`{"credits":1.5,"kind":"purchased","reason":"r"}`,
			`{"credits":"5","kind":"purchased","reason":"r"}`,
			`{"credits":5,"kind":"gift","reason":"r"}`,
			`{"credits":5,"kind":"purchased","reason":""}`,
			`{"credits":5,"kind":"purchased","reason":"` + strings.Repeat("r", 501) + `"}`,
		} {
			g.do(t, http.MethodPost, credits, body, admin()...).wantError(t, http.StatusBadRequest, "invalid_request")
		}
		g.do(t, http.MethodPost, "/admin/v1/organizations/"+uuid.NewString()+"/credits",
			map[string]any{"credits": 5, "kind": "purchased", "reason": "r"}, admin()...).wantError(t, http.StatusNotFound, "not_found")
	})

	t.Run("credit grants go to billing through the outbox", func(t *testing.T) {
		t.Parallel()
		orgID := g.createOrg(t, "granted", "creator")
		r := g.do(t, http.MethodPost, "/admin/v1/organizations/"+orgID+"/credits",
			map[string]any{"credits": 250, "kind": "subscription", "reason": "monthly allowance"}, admin()...)
		r.wantStatus(t, http.StatusAccepted)
		d := r.data(t)
		grantID, _ := d["grantId"].(string)
		if _, err := uuid.Parse(grantID); err != nil || d["organizationId"] != orgID || d["credits"] != 250.0 ||
			d["kind"] != "subscription" || d["reason"] != "monthly allowance" || d["status"] != "accepted" {
			t.Fatalf("grant = %v", d)
		}
		env := g.waitEvent(t, events.GatewayCreditsGranted, func(e events.Envelope) bool { return e.OrgID == orgID })
		var p events.CreditsGranted
		if err := env.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if env.ID != grantID || p.GrantID != grantID || p.Credits != 250 || p.Kind != "subscription" || p.OrganizationID != orgID {
			t.Fatalf("event %s = %+v", env.ID, p)
		}
	})

	t.Run("key is shown once and only its hash is stored", func(t *testing.T) {
		t.Parallel()
		orgID := g.createOrg(t, "keys", "free")
		exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		k := g.createKey(t, orgID, map[string]any{"name": "ci", "expiresAt": exp.Format(time.RFC3339)})
		key, _ := k["key"].(string)
		if !regexp.MustCompile(`^hk_live_[0-9A-Za-z]{43}$`).MatchString(key) {
			t.Fatalf("key %q has the wrong shape", key)
		}
		if k["prefix"] != key[:12] || k["name"] != "ci" || k["organizationId"] != orgID || k["expiresAt"] != exp.Format(time.RFC3339) {
			t.Fatalf("key = %v", k)
		}
	})

	t.Run("auth/verify describes the key and its organization", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "creator")
		r := g.api(t, tn.Key, http.MethodGet, "/auth/verify", nil)
		r.wantStatus(t, http.StatusOK)
		d := r.data(t)
		o, _ := d["organization"].(map[string]any)
		k, _ := d["key"].(map[string]any)
		if o["id"] != tn.OrgID || o["name"] != tn.Name || o["tier"] != "creator" {
			t.Fatalf("organization = %v", o)
		}
		if k["id"] != tn.KeyID || k["name"] != "test key" || k["prefix"] != tn.Key[:12] || k["expiresAt"] != nil {
			t.Fatalf("key = %v", k)
		}
		if _, err := time.Parse(time.RFC3339, k["createdAt"].(string)); err != nil {
			t.Fatalf("createdAt: %v", err)
		}
		if strings.Contains(string(r.Body), tn.Key) {
			t.Fatal("verify echoes the secret key")
		}
	})

	t.Run("every bad key gets the same 401", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		// A key that expires in 2 s: used once while valid, again later.
		expiresAt := time.Now().Add(2 * time.Second)
		expiring := g.createKey(t, tn.OrgID, map[string]any{
			"name":      "short-lived",
			"expiresAt": expiresAt.UTC().Format(time.RFC3339Nano),
		})["key"].(string)
		g.api(t, expiring, http.MethodGet, "/auth/verify", nil).wantStatus(t, http.StatusOK)

		revoked := g.createKey(t, tn.OrgID, map[string]any{"name": "revoked"})
		g.api(t, revoked["key"].(string), http.MethodGet, "/auth/verify", nil).wantStatus(t, http.StatusOK)
		g.do(t, http.MethodDelete, "/admin/v1/keys/"+revoked["id"].(string), nil, admin()...).wantStatus(t, http.StatusNoContent)
		g.do(t, http.MethodDelete, "/admin/v1/keys/"+revoked["id"].(string), nil, admin()...).wantStatus(t, http.StatusNoContent)

		unknown := "hk_live_" + strings.Repeat("A", 43)
		time.Sleep(time.Until(expiresAt.Add(50 * time.Millisecond)))

		cases := map[string][]string{
			"missing header":  nil,
			"basic scheme":    {"Authorization", "Basic x"},
			"empty bearer":    {"Authorization", "Bearer "},
			"malformed key":   bearer("hk_live_tooshort"),
			"unknown key":     bearer(unknown),
			"revoked key":     bearer(revoked["key"].(string)),
			"expired key":     bearer(expiring),
			"two headers":     {"Authorization", "Bearer " + tn.Key, "Authorization", "Bearer " + tn.Key},
			"key with suffix": bearer(tn.Key + "x"),
		}
		var first []byte
		for name, h := range cases {
			for _, path := range []string{"/auth/verify", "/thumbnails", "/no/such/path"} {
				r := g.do(t, http.MethodGet, "/api/v1"+path, nil, h...)
				if r.Status != http.StatusUnauthorized {
					t.Fatalf("%s on %s: status %d: %s", name, path, r.Status, r.Body)
				}
				if r.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s: no WWW-Authenticate header", name)
				}
				if first == nil {
					first = r.Body
				}
				if !bytes.Equal(r.Body, first) {
					t.Errorf("%s on %s: body %q differs from %q", name, path, r.Body, first)
				}
			}
		}
		if want := `{"error":"invalid API key","code":"unauthorized","details":{}}`; strings.TrimSpace(string(first)) != want {
			t.Fatalf("401 body = %s, want %s", first, want)
		}
	})

	t.Run("rate limit answers 429 with headers", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "tiny") // burst 3, 0.01 tokens per second
		for i := range 3 {
			r := g.api(t, tn.Key, http.MethodGet, "/auth/verify", nil)
			r.wantStatus(t, http.StatusOK)
			if r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
				t.Fatalf("request %d: limit %q remaining %q", i+1, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
			}
			if reset, err := strconv.Atoi(r.Header.Get("X-RateLimit-Reset")); err != nil || reset < 1 {
				t.Fatalf("request %d: X-RateLimit-Reset %q", i+1, r.Header.Get("X-RateLimit-Reset"))
			}
		}
		r := g.api(t, tn.Key, http.MethodGet, "/thumbnails", nil)
		r.wantError(t, http.StatusTooManyRequests, "rate_limited")
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || retry < 1 || retry > 100 {
			t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
		}
		if r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("429 headers: %v", r.Header)
		}
		// Another key, even of the same organization, has its own bucket.
		other := g.createKey(t, tn.OrgID, map[string]any{"name": "second"})["key"].(string)
		g.api(t, other, http.MethodGet, "/auth/verify", nil).wantStatus(t, http.StatusOK)
	})

	t.Run("authenticated responses carry rate limit headers", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		for _, path := range []string{"/account/credits", "/no/such/path", "/auth/verify"} {
			r := g.api(t, tn.Key, http.MethodGet, path, nil)
			if r.Header.Get("X-RateLimit-Limit") != "1000" || r.Header.Get("X-RateLimit-Remaining") == "" || r.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("%s: headers %v", path, r.Header)
			}
			if vs := r.Header.Values("X-Request-ID"); len(vs) != 1 {
				t.Errorf("%s: X-Request-ID values %v, want exactly one", path, vs)
			}
		}
	})

	t.Run("idempotent replay returns the stored status and body", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		thumbs := g.upstreams[httpapi.Thumbnails]
		var calls sync.Map
		thumbs.on("count", func(w http.ResponseWriter, r *http.Request, s seen) bool {
			n, _ := calls.LoadOrStore(r.Header.Get("Idempotency-Key"), new(int))
			*(n.(*int))++
			writeJSON(w, http.StatusCreated, map[string]any{"data": s})
			return true
		})
		key := "idem-" + uuid.NewString()
		body := `{"prompt":"a cat on a skateboard"}`
		first := g.api(t, tn.Key, http.MethodPost, "/thumbnails?x=1", body, "Idempotency-Key", key, "X-Test-Case", "count")
		first.wantStatus(t, http.StatusCreated)
		if got := first.seen(t).IdempotencyKey; got != key {
			t.Fatalf("principal idempotency key %q, want %q", got, key)
		}
		second := g.api(t, tn.Key, http.MethodPost, "/thumbnails?x=1", body, "Idempotency-Key", key, "X-Test-Case", "count")
		if second.Status != first.Status || !bytes.Equal(second.Body, first.Body) {
			t.Fatalf("replay %d %s\nwant %d %s", second.Status, second.Body, first.Status, first.Body)
		}
		if second.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("Idempotent-Replayed: first %q, replay %q", first.Header.Get("Idempotent-Replayed"), second.Header.Get("Idempotent-Replayed"))
		}
		if second.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
			t.Fatalf("content type %q, want %q", second.Header.Get("Content-Type"), first.Header.Get("Content-Type"))
		}
		if n, _ := calls.Load(key); *(n.(*int)) != 1 {
			t.Fatalf("upstream called %d times, want 1", *(n.(*int)))
		}

		// Same key, other body, query or path: conflict.
		g.api(t, tn.Key, http.MethodPost, "/thumbnails?x=1", `{"prompt":"a dog"}`, "Idempotency-Key", key, "X-Test-Case", "count").
			wantError(t, http.StatusConflict, "idempotency_conflict")
		g.api(t, tn.Key, http.MethodPost, "/thumbnails?x=2", body, "Idempotency-Key", key, "X-Test-Case", "count").
			wantError(t, http.StatusConflict, "idempotency_conflict")
		g.api(t, tn.Key, http.MethodPost, "/thumbnails/variations?x=1", body, "Idempotency-Key", key, "X-Test-Case", "count").
			wantError(t, http.StatusConflict, "idempotency_conflict")

		// Keys are scoped to the organization: another one runs anew.
		other := g.newTenant(t, "free")
		r := g.api(t, other.Key, http.MethodPost, "/thumbnails?x=1", body, "Idempotency-Key", key, "X-Test-Case", "count")
		r.wantStatus(t, http.StatusCreated)
		if r.seen(t).OrgID != other.OrgID || bytes.Equal(r.Body, first.Body) {
			t.Fatalf("another organization got %s", r.Body)
		}
	})

	t.Run("idempotency key still in flight is a conflict", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		arrived := make(chan struct{})
		release := make(chan struct{})
		var once sync.Once
		g.upstreams[httpapi.Assets].on("slow", func(w http.ResponseWriter, _ *http.Request, s seen) bool {
			once.Do(func() { close(arrived) })
			<-release
			writeJSON(w, http.StatusCreated, map[string]any{"data": s})
			return true
		})
		key := uuid.NewString()
		body := map[string]any{"name": "slow brand"}
		done := make(chan response, 1)
		go func() {
			done <- g.api(t, tn.Key, http.MethodPost, "/brands", body, "Idempotency-Key", key, "X-Test-Case", "slow")
		}()
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("first request never reached the upstream")
		}
		g.api(t, tn.Key, http.MethodPost, "/brands", body, "Idempotency-Key", key, "X-Test-Case", "slow").
			wantError(t, http.StatusConflict, "idempotency_conflict")
		close(release)
		first := <-done
		first.wantStatus(t, http.StatusCreated)
		again := g.api(t, tn.Key, http.MethodPost, "/brands", body, "Idempotency-Key", key, "X-Test-Case", "slow")
		if again.Status != http.StatusCreated || !bytes.Equal(again.Body, first.Body) {
			t.Fatalf("after completion: %d %s", again.Status, again.Body)
		}
	})

	t.Run("server errors are not stored", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		var mu sync.Mutex
		attempts := 0
		g.upstreams[httpapi.Thumbnails].on("flaky", func(w http.ResponseWriter, _ *http.Request, s seen) bool {
			mu.Lock()
			attempts++
			n := attempts
			mu.Unlock()
			if n == 1 {
				writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "try later", "code": "unavailable", "details": map[string]any{}})
				return true
			}
			writeJSON(w, http.StatusCreated, map[string]any{"data": s})
			return true
		})
		key := uuid.NewString()
		body := `{"thumbnailId":"0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00","count":2}`
		g.api(t, tn.Key, http.MethodPost, "/thumbnails/variations", body, "Idempotency-Key", key, "X-Test-Case", "flaky").
			wantStatus(t, http.StatusServiceUnavailable)
		ok := g.api(t, tn.Key, http.MethodPost, "/thumbnails/variations", body, "Idempotency-Key", key, "X-Test-Case", "flaky")
		ok.wantStatus(t, http.StatusCreated)
		if ok.Header.Get("Idempotent-Replayed") != "" {
			t.Fatal("the retry after a 503 was a replay")
		}
		replay := g.api(t, tn.Key, http.MethodPost, "/thumbnails/variations", body, "Idempotency-Key", key, "X-Test-Case", "flaky")
		mu.Lock()
		n := attempts
		mu.Unlock()
		if !bytes.Equal(replay.Body, ok.Body) || n != 2 {
			t.Fatalf("attempts %d, replay %s", n, replay.Body)
		}
	})

	t.Run("client errors are stored", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		calls := 0
		var mu sync.Mutex
		g.upstreams[httpapi.Thumbnails].on("broke", func(w http.ResponseWriter, _ *http.Request, _ seen) bool {
			mu.Lock()
			calls++
			mu.Unlock()
			writeJSON(w, http.StatusPaymentRequired, map[string]any{"error": "insufficient credits", "code": "insufficient_credits", "details": map[string]any{}})
			return true
		})
		key := uuid.NewString()
		a := g.api(t, tn.Key, http.MethodPost, "/thumbnails", `{"prompt":"x"}`, "Idempotency-Key", key, "X-Test-Case", "broke")
		b := g.api(t, tn.Key, http.MethodPost, "/thumbnails", `{"prompt":"x"}`, "Idempotency-Key", key, "X-Test-Case", "broke")
		a.wantError(t, http.StatusPaymentRequired, "insufficient_credits")
		mu.Lock()
		n := calls
		mu.Unlock()
		if b.Status != a.Status || !bytes.Equal(a.Body, b.Body) || n != 1 {
			t.Fatalf("402 not replayed: calls %d, %d %s", n, b.Status, b.Body)
		}
	})

	t.Run("invalid idempotency keys", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		for _, k := range []string{strings.Repeat("k", 256), "ключ"} {
			d := g.api(t, tn.Key, http.MethodPost, "/thumbnails", `{"prompt":"x"}`, "Idempotency-Key", k).
				wantError(t, http.StatusBadRequest, "invalid_request")
			if f, _ := d["fields"].(map[string]any); f["Idempotency-Key"] == nil {
				t.Errorf("details = %v", d)
			}
		}
		g.api(t, tn.Key, http.MethodPost, "/thumbnails", `{"prompt":"x"}`, "Idempotency-Key", "a", "Idempotency-Key", "b").
			wantError(t, http.StatusBadRequest, "invalid_request")
		// GET ignores the header.
		g.api(t, tn.Key, http.MethodGet, "/thumbnails", nil, "Idempotency-Key", strings.Repeat("k", 300)).wantStatus(t, http.StatusOK)
	})

	t.Run("body over the cap is refused", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		big := `{"prompt":"` + strings.Repeat("x", testMaxBody) + `"}`
		d := g.api(t, tn.Key, http.MethodPost, "/thumbnails", big).wantError(t, http.StatusBadRequest, "invalid_request")
		if d["maxBytes"] != float64(testMaxBody) {
			t.Fatalf("details = %v", d)
		}
		// With an idempotency key the body is read whole first.
		g.api(t, tn.Key, http.MethodPost, "/thumbnails", big, "Idempotency-Key", uuid.NewString()).
			wantError(t, http.StatusBadRequest, "invalid_request")
		// Without Content-Length the stream itself is capped.
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, g.URL+"/api/v1/thumbnails",
			struct{ *strings.Reader }{strings.NewReader(big)}) // hides Len, so the body is chunked
		req.Header.Set("Authorization", "Bearer "+tn.Key)
		resp, err := g.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("chunked oversized body: status %d", resp.StatusCode)
		}
		// At the cap exactly is fine.
		exact := `{"prompt":"` + strings.Repeat("y", testMaxBody-14) + `"}`
		g.api(t, tn.Key, http.MethodPost, "/thumbnails", exact).wantStatus(t, http.StatusCreated)
	})

	t.Run("unknown paths and methods", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		for _, p := range []string{"/nope", "/thumbnails/a/b/c", "/account", "/"} {
			g.api(t, tn.Key, http.MethodGet, p, nil).wantError(t, http.StatusNotFound, "not_found")
		}
		g.do(t, http.MethodGet, "/elsewhere", nil).wantError(t, http.StatusNotFound, "not_found")
		r := g.api(t, tn.Key, http.MethodPut, "/account/credits", nil)
		r.wantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := strings.Join(r.Header.Values("Allow"), ","); allow != "GET,HEAD" {
			t.Fatalf("Allow = %q", allow)
		}
	})

	t.Run("HEAD works on GET routes", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		for _, p := range []string{"/account/credits", "/auth/verify"} {
			r := g.api(t, tn.Key, http.MethodHead, p, nil)
			if r.Status != http.StatusOK || len(r.Body) != 0 || r.Header.Get(httpapi.HeaderLimit) == "" {
				t.Fatalf("HEAD %s: %d %v %q", p, r.Status, r.Header, r.Body)
			}
		}
		g.api(t, tn.Key, http.MethodHead, "/seo/titles", nil).wantStatus(t, http.StatusMethodNotAllowed)
	})

	t.Run("a body that is not JSON is refused with 415", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		before := g.upstreams[httpapi.Assets].callsFor(tn.OrgID)
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
			d := g.api(t, tn.Key, http.MethodPost, "/styles", `{"name":"s"}`, "Content-Type", ct).
				wantError(t, http.StatusUnsupportedMediaType, "unsupported_media_type")
			if d["contentType"] != ct {
				t.Fatalf("details %v", d)
			}
		}
		if n := g.upstreams[httpapi.Assets].callsFor(tn.OrgID) - before; n != 0 {
			t.Fatalf("%d refused requests reached the service", n)
		}
		g.api(t, tn.Key, http.MethodPost, "/styles", `{"name":"s"}`, "Content-Type", "application/json; charset=utf-8").
			wantStatus(t, http.StatusCreated)
	})

	t.Run("a service that is not deployed answers 503", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "free")
		d := g.api(t, tn.Key, http.MethodGet, "/clips/projects", nil).wantError(t, http.StatusServiceUnavailable, "unavailable")
		if d["service"] != "clips" {
			t.Fatalf("details = %v", d)
		}
		// Not stored for idempotency either.
		key := uuid.NewString()
		for range 2 {
			g.api(t, tn.Key, http.MethodPost, "/clips/projects", `{"video_site_url":"https://v/1"}`, "Idempotency-Key", key).
				wantError(t, http.StatusServiceUnavailable, "unavailable")
		}
	})

	t.Run("services get a signed principal and never the key", func(t *testing.T) {
		t.Parallel()
		tn := g.newTenant(t, "pro")
		forged, _ := principal.Sign([]byte(apptest.Secret), principal.Principal{OrgID: uuid.NewString(), Expires: time.Now().Add(time.Hour)})
		r := g.api(t, tn.Key, http.MethodGet, "/faces/"+uuid.NewString()+"?page=2", nil,
			principal.Header, forged, "X-Request-ID", "req-abc-123", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		r.wantStatus(t, http.StatusOK)
		s := r.seen(t)
		if s.OrgID != tn.OrgID || s.KeyID != tn.KeyID || s.Tier != "pro" {
			t.Fatalf("upstream saw %+v, want org %s key %s", s, tn.OrgID, tn.KeyID)
		}
		if s.Authorization != "" {
			t.Fatalf("the API key reached the service: %q", s.Authorization)
		}
		if s.RequestID != "req-abc-123" || s.HeaderID != "req-abc-123" || r.Header.Get("X-Request-ID") != "req-abc-123" {
			t.Fatalf("request id: principal %q header %q response %q", s.RequestID, s.HeaderID, r.Header.Get("X-Request-ID"))
		}
		if !strings.HasPrefix(s.Path, "/faces/") || s.Query != "page=2" {
			t.Fatalf("path %q query %q: /api/v1 must be stripped, the query kept", s.Path, s.Query)
		}
		if !strings.Contains(s.Traceparent, "0af7651916cd43dd8448eb211c80319c") {
			t.Fatalf("trace not continued: %q", s.Traceparent)
		}

		// Generated request ids are passed on too.
		r = g.api(t, tn.Key, http.MethodGet, "/styles", nil)
		if id := r.Header.Get("X-Request-ID"); id == "" || r.seen(t).RequestID != id {
			t.Fatalf("generated request id %q not passed on", id)
		}
	})

	// Real cross-tenant 404s and service ports refusing forged principals
	// are proven against the real services in e2e (TestTenantIsolation);
	// here, what the gateway itself decides.
	t.Run("an organization acts only as itself", func(t *testing.T) {
		t.Parallel()
		a := g.newTenant(t, "free")
		b := g.newTenant(t, "free")
		// A principal for A sent with B's key is replaced by B's.
		forged, _ := principal.Sign([]byte(apptest.Secret), principal.Principal{OrgID: a.OrgID, Expires: time.Now().Add(time.Hour)})
		s := g.api(t, b.Key, http.MethodGet, "/brands", nil, principal.Header, forged).seen(t)
		if s.OrgID != b.OrgID {
			t.Fatalf("B's request acted as %s", s.OrgID)
		}
		// Idempotency keys are per organization too: B cannot replay A's.
		key := uuid.NewString()
		ra := g.api(t, a.Key, http.MethodPost, "/styles", `{"name":"s"}`, "Idempotency-Key", key)
		rb := g.api(t, b.Key, http.MethodPost, "/styles", `{"name":"s"}`, "Idempotency-Key", key)
		if ra.seen(t).OrgID != a.OrgID || rb.seen(t).OrgID != b.OrgID || rb.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("A %s\nB %s", ra.Body, rb.Body)
		}
	})
}

// TestRoutingTable sends every method of every spec path through a
// gateway with all four services deployed and checks that each request
// reaches the service the routing table names, with its method, path and
// organization, and that every service is called exactly once per routed
// method: no endpoint is answered by the gateway itself.
func TestRoutingTable(t *testing.T) {
	g := startGateway(t, httpapi.Services, nil)
	tn := g.newTenant(t, "agency")
	fill := regexp.MustCompile(`\{[^}]+\}`)
	n, want := 0, map[string]int64{}
	for _, rt := range httpapi.Routes {
		want[rt.Service] += int64(len(rt.Methods))
		path := fill.ReplaceAllString(rt.Pattern, "0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00")
		for _, m := range rt.Methods {
			n++
			var body any
			if m == http.MethodPost || m == http.MethodPatch {
				body = `{}`
			}
			r := g.api(t, tn.Key, m, path, body)
			if r.Status >= 300 {
				t.Errorf("%s %s: status %d %s", m, path, r.Status, r.Body)
				continue
			}
			s := r.seen(t)
			if s.Service != rt.Service || s.Method != m || s.Path != path || s.OrgID != tn.OrgID {
				t.Errorf("%s %s reached %+v, want %s", m, path, s, rt.Service)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d routes: the table lost endpoints", n)
	}
	for _, svc := range httpapi.Services {
		if calls := g.upstreams[svc].callsFor(tn.OrgID); calls != want[svc] {
			t.Errorf("%s was called %d times, want %d (one per routed method)", svc, calls, want[svc])
		}
	}
}

// TestUnreachableService points assets at a closed port: its paths fail
// as 503 unavailable naming it, and the idempotency key is released for a
// retry.
func TestUnreachableService(t *testing.T) {
	g := startGateway(t, []string{httpapi.Billing}, map[string]string{"HOOKLINE_ASSETS_URL": "http://127.0.0.1:1"})
	tn := g.newTenant(t, "free")
	key := uuid.NewString()
	for range 2 {
		d := g.api(t, tn.Key, http.MethodPost, "/styles", `{"name":"s"}`, "Idempotency-Key", key).
			wantError(t, http.StatusServiceUnavailable, "unavailable")
		if d["service"] != httpapi.Assets {
			t.Fatalf("details %v", d)
		}
	}
}

// TestRunRejectsBadConfig checks that configuration errors stop Run
// before it touches anything.
func TestRunRejectsBadConfig(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"short admin token":   {"HOOKLINE_ADMIN_TOKEN": "short"},
		"key-shaped admin":    {"HOOKLINE_ADMIN_TOKEN": "hk_live_0123456789abcdef"},
		"tier list, not JSON": {"HOOKLINE_TIERS": "free,gold"},
		"zero rate limit":     {"HOOKLINE_TIERS": tierTable(0, 1, tiers.RateLimit{PerSecond: 1, Burst: 1})},
		"two tier sources":    {"HOOKLINE_TIERS": tierTable(1, 1, tiers.RateLimit{PerSecond: 1, Burst: 1}), "HOOKLINE_TIERS_FILE": "/etc/tiers.json"},
		"bad upstream":        {"HOOKLINE_BILLING_URL": "ftp://billing"},
		"long cache":          {"HOOKLINE_KEY_CACHE_TTL": "1m"},
		"short secret":        {"HOOKLINE_PRINCIPAL_SECRET": "tiny"},
		"zero body cap":       {"HOOKLINE_MAX_BODY_BYTES": "0"},
		"unparsable timeout":  {"HOOKLINE_UPSTREAM_TIMEOUT": "soon"},
	} {
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{
				"HOOKLINE_PRINCIPAL_SECRET": apptest.Secret,
				"HOOKLINE_ADMIN_TOKEN":      testAdminToken,
				"HOOKLINE_DATABASE_URL":     "postgres://invalid.invalid/db",
			}
			for k, v := range env {
				vars[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := runWith(ctx, vars)
			if err == nil || !strings.Contains(err.Error(), "config") {
				t.Fatalf("Run = %v, want a configuration error", err)
			}
		})
	}
}
