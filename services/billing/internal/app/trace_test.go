package app_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/pkg/testkit"
)

// TestTraceCrossesBilling: the trace of each reserve call continues
// through billing's group-commit writer into its billing.credit.reserved.v1
// event and on to the event's consumer. The calls run at once, so several
// share a group transaction; each event still carries its own caller's
// trace.
func TestTraceCrossesBilling(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	const calls = 20

	type seen struct{ envelope, handler string }
	var mu sync.Mutex
	got := map[string]seen{} // reservation id → trace ids the consumer saw
	testkit.Background(t, "consumer", func(ctx context.Context) error {
		return h.Bus.Consume(ctx, messaging.ConsumerConfig{Durable: "trace-test", Stream: events.StreamBilling, Subjects: []string{events.BillingCreditReserved}},
			func(hctx context.Context, e events.Envelope) error {
				var d events.CreditsMoved
				if err := e.Decode(&d); err != nil {
					return messaging.Permanent(err)
				}
				mu.Lock()
				defer mu.Unlock()
				got[d.ReservationID] = seen{envelope: testkit.TraceID(e.Traceparent), handler: testkit.TraceID(telemetry.Traceparent(hctx))}
				return nil
			})
	})

	want := make([]string, calls)
	concurrently(calls, func(i int) {
		var tp string
		tp, want[i] = testkit.NewTraceparent()
		caller := telemetry.ContextFromTraceparent(t.Context(), tp)
		if r, err := h.reserve(caller, org, fmt.Sprintf("traced-%d", i), 1); err != nil || r.Outcome != events.ReserveOK {
			t.Errorf("reserve: %+v %v", r, err)
		}
	})
	testkit.Eventually(t, 15*time.Second, "reserved events consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == calls
	})
	mu.Lock()
	defer mu.Unlock()
	for i, tr := range want {
		s := got[fmt.Sprintf("traced-%d", i)]
		if s.envelope != tr || s.handler != tr {
			t.Errorf("traced-%d: caller's trace %s, event's %q, consumer's %q", i, tr, s.envelope, s.handler)
		}
	}
}
