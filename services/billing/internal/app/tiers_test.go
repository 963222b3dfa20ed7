package app_test

import (
	"testing"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
)

// An operator's tier table decides an account's grant, billing cycle and
// quotas: the built-in tiers are gone and "gold" rules.
func TestTierTableOverride(t *testing.T) {
	gold := tiers.Tier{Name: "gold", MonthlyCredits: 42, BillingCycle: "yearly", RateLimit: tiers.RateLimit{PerSecond: 1, Burst: 1},
		Quotas: tiers.Quotas{PaidOpsPerDay: 3, ConcurrentRenders: 1}}
	h := newHarness(t, "HOOKLINE_TIERS", tiers.Encode(gold))
	org := h.openAccount("gold")

	d := readJSON(t, h.Do("GET", "/account/credits", org, nil), 200)["data"].(map[string]any)
	if d["tier"] != "gold" || d["billingCycle"] != "yearly" || d["credits"].(map[string]any)["subscription"] != float64(42) {
		t.Fatalf("credits of a gold account: %v", d)
	}

	ctx := t.Context()
	render := func(id string) events.ReserveReply {
		var r events.ReserveReply
		if err := h.Bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{
			ReservationID: id, OrgID: org, Credits: 1, Operation: "clips.render", ResourceType: "render", ResourceID: id,
		}, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := render("render-1"); r.Outcome != events.ReserveOK {
		t.Fatalf("first render: %+v", r)
	}
	if r := render("render-2"); r.Outcome != events.ReserveQuotaExceeded {
		t.Fatalf("second concurrent render (quota 1): %+v", r)
	}
	if r, _ := h.reserve(ctx, org, "op-2", 1); r.Outcome != events.ReserveOK {
		t.Fatalf("second paid operation: %+v", r)
	}
	// render-1 and op-2 were paid operations; render-2 was refused and
	// does not count. The third is allowed, the fourth is not.
	if r, _ := h.reserve(ctx, org, "op-3", 1); r.Outcome != events.ReserveOK {
		t.Fatalf("third paid operation: %+v", r)
	}
	if r, _ := h.reserve(ctx, org, "op-4", 1); r.Outcome != events.ReserveQuotaExceeded {
		t.Fatalf("fourth paid operation (quota 3): %+v", r)
	}
	checkInvariants(t, h.Pool, h.store)
}
