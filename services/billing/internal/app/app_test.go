package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/billing/internal/app"
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/natsapi"
)

func TestConcurrentReservationsNeverOverdraw(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro") // 100 subscription credits
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var ok, insufficient, other atomic.Int64
	concurrently(1000, func(i int) {
		reply, err := h.reserve(ctx, org, fmt.Sprintf("burst-%d", i), 2)
		switch {
		case err != nil:
			t.Errorf("reserve %d: %v", i, err)
		case reply.Outcome == events.ReserveOK:
			ok.Add(1)
		case reply.Outcome == events.ReserveInsufficientCredits:
			insufficient.Add(1)
		default:
			other.Add(1)
		}
	})
	if ok.Load() != 50 || insufficient.Load() != 950 || other.Load() != 0 {
		t.Fatalf("ok=%d insufficient=%d other=%d, want 50/950/0", ok.Load(), insufficient.Load(), other.Load())
	}
	if b := h.balance(org); b.Subscription+b.Purchased != 0 {
		t.Fatalf("balance %+v, want 0", b)
	}
	checkInvariants(t, h.Pool, h.store)
}

func TestReservationIsIdempotent(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	ctx := t.Context()
	concurrently(20, func(int) {
		if r, err := h.reserve(ctx, org, "same", 7); err != nil || r.Outcome != events.ReserveOK {
			t.Errorf("reserve: %+v %v", r, err)
		}
	})
	if b := h.balance(org); b.Subscription != 93 {
		t.Fatalf("after 20 identical reservations balance = %d, want 93", b.Subscription)
	}
	// After it settles, a retried reserve still does not hold again.
	h.settle(org, "same", true)
	testkit.Eventually(t, 10*time.Second, "commit", func() bool { return h.usageStatus("same") == "committed" })
	if r, err := h.reserve(ctx, org, "same", 7); err != nil || r.Outcome != events.ReserveOK {
		t.Fatalf("retry after commit: %+v %v", r, err)
	}
	if b := h.balance(org); b.Subscription != 93 {
		t.Fatalf("balance = %d, want 93", b.Subscription)
	}
	// The same id from another organization is refused, not double-booked.
	other := h.openAccount("pro")
	if r, _ := h.reserve(ctx, other, "same", 7); r.Outcome != events.ReserveInvalid {
		t.Fatalf("foreign reuse of a reservation id: %+v", r)
	}
	checkInvariants(t, h.Pool, h.store)
}

// TestReservationsAcrossReplicas: reservations that alternate between two
// replicas (the service and a second store on the same schema) each find
// the other's cached account state stale. One round trip is enough for a
// replica whose cache is current; a stale one is caught by the event key
// and the group rerun, so nothing is lost or counted twice.
func TestReservationsAcrossReplicas(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	ctx := t.Context()
	counter := func(result string) int64 {
		return int64(testkit.ScrapeProcess(t).Value("hookline_billing_optimistic_groups_total", "result", result))
	}
	commits, reruns := counter("committed"), counter("rerun")

	// On one replica, back to back: every group after the first (which
	// loads the account) commits in one round trip.
	for i := range 5 {
		if r, err := h.reserve(ctx, org, fmt.Sprintf("solo-%d", i), 1); err != nil || r.Outcome != events.ReserveOK {
			t.Fatalf("reserve: %+v %v", r, err)
		}
	}
	if c, r := counter("committed")-commits, counter("rerun")-reruns; c < 4 || r != 0 {
		t.Fatalf("one replica: %d optimistic commits, %d reruns; want ≥ 4 and 0", c, r)
	}

	// Alternating: each replica's cache is one append behind every time.
	reruns = counter("rerun")
	const rounds = 6
	for i := range rounds {
		if r, err := h.reserve(ctx, org, fmt.Sprintf("service-%d", i), 2); err != nil || r.Outcome != events.ReserveOK {
			t.Fatalf("reserve via the service: %+v %v", r, err)
		}
		if err := h.store.Reserve(ctx, org, ledger.ReserveCommand{ReservationID: fmt.Sprintf("store-%d", i), Credits: 3, Operation: "thumbnail.generate", TTL: time.Hour},
			func(string) ledger.Quotas { return ledger.Quotas{} }); err != nil {
			t.Fatalf("reserve via the second store: %v", err)
		}
	}
	if n := counter("rerun") - reruns; n < rounds {
		t.Errorf("%d reruns of stale groups, want at least %d", n, rounds)
	}
	if b := h.balance(org); b.Subscription != 100-5-rounds*(2+3) {
		t.Fatalf("balance %d, want %d", b.Subscription, 100-5-rounds*(2+3))
	}
	checkInvariants(t, h.Pool, h.store)
}

func TestSettlements(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	ctx := t.Context()
	mustReserve := func(id string, credits int64) {
		t.Helper()
		if r, err := h.reserve(ctx, org, id, credits); err != nil || r.Outcome != events.ReserveOK {
			t.Fatalf("reserve %s: %+v %v", id, r, err)
		}
	}

	// Two terminal events for one reservation: the first wins. (Billing
	// consumes settlements with many workers, so only events published
	// after the first was applied are certain to come second.)
	duplicates := func() float64 {
		return testkit.ScrapeProcess(t).Value("hookline_billing_settlements_total", "outcome", "duplicate")
	}
	seen := duplicates()
	mustReserve("twice", 10)
	h.settle(org, "twice", true)
	testkit.Eventually(t, 10*time.Second, "first outcome", func() bool { return h.usageStatus("twice") == "committed" })
	later := []string{h.settle(org, "twice", false), h.settle(org, "twice", true)}
	// Failure refunds.
	mustReserve("fails", 5)
	later = append(later, h.settle(org, "fails", false))
	h.WaitProcessed("", later...)
	if h.usageStatus("twice") != "committed" || h.usageStatus("fails") != "refunded" {
		t.Fatalf("twice %s, fails %s", h.usageStatus("twice"), h.usageStatus("fails"))
	}
	if got := duplicates(); got < seen+2 {
		t.Fatalf("duplicate settlements counted %v, want at least %v", got, seen+2)
	}

	// A terminal event before its reservation: applied when it lands.
	h.settle(org, "early-done", true)
	h.settle(org, "early-failed", false)
	testkit.Eventually(t, 10*time.Second, "early settlements recorded", func() bool {
		var n int
		_ = h.Pool.QueryRow(ctx, `SELECT count(*) FROM early_settlements`).Scan(&n)
		return n == 2
	})
	mustReserve("early-done", 3)
	mustReserve("early-failed", 4)
	if s := h.usageStatus("early-done"); s != "committed" {
		t.Fatalf("early completed → %q", s)
	}
	if s := h.usageStatus("early-failed"); s != "refunded" {
		t.Fatalf("early failed → %q", s)
	}
	if b := h.balance(org); b.Subscription != 100-10-3 {
		t.Fatalf("balance %d, want 87", b.Subscription)
	}
	checkInvariants(t, h.Pool, h.store)
}

func TestGrantsAndQuotas(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("capped") // 100 credits, 3 paid operations a day
	grant := uuid.NewString()
	var grantEvents []string
	for range 2 { // the same grant twice counts once
		grantEvents = append(grantEvents, h.publish(events.GatewayCreditsGranted, org, events.CreditsGranted{GrantID: grant, OrganizationID: org, Credits: 5, Kind: "purchased", Reason: "top-up"}))
	}
	h.WaitProcessed("", grantEvents...)
	if b := h.balance(org); b.Purchased != 5 {
		t.Fatalf("one grant sent twice: purchased %d, want 5", b.Purchased)
	}

	ctx := t.Context()
	for i := range 3 {
		if r, _ := h.reserve(ctx, org, fmt.Sprintf("q%d", i), 1); r.Outcome != events.ReserveOK {
			t.Fatalf("reserve %d: %+v", i, r)
		}
	}
	if r, _ := h.reserve(ctx, org, "q3", 1); r.Outcome != events.ReserveQuotaExceeded {
		t.Fatalf("4th paid operation: %+v", r)
	}
	for _, bad := range []events.ReserveRequest{
		{ReservationID: "", OrgID: org, Credits: 1, Operation: "x"},
		{ReservationID: "r", OrgID: "not-a-uuid", Credits: 1, Operation: "x"},
		{ReservationID: "r", OrgID: org, Credits: 0, Operation: "x"},
		{ReservationID: "r", OrgID: org, Credits: 1},
	} {
		var reply events.ReserveReply
		if err := h.Bus.Request(ctx, events.BillingReserveRPC, bad, &reply); err != nil || reply.Outcome != events.ReserveInvalid {
			t.Errorf("%+v → %+v %v", bad, reply, err)
		}
	}
	if b := h.balance(org); b.Purchased != 5 || b.Subscription != 97 {
		t.Fatalf("balance %+v", b)
	}
	checkInvariants(t, h.Pool, h.store)
}

func TestExpiry(t *testing.T) {
	h := newHarness(t, "HOOKLINE_RESERVATION_TTL", "300ms", "HOOKLINE_EXPIRY_INTERVAL", "100ms")
	org := h.openAccount("pro")
	if r, err := h.reserve(t.Context(), org, "stale", 9); err != nil || r.Outcome != events.ReserveOK {
		t.Fatalf("reserve: %+v %v", r, err)
	}
	testkit.Eventually(t, 10*time.Second, "expiry", func() bool { return h.usageStatus("stale") == "expired" })
	h.WaitProcessed("", h.settle(org, "stale", true)) // too late: a no-op
	if h.usageStatus("stale") != "expired" || h.balance(org).Subscription != 100 {
		t.Fatalf("late settlement changed the account: %s %+v", h.usageStatus("stale"), h.balance(org))
	}
	checkInvariants(t, h.Pool, h.store)
}

func TestHTTP(t *testing.T) {
	h := newHarness(t)
	orgA, orgB := h.openAccount("pro"), h.openAccount("pro")
	if r, err := h.reserve(t.Context(), orgA, "a-1", 4); err != nil || r.Outcome != events.ReserveOK {
		t.Fatal(r, err)
	}

	body := readJSON(t, h.Do("GET", "/account/credits", orgA, nil), 200)
	want := `{"data":{"tier":"pro","credits":{"total":96,"purchased":0,"subscription":96},"canGenerate":true,"billingCycle":"monthly"}}`
	var wantBody map[string]any
	_ = json.Unmarshal([]byte(want), &wantBody)
	if !reflect.DeepEqual(body, wantBody) {
		t.Fatalf("credits = %v\nwant %s", body, want)
	}

	usage := readJSON(t, h.Do("GET", "/account/usage?limit=10", orgA, nil), 200)
	items := usage["data"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != "a-1" || items[0].(map[string]any)["status"] != "reserved" {
		t.Fatalf("usage of A: %v", usage)
	}
	// B sees none of A's data.
	if items := readJSON(t, h.Do("GET", "/account/usage", orgB, nil), 200)["data"].([]any); len(items) != 0 {
		t.Fatalf("B sees %v", items)
	}
	// No principal, no entry.
	if e := readJSON(t, h.Do("GET", "/account/credits", "", nil), 401); e["code"] != "unauthorized" {
		t.Fatalf("without principal: %v", e)
	}
	for _, q := range []string{"limit=0", "limit=101", "page=0", "page=x", "limit=1.5"} {
		if e := readJSON(t, h.Do("GET", "/account/usage?"+q, orgA, nil), 400); e["code"] != "invalid_request" {
			t.Fatalf("%s: %v", q, e)
		}
	}
	readJSON(t, h.Do("GET", "/account/nope", orgA, nil), 404)
}

func readJSON(t *testing.T, r testkit.Response, status int) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Raw, &m); err != nil {
		t.Fatalf("body %q: %v", r.Raw, err)
	}
	return m
}

func TestGrantBeforeAccountOpens(t *testing.T) {
	h := newHarness(t)
	org := uuid.NewString()
	// The grant overtakes the organization's creation: it is refused while
	// the account is not open, released, redelivered and then applied.
	h.publish(events.GatewayCreditsGranted, org, events.CreditsGranted{GrantID: uuid.NewString(), OrganizationID: org, Credits: 7, Kind: "purchased", Reason: "early"})
	cons, err := h.Bus.JS.Consumer(t.Context(), h.Bus.StreamName(events.StreamGateway), natsapi.GatewayConsumer)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "grant refused and redelivered", func() bool {
		info, err := cons.Info(t.Context())
		return err == nil && info.NumRedelivered > 0
	})
	h.publish(events.GatewayOrganizationCreated, org, events.OrganizationCreated{OrganizationID: org, Name: "late", Tier: "pro"})
	testkit.Eventually(t, 15*time.Second, "early grant applied", func() bool {
		b, err := h.store.Balance(context.Background(), org)
		return err == nil && b.Purchased == 7 && b.Subscription == 100
	})
	checkInvariants(t, h.Pool, h.store)
}

func TestSettlementNamingAnotherAccount(t *testing.T) {
	h := newHarness(t)
	owner, other := h.openAccount("pro"), h.openAccount("pro")
	if r, err := h.reserve(t.Context(), owner, "mislabelled", 6); err != nil || r.Outcome != events.ReserveOK {
		t.Fatal(r, err)
	}
	h.settle(other, "mislabelled", false) // the event names the wrong organization
	testkit.Eventually(t, 10*time.Second, "refund on the owner's account", func() bool { return h.usageStatus("mislabelled") == "refunded" })
	if b := h.balance(owner); b.Subscription != 100 {
		t.Fatalf("owner balance %d", b.Subscription)
	}
	checkInvariants(t, h.Pool, h.store)
}

// A rebuild runs beside live billing: batches of three events (pages that
// end mid-stream, streams spread over batches) replace damaged projections
// while reservations and adjustments keep landing, and afterwards the
// projections equal a rebuild.
func TestRebuildUnderLiveTraffic(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	orgs := make([]string, 5)
	for i := range orgs {
		orgs[i] = h.openAccount("pro")
		for j := range 3 {
			if r, err := h.reserve(ctx, orgs[i], fmt.Sprintf("pre-%d-%d", i, j), 2); err != nil || r.Outcome != events.ReserveOK {
				t.Fatal(r, err)
			}
		}
	}
	if _, err := h.Pool.Exec(ctx, `UPDATE balances SET subscription = 0; DELETE FROM usage`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	var ops atomic.Int64
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			org := orgs[i%len(orgs)]
			if r, err := h.reserve(ctx, org, fmt.Sprintf("live-%d", i), 1); err != nil || r.Outcome != events.ReserveOK {
				done <- fmt.Errorf("live reserve %d: %+v %w", i, r, err)
				return
			}
			var r events.AdjustReply
			if err := h.Bus.Request(ctx, events.BillingAdjustRPC, events.AdjustRequest{AdjustmentID: fmt.Sprintf("adj-%d", i), OrgID: org, Credits: 1, Reason: "live"}, &r); err != nil || r.Outcome != events.ReserveOK {
				done <- fmt.Errorf("live adjustment %d: %+v %w", i, r, err)
				return
			}
			ops.Add(1)
		}
	}()
	env := testkit.Getenv(map[string]string{
		"HOOKLINE_DATABASE_URL": h.Env["HOOKLINE_DATABASE_URL"], "HOOKLINE_DB_SCHEMA": h.Env["HOOKLINE_DB_SCHEMA"],
		"HOOKLINE_REBUILD_BATCH": "3",
	})
	for range 3 {
		before := ops.Load()
		var out strings.Builder
		if err := app.Rebuild(ctx, env, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "rebuilt projections of 5 accounts") {
			t.Fatalf("output %q", out.String())
		}
		// Live traffic went on during the rebuilds.
		testkit.Eventually(t, 10*time.Second, "live traffic", func() bool { return ops.Load() > before })
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, h.Pool, h.store)
}

func TestRebuildCommandRestoresProjections(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	if r, err := h.reserve(t.Context(), org, "kept", 3); err != nil || r.Outcome != events.ReserveOK {
		t.Fatal(r, err)
	}
	h.Stop() // projections are only ever rebuilt with writers stopped or blocked
	ctx := context.Background()
	if _, err := h.Pool.Exec(ctx, `UPDATE balances SET subscription = 0; DELETE FROM usage`); err != nil {
		t.Fatal(err)
	}
	if err := h.store.VerifyProjections(ctx); err == nil {
		t.Fatal("damaged projections verified")
	}
	var out strings.Builder
	if err := app.Rebuild(ctx, testkit.Getenv(map[string]string{
		"HOOKLINE_DATABASE_URL": h.Env["HOOKLINE_DATABASE_URL"], "HOOKLINE_DB_SCHEMA": h.Env["HOOKLINE_DB_SCHEMA"],
	}), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "rebuilt projections of 1 accounts") {
		t.Fatalf("output %q", out.String())
	}
	if b := h.balance(org); b.Subscription != 97 || h.usageStatus("kept") != "reserved" {
		t.Fatalf("after rebuild: %+v %q", b, h.usageStatus("kept"))
	}
	if err := h.store.VerifyProjections(ctx); err != nil {
		t.Fatal(err)
	}
}
