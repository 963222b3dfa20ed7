package app_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/gateway/internal/httpapi"
	"hookline.dev/services/gateway/internal/postgres"
	"hookline.dev/services/gateway/internal/ratelimit"
	"hookline.dev/services/gateway/migrations"
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
		"HOOKLINE_TIERS":     tierTable(1_000_000, 1_000_000, tiers.RateLimit{PerSecond: 1, Burst: 1}),
		"HOOKLINE_LOG_LEVEL": "warn",
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
			p, _ := principal.Sign([]byte(apptest.Secret), principal.Principal{
				OrgID: tn.OrgID, KeyID: tn.KeyID, Tier: tn.Tier, RequestID: uuid.NewString(), Expires: time.Now().Add(time.Minute),
			})
			return principal.Header, p
		})
	})
	b.Run("gateway", func(b *testing.B) {
		run(b, g.URL+"/api/v1/account/credits", func() (string, string) { return "Authorization", "Bearer " + tn.Key })
	})
}

var benchParallelism = func() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_PARALLELISM")); err == nil && n > 0 {
		return n
	}
	return 16
}()

// BenchmarkRateLimitStore compares the two shared stores a lease can come
// from, per take: the Postgres adapter the gateway uses (one upsert on an
// unlogged table, serialised by the row lock, on the database's clock) and
// the same bucket in a NATS KV bucket (get, then a compare-and-set update
// retried on conflict, on each replica's clock). "one key" has every
// goroutine take from the same bucket, as replicas serving one busy key
// do; "many keys" spreads them.
//
//	go test -run '^$' -bench RateLimitStore -benchtime 3s ./internal/app/
func BenchmarkRateLimitStore(b *testing.B) {
	ctx := context.Background()
	schema := testkit.Schema(b, "gwrl")
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(b), schema, pgkit.Options{MaxConns: 8})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if err := pgkit.Migrate(ctx, pool, migrations.FS); err != nil {
		b.Fatal(err)
	}
	nc, err := nats.Connect(testkit.NATSURL(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	bucket := "RATE_" + testkit.Suffix()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucket, Storage: jetstream.MemoryStorage, History: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = js.DeleteKeyValue(context.Background(), bucket) })

	lim := ratelimit.Limit{Rate: 1e9, Burst: 1_000_000_000}
	stores := map[string]ratelimit.Store{"postgres": postgres.NewRateBuckets(pool), "natskv": kvBuckets{kv}}
	for _, name := range []string{"postgres", "natskv"} {
		st := stores[name]
		for _, keys := range []int{1, 1000} {
			b.Run(fmt.Sprintf("%s/keys=%d", name, keys), func(b *testing.B) {
				b.SetParallelism(2) // 2×GOMAXPROCS takers
				var n atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						key := "k" + strconv.Itoa(int(n.Add(1))%keys)
						if _, err := st.Take(ctx, key, lim, 2); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// kvBuckets is the NATS KV variant of ratelimit.Store measured above.
type kvBuckets struct{ kv jetstream.KeyValue }

func (s kvBuckets) Take(ctx context.Context, key string, lim ratelimit.Limit, n int) (ratelimit.Lease, error) {
	for {
		now := time.Now()
		tokens, rev := float64(lim.Burst), uint64(0)
		e, err := s.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return ratelimit.Lease{}, err
		default:
			rev = e.Revision()
			v := e.Value()
			at := time.Unix(0, int64(binary.BigEndian.Uint64(v[8:])))
			tokens = min(float64(lim.Burst), math.Float64frombits(binary.BigEndian.Uint64(v))+max(0, now.Sub(at).Seconds())*lim.Rate)
		}
		g := min(n, int(tokens))
		tokens -= float64(g)
		v := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, math.Float64bits(tokens)), uint64(now.UnixNano()))
		if rev == 0 {
			_, err = s.kv.Create(ctx, key, v)
		} else {
			_, err = s.kv.Update(ctx, key, v, rev)
		}
		if errors.Is(err, jetstream.ErrKeyExists) || isWrongSequence(err) {
			continue // another replica took first; read again
		}
		if err != nil {
			return ratelimit.Lease{}, err
		}
		return ratelimit.Lease{Granted: g, Left: tokens}, nil
	}
}

func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}
