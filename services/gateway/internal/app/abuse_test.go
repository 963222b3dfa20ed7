package app_test

import (
	"bufio"
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/tiers"
	"hookline.dev/services/gateway/internal/httpapi"
	"hookline.dev/services/gateway/internal/ratelimit"
)

// sharedLimitEnv gives the free tier 20 requests/s with a burst of 20 and
// leases of 100 ms (2 tokens).
var sharedLimitEnv = map[string]string{
	"HOOKLINE_TIERS": tiers.Encode(
		tiers.Tier{Name: "free", BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 20, Burst: 20}},
		tiers.Tier{Name: "pro", BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 1000, Burst: 1000}},
	),
	"HOOKLINE_RATE_LIMIT_LEASE": "100ms",
}

// TestRateLimitHoldsAcrossGateways runs two gateways on one database and
// sends one key three times its limit, alternating between them. The
// design bounds what they admit together over the run's span T:
//   - at most Burst + Rate×T, because every admitted request spends a
//     token granted by the shared bucket, and leases start empty;
//   - at least that less what can be granted but unspent at the end: one
//     lease per gateway, plus the token each gateway may be waiting for
//     (it asks again only when the store said the next is due), plus one
//     for the clocks of client and database.
//
// The control runs the same load with shared buckets off: each gateway
// then admits the whole limit, and together about twice as much.
func TestRateLimitHoldsAcrossGateways(t *testing.T) {
	lim := ratelimit.Limit{Rate: 20, Burst: 20}
	lease := ratelimit.NewShared(nil, ratelimit.SharedOptions{Span: 100 * time.Millisecond}).LeaseSize(lim)

	t.Run("shared", func(t *testing.T) {
		g1 := startGateway(t, nil, sharedLimitEnv)
		g2 := startGateway(t, nil, withEnv(sharedLimitEnv, "HOOKLINE_DB_SCHEMA", g1.Schema))
		tn := g1.newTenant(t, "free")
		ok, refused, span, sent := overload(t, tn.Key, lim, []*gateway{g1, g2})
		most := float64(lim.Burst) + lim.Rate*span.Seconds()
		least := float64(lim.Burst) + lim.Rate*sent.Seconds() - float64(2*lease+2+1)
		t.Logf("admitted %d, refused %d in %v; design bounds [%.1f, %.1f]; rate %.1f/s against a limit of %.0f/s after the burst",
			ok, refused, span, least, most, float64(ok-lim.Burst)/span.Seconds(), lim.Rate)
		if float64(ok) > most || float64(ok) < least {
			t.Fatalf("two gateways admitted %d, want between %.1f and %.1f", ok, least, most)
		}
	})

	t.Run("control: per-gateway buckets admit about twice the limit", func(t *testing.T) {
		local := withEnv(sharedLimitEnv, "HOOKLINE_RATE_LIMIT_SHARED", "false")
		g1 := startGateway(t, nil, local)
		g2 := startGateway(t, nil, withEnv(local, "HOOKLINE_DB_SCHEMA", g1.Schema))
		tn := g1.newTenant(t, "free")
		ok, _, span, _ := overload(t, tn.Key, lim, []*gateway{g1, g2})
		if most := float64(lim.Burst) + lim.Rate*span.Seconds(); float64(ok) < 1.5*most {
			t.Fatalf("per-gateway buckets admitted %d, expected well over the shared bound %.1f", ok, most)
		}
	})
}

// overload sends GET /auth/verify with key at three times lim.Rate for
// four seconds, round-robin over gws, open loop (a slow answer does not
// delay the next request). It returns the 2xx and 429 counts, the span
// from the first send to the last answer, and the span of the sends.
func overload(t *testing.T, key string, lim ratelimit.Limit, gws []*gateway) (ok, refused int, span, sent time.Duration) {
	t.Helper()
	const duration = 4 * time.Second
	every := time.Duration(float64(time.Second) / (3 * lim.Rate))
	n := int(duration / every)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var okN, refusedN atomic.Int64
	var wg sync.WaitGroup
	tick := time.NewTicker(every)
	defer tick.Stop()
	start := time.Now()
	var lastSend time.Time
	for i := range n {
		g := gws[i%len(gws)]
		lastSend = time.Now()
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, g.URL+"/api/v1/auth/verify", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				okN.Add(1)
			case http.StatusTooManyRequests:
				refusedN.Add(1)
			default:
				t.Errorf("status %d", resp.StatusCode)
			}
		})
		<-tick.C
	}
	wg.Wait()
	return int(okN.Load()), int(refusedN.Load()), time.Since(start), lastSend.Sub(start)
}

func withEnv(base map[string]string, kv ...string) map[string]string {
	out := maps.Clone(base)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestStalledUpstream: a service that accepts a request and never answers
// costs a read its read deadline, not the generation deadline, and the
// gateway lets go of the service's connection; a client that trickles its
// body never reaches the service at all.
func TestStalledUpstream(t *testing.T) {
	g := startGateway(t, []string{httpapi.Assets}, map[string]string{
		"HOOKLINE_UPSTREAM_READ_TIMEOUT": "300ms",
		"HOOKLINE_BODY_READ_TIMEOUT":     "300ms",
	})
	tn := g.newTenant(t, "free")
	up := g.upstreams[httpapi.Assets]
	released := make(chan struct{}, 1)
	up.on("stall", func(_ http.ResponseWriter, r *http.Request, _ seen) bool {
		<-r.Context().Done()
		released <- struct{}{}
		return true
	})

	t.Run("a stalled read answers 503 after the read deadline", func(t *testing.T) {
		began := time.Now()
		d := g.api(t, tn.Key, http.MethodGet, "/faces", nil, "X-Test-Case", "stall").
			wantError(t, http.StatusServiceUnavailable, "unavailable")
		if took := time.Since(began); took < 300*time.Millisecond || took > 5*time.Second {
			t.Fatalf("answered after %v; the read deadline is 300 ms", took)
		}
		if d["service"] != httpapi.Assets {
			t.Fatalf("details %v", d)
		}
		select {
		case <-released:
		case <-time.After(5 * time.Second):
			t.Fatal("the service's request was never cancelled")
		}
	})

	t.Run("a trickled body never reaches the service", func(t *testing.T) {
		before := up.callsFor(tn.OrgID)
		conn, err := net.Dial("tcp", strings.TrimPrefix(g.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		body := `{"name":"slow"}`
		head := "POST /api/v1/brands HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer " + tn.Key +
			"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body[:5]
		if _, err := conn.Write([]byte(head)); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a stalled body: %v", err)
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		r := response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
		if d := r.wantError(t, http.StatusBadRequest, "invalid_request"); d["timeout"] != "300ms" {
			t.Fatalf("details %v", d)
		}
		if n := up.callsFor(tn.OrgID) - before; n != 0 {
			t.Fatalf("the service got %d requests", n)
		}
	})
}

// TestFailedAuthenticationsLimitedPerAddress: past its allowance of failed
// authentications an address gets 429 with Retry-After before any key
// lookup. X-Forwarded-For counts only from a trusted proxy.
func TestFailedAuthenticationsLimitedPerAddress(t *testing.T) {
	const bogus = "hk_live_0000000000000000000000000000000000000000000"
	flood := func(t *testing.T, g *gateway, xff string) response {
		t.Helper()
		for range 3 {
			g.api(t, bogus, http.MethodGet, "/auth/verify", nil, "X-Forwarded-For", xff).
				wantError(t, http.StatusUnauthorized, "unauthorized")
		}
		return g.api(t, bogus, http.MethodGet, "/auth/verify", nil, "X-Forwarded-For", xff)
	}
	limited := func(t *testing.T, r response) {
		t.Helper()
		d := r.wantError(t, http.StatusTooManyRequests, "rate_limited")
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || retry < 1 || d["retryAfter"] != float64(retry) {
			t.Fatalf("Retry-After %q, details %v", r.Header.Get("Retry-After"), d)
		}
	}

	t.Run("socket address by default", func(t *testing.T) {
		g := startGateway(t, nil, map[string]string{"HOOKLINE_AUTH_FAILURE_LIMIT": "0.01/3"})
		limited(t, flood(t, g, "203.0.113.7"))
		// A forged X-Forwarded-For is no way out.
		limited(t, g.api(t, bogus, http.MethodGet, "/auth/verify", nil, "X-Forwarded-For", "203.0.113.8"))
	})

	t.Run("X-Forwarded-For from a trusted proxy", func(t *testing.T) {
		g := startGateway(t, nil, map[string]string{
			"HOOKLINE_AUTH_FAILURE_LIMIT": "0.01/3",
			"HOOKLINE_TRUSTED_PROXIES":    "127.0.0.0/8,::1/128",
		})
		limited(t, flood(t, g, "198.51.100.1, 203.0.113.7"))
		// The client is the rightmost untrusted hop: another one has its
		// own allowance, whatever it claims further left.
		g.api(t, bogus, http.MethodGet, "/auth/verify", nil, "X-Forwarded-For", "203.0.113.7, 203.0.113.9").
			wantError(t, http.StatusUnauthorized, "unauthorized")
	})
}
