package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/billing/internal/app"
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/postgres"
)

// harness runs a real billing service against a fresh schema and NATS
// namespace and talks to it the way other services do.
type harness struct {
	*apptest.Service
	store *postgres.Store
}

func newHarness(t *testing.T, overrides ...string) *harness {
	t.Helper()
	h := &harness{Service: apptest.Start(t, apptest.Config{Name: "billing", Run: app.Run, Env: append([]string{
		"HOOKLINE_TIERS", tiers.Encode(
			tiers.Tier{Name: "pro", MonthlyCredits: 100, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 1, Burst: 1}},
			tiers.Tier{Name: "capped", MonthlyCredits: 100, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 1, Burst: 1}, Quotas: tiers.Quotas{PaidOpsPerDay: 3}}),
	}, overrides...)})}
	// Several writers, as on a larger machine (the default is one): the
	// tests then also cover commands of one group racing another's.
	h.store = postgres.New(h.Pool, 4, nil)
	t.Cleanup(h.store.Close)
	return h
}

// publish sends an event as its producer's outbox relay would and returns
// its id.
func (h *harness) publish(typ, orgID string, data any) string {
	h.T.Helper()
	return h.Emit(typ, "test", orgID, data).ID
}

// openAccount creates an organization the way the gateway announces it and
// waits until billing has opened its account.
func (h *harness) openAccount(tier string) string {
	h.T.Helper()
	org := uuid.NewString()
	h.publish(events.GatewayOrganizationCreated, org, events.OrganizationCreated{OrganizationID: org, Name: "org " + org[:8], Tier: tier})
	testkit.Eventually(h.T, 10*time.Second, "account opened", func() bool {
		_, err := h.store.Balance(context.Background(), org)
		return err == nil
	})
	return org
}

func (h *harness) reserve(ctx context.Context, org, id string, credits int64) (events.ReserveReply, error) {
	var reply events.ReserveReply
	err := h.Bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{
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

func (h *harness) balance(org string) ledger.Balance {
	h.T.Helper()
	b, err := h.store.Balance(context.Background(), org)
	if err != nil {
		h.T.Fatal(err)
	}
	return b
}

func (h *harness) usageStatus(reservationID string) string {
	var s string
	_ = h.Pool.QueryRow(context.Background(), `SELECT status FROM usage WHERE reservation_id = $1`, reservationID).Scan(&s)
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
	apptest.WaitOutboxDrained(t, pool)
}

func concurrently(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}
