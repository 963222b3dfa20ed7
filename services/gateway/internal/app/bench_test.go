package app_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/principal"
	"hookline.dev/services/gateway/internal/httpapi"
)

// BenchmarkThroughput compares GET /account/credits sent straight to a
// (fake) service with the same request through the gateway: auth (cached),
// rate limit, principal signing and the proxy hop. The ratio of the two
// ns/op figures is the gateway's cost; with a service that does real work
// the hop matters relatively less than with this trivial echo.
//
//	go test -run '^$' -bench Throughput -benchtime 5s ./internal/app/
func BenchmarkThroughput(b *testing.B) {
	g := startGateway(b, []string{httpapi.Billing}, map[string]string{
		"HOOKLINE_RATE_LIMITS": "free=1000/1000,creator=1000/1000,pro=1000/1000,agency=1000000/1000000,tiny=1/1",
		"HOOKLINE_LOG_LEVEL":   "warn",
	})
	tn := g.newTenant(b, "agency")
	billing := g.upstreams[httpapi.Billing].srv.URL
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}

	run := func(b *testing.B, url string, header func() (string, string)) {
		b.ReportAllocs()
		// Enough concurrent clients to measure throughput, not latency.
		b.SetParallelism(benchParallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
				k, v := header()
				req.Header.Set(k, v)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		})
	}
	b.Run("direct", func(b *testing.B) {
		run(b, billing+"/account/credits", func() (string, string) {
			// What the gateway would send: a freshly signed principal.
			p, _ := principal.Sign([]byte(testSecret), principal.Principal{
				OrgID: tn.OrgID, KeyID: tn.KeyID, Tier: tn.Tier, RequestID: uuid.NewString(), Expires: time.Now().Add(time.Minute),
			})
			return principal.Header, p
		})
	})
	b.Run("gateway", func(b *testing.B) {
		run(b, g.base+"/api/v1/account/credits", func() (string, string) { return "Authorization", "Bearer " + tn.Key })
	})
}

var benchParallelism = func() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_PARALLELISM")); err == nil && n > 0 {
		return n
	}
	return 16
}()
