package app_test

import (
	"testing"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
)

// Adjustments go through the adjust RPC: a debit never takes available
// credits below zero, a repeated id applies once, and the projections stay
// equal to a rebuild.
func TestAdjustments(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro") // 100 subscription credits
	ctx := t.Context()
	adjust := func(id string, credits int64) events.AdjustReply {
		t.Helper()
		var r events.AdjustReply
		if err := h.Bus.Request(ctx, events.BillingAdjustRPC, events.AdjustRequest{AdjustmentID: id, OrgID: org, Credits: credits, Reason: "correction"}, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r, _ := h.reserve(ctx, org, "held", 20); r.Outcome != events.ReserveOK {
		t.Fatalf("reserve: %+v", r)
	}
	if r := adjust("credit", 5); r.Outcome != events.ReserveOK || r.Available != 85 {
		t.Fatalf("+5: %+v", r)
	}
	// 85 are available, 20 are held: the held credits cannot be debited.
	if r := adjust("too-much", -86); r.Outcome != events.ReserveInsufficientCredits || r.Available != 85 {
		t.Fatalf("-86: %+v", r)
	}
	for range 2 {
		if r := adjust("chargeback", -15); r.Outcome != events.ReserveOK || r.Available != 70 {
			t.Fatalf("-15 (applied once): %+v", r)
		}
	}
	if b := h.balance(org); b.Purchased != 0 || b.Subscription != 70 {
		t.Fatalf("balance: %+v, want the purchased 5 taken first, then 10 subscription", b)
	}
	if r := adjust("zero", 0); r.Outcome != events.ReserveInvalid {
		t.Fatalf("0: %+v", r)
	}
	var r events.AdjustReply
	if err := h.Bus.Request(ctx, events.BillingAdjustRPC, events.AdjustRequest{AdjustmentID: "a", OrgID: uuid.NewString(), Credits: 1, Reason: "x"}, &r); err != nil || r.Outcome != events.AdjustNoAccount {
		t.Fatalf("unknown account: %+v %v", r, err)
	}
	checkInvariants(t, h.Pool, h.store)
}
