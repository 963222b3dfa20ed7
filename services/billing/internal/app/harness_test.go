package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/tiers"
	"hookline.dev/services/billing/internal/app"
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/postgres"
)

const secret = "test-principal-secret-0123456789abcdef"

// harness runs a real billing service against a fresh schema and NATS
// namespace and talks to it the way other services do.
type harness struct {
	t     *testing.T
	env   map[string]string
	url   string
	bus   *messaging.Bus
	pool  *pgxpool.Pool
	store *postgres.Store
	stop  func() // stops the in-process instance
}

func newHarness(t *testing.T, overrides ...string) *harness {
	t.Helper()
	schema := testkit.Schema(t, "billing")
	ns := testkit.Namespace(t)
	addr := testkit.FreeAddr(t)
	h := &harness{t: t, url: "http://" + addr, env: map[string]string{
		"HOOKLINE_DATABASE_URL":     testkit.DatabaseURL(t),
		"HOOKLINE_NATS_URL":         testkit.NATSURL(t),
		"HOOKLINE_NATS_NAMESPACE":   ns,
		"HOOKLINE_DB_SCHEMA":        schema,
		"HOOKLINE_HTTP_ADDR":        addr,
		"HOOKLINE_PRINCIPAL_SECRET": secret,
		"HOOKLINE_TIERS": tiers.Encode(
			tiers.Tier{Name: "pro", MonthlyCredits: 100, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 1, Burst: 1}},
			tiers.Tier{Name: "capped", MonthlyCredits: 100, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 1, Burst: 1}, Quotas: tiers.Quotas{PaidOpsPerDay: 3}}),
		"HOOKLINE_LOG_LEVEL": "warn",
	}}
	for i := 0; i+1 < len(overrides); i += 2 {
		h.env[overrides[i]] = overrides[i+1]
	}
	ctx := t.Context()
	nc, err := messaging.Connect(ctx, testkit.NATSURL(t), "billing-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if h.bus, err = messaging.NewBus(nc, ns); err != nil {
		t.Fatal(err)
	}
	h.start()
	if h.pool, err = pgkit.Connect(ctx, testkit.DatabaseURL(t), schema, pgkit.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pool.Close)
	// Several writers, as on a larger machine (the default is one): the
	// tests then also cover commands of one group racing another's.
	h.store = postgres.New(h.pool, 4, nil)
	t.Cleanup(h.store.Close)
	return h
}

// start runs the service until the test ends.
func (h *harness) start() {
	h.t.Helper()
	h.stop = testkit.StartService(h.t, "billing", app.Run, h.env, h.url+"/readyz")
}

// publish sends an event as its producer's outbox relay would.
func (h *harness) publish(typ, orgID string, data any) string {
	h.t.Helper()
	env, err := events.New(context.Background(), typ, "test", orgID, data)
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := json.Marshal(env)
	if _, err := h.bus.JS.Publish(context.Background(), h.bus.Subject(typ), b, jetstream.WithMsgID(env.ID)); err != nil {
		h.t.Fatalf("publish %s: %v", typ, err)
	}
	return env.ID
}

// openAccount creates an organization the way the gateway announces it and
// waits until billing has opened its account.
func (h *harness) openAccount(tier string) string {
	h.t.Helper()
	org := uuid.NewString()
	h.publish(events.GatewayOrganizationCreated, org, events.OrganizationCreated{OrganizationID: org, Name: "org " + org[:8], Tier: tier})
	testkit.Eventually(h.t, 10*time.Second, "account opened", func() bool {
		_, err := h.store.Balance(context.Background(), org)
		return err == nil
	})
	return org
}

func (h *harness) reserve(ctx context.Context, org, id string, credits int64) (events.ReserveReply, error) {
	var reply events.ReserveReply
	err := h.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{
		ReservationID: id, OrgID: org, Credits: credits, Operation: "thumbnail.generate", ResourceType: "thumbnail", ResourceID: id,
	}, &reply)
	return reply, err
}

// settle publishes the owner's outcome of a reservation and returns the
// event id once the stream has stored it.
func (h *harness) settle(org, reservationID string, completed bool) string {
	typ := events.ThumbnailsOperationFailed
	if completed {
		typ = events.ThumbnailsOperationCompleted
	}
	return h.publish(typ, org, events.Settlement{ReservationID: reservationID})
}

// waitProcessed waits until billing has processed every event of ids (its
// inbox holds them all; duplicates included).
func (h *harness) waitProcessed(ids []string) {
	h.t.Helper()
	testkit.Eventually(h.t, 30*time.Second, "events processed", func() bool {
		var n int
		_ = h.pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE event_id = ANY($1)`, ids).Scan(&n)
		return n == len(ids)
	})
}

func (h *harness) balance(org string) ledger.Balance {
	h.t.Helper()
	b, err := h.store.Balance(context.Background(), org)
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

func (h *harness) usageStatus(reservationID string) string {
	var s string
	_ = h.pool.QueryRow(context.Background(), `SELECT status FROM usage WHERE reservation_id = $1`, reservationID).Scan(&s)
	return s
}

// checkInvariants verifies ARCHITECTURE.md §3 over everything billing stored:
// every account is non-negative and balanced after every single event, no
// reservation is terminal twice, projections equal a rebuild, and the
// outbox drains.
func checkInvariants(t *testing.T, pool *pgxpool.Pool, store *postgres.Store) {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT stream, version, type, data FROM events ORDER BY stream, version`)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		stream, typ string
		version     int64
		data        []byte
	}
	var all []ev
	for rows.Next() {
		var e ev
		if err := rows.Scan(&e.stream, &e.version, &e.typ, &e.data); err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
	rows.Close()
	accounts := map[string]*ledger.Account{}
	for _, e := range all {
		a := accounts[e.stream]
		if a == nil {
			a = ledger.New(e.stream)
			accounts[e.stream] = a
		}
		if e.version != a.Version+1 {
			t.Fatalf("%s: version %d follows %d", e.stream, e.version, a.Version)
		}
		le, err := postgres.DecodeEvent(e.typ, e.data)
		if err != nil {
			t.Fatal(err)
		}
		a.Apply(le)
		if err := a.CheckInvariants(); err != nil {
			t.Fatalf("%s at version %d: %v", e.stream, e.version, err)
		}
	}
	var twice int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM (
		SELECT data->>'reservationId' FROM events WHERE type IN ('ReservationCommitted','ReservationRefunded','ReservationExpired')
		GROUP BY 1 HAVING count(*) > 1) d`).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if twice != 0 {
		t.Fatalf("%d reservations are terminal more than once", twice)
	}
	if err := store.VerifyProjections(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "outbox drained", func() bool {
		n, err := messaging.OutboxPending(ctx, pool)
		return err == nil && n == 0
	})
}

// get calls billing directly with a principal for org (as the gateway would).
func (h *harness) get(path, org string) (*http.Response, error) {
	req, _ := http.NewRequest(http.MethodGet, h.url+path, nil)
	if org != "" {
		v, err := principal.Sign([]byte(secret), principal.Principal{OrgID: org, KeyID: "k", Tier: "pro", Expires: time.Now().Add(time.Minute)})
		if err != nil {
			return nil, err
		}
		req.Header.Set(principal.Header, v)
	}
	return http.DefaultClient.Do(req)
}

func concurrently(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}
