package app_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/natsapi"
	"hookline.dev/services/billing/internal/postgres"
)

// TestConflictingSettlements: a reservation whose owner reports both
// completed and failed ends with the first outcome billing applies, and the
// second never overturns it. When the owner sends strictly one after the
// other (completed stored by the stream before failed is sent), completed
// is that first outcome every time, whether the reservation is already
// there or arrives after both.
func TestConflictingSettlements(t *testing.T) {
	h := newHarness(t, "HOOKLINE_TIERS", tiers.Encode(tiers.Tier{Name: "pro", MonthlyCredits: 10000, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 1, Burst: 1}}))
	org := h.openAccount("pro")
	ctx := t.Context()
	const n = 300
	mustReserve := func(id string) {
		if r, err := h.reserve(ctx, org, id, 1); err != nil || r.Outcome != events.ReserveOK {
			t.Errorf("reserve %s: %+v %v", id, r, err)
		}
	}
	var mu sync.Mutex
	var sent []string
	sentIDs := func(ids ...string) {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, ids...)
	}

	// sendInOrder publishes completed, then failed, for each reservation
	// while billing is down, so that it finds both outcomes of each in its
	// backlog (as after a restart or a lag) and handles them at once.
	sendInOrder := func(prefix string) {
		sent = nil
		h.Stop()
		for i := range n { // each pair side by side in the stream
			id := fmt.Sprintf("%s-%d", prefix, i)
			sentIDs(h.settle(org, id, true), h.settle(org, id, false))
		}
		h.Restart()
		h.WaitProcessed("", sent...)
	}

	t.Run("sent in order, completed first", func(t *testing.T) {
		concurrently(n, func(i int) { mustReserve(fmt.Sprintf("ordered-%d", i)) })
		sendInOrder("ordered")
		if got := h.countStatus("ordered-%", "committed"); got != n {
			t.Fatalf("%d of %d reservations committed; the others were overturned by a later failure", got, n)
		}
	})

	t.Run("sent in order before the reservation", func(t *testing.T) {
		sendInOrder("early")
		concurrently(n, func(i int) { mustReserve(fmt.Sprintf("early-%d", i)) })
		if got := h.countStatus("early-%", "committed"); got != n {
			t.Fatalf("%d of %d early reservations committed", got, n)
		}
	})

	t.Run("sent at once to two replicas", func(t *testing.T) {
		// Two replicas' stores each get one outcome at the same moment
		// (which one alternates): either may be applied first, and each
		// store says whether its outcome was.
		stores := [2]*postgres.Store{h.store, postgres.New(h.Pool, 1, nil)}
		defer stores[1].Close()
		concurrently(n, func(i int) { mustReserve(fmt.Sprintf("race-%d", i)) })
		results := make([][2]ledger.Settled, n)
		concurrently(2*n, func(j int) {
			i, k := j/2, j%2
			o := []ledger.Outcome{ledger.Completed, ledger.Failed}[k]
			res, err := stores[(i+k)%2].Settle(ctx, natsapi.SettlementConsumer, uuid.NewString(), org, fmt.Sprintf("race-%d", i), o)
			if err != nil {
				t.Errorf("settle race-%d %s: %v", i, o, err)
			}
			results[i][k] = res
		})
		refunds := 0
		for i, r := range results {
			var want string
			switch r {
			case [2]ledger.Settled{ledger.Applied, ledger.Duplicate}:
				want = "committed"
			case [2]ledger.Settled{ledger.Duplicate, ledger.Applied}:
				want, refunds = "refunded", refunds+1
			default:
				t.Fatalf("race-%d: completed %d, failed %d; want one applied and one duplicate", i, r[0], r[1])
			}
			if got := h.usageStatus(fmt.Sprintf("race-%d", i)); got != want {
				t.Errorf("race-%d: %s, but the first outcome applied makes it %s", i, got, want)
			}
		}
		t.Logf("failed applied first in %d of %d races", refunds, n)
	})
	checkInvariants(t, h.Pool, h.store)
}

// countStatus counts the reservations whose id matches the LIKE pattern
// and whose status is status.
func (h *harness) countStatus(pattern, status string) int {
	h.T.Helper()
	var n int
	if err := h.Pool.QueryRow(context.Background(), `SELECT count(*) FROM usage WHERE reservation_id LIKE $1 AND status = $2`, pattern, status).Scan(&n); err != nil {
		h.T.Fatal(err)
	}
	return n
}
