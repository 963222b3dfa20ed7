package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/pkg/testkit"
)

// bus connects to the stack's NATS namespace as a test client.
func (s *stack) bus(name string) *messaging.Bus {
	s.t.Helper()
	nc, err := messaging.Connect(s.t.Context(), testkit.NATSURL(s.t), name)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(nc.Close)
	bus, err := messaging.NewBus(nc, s.ns)
	if err != nil {
		s.t.Fatal(err)
	}
	return bus
}

// TestTraceSpansGatewayAndBilling: a request's trace id reaches, through
// the gateway, its outbox event and billing's consumer and group-commit
// writer, the billing event that records the effect, and that event's
// consumer.
func TestTraceSpansGatewayAndBilling(t *testing.T) {
	s := startStack(t)
	orgID, _ := s.newOrg("pro")

	bus := s.bus("e2e-trace")
	type seen struct{ envelope, consumer string }
	var mu sync.Mutex
	grants := map[string]seen{} // grant id → trace ids of its billing.credit.granted.v1
	testkit.Background(t, "consumer", func(ctx context.Context) error {
		return bus.Consume(ctx, messaging.ConsumerConfig{Durable: "e2e-trace", Stream: events.StreamBilling, Subjects: []string{events.BillingCreditGranted}},
			func(hctx context.Context, e events.Envelope) error {
				var d events.CreditsMoved
				if err := e.Decode(&d); err != nil {
					return messaging.Permanent(err)
				}
				mu.Lock()
				defer mu.Unlock()
				grants[d.GrantID] = seen{envelope: testkit.TraceID(e.Traceparent), consumer: testkit.TraceID(telemetry.Traceparent(hctx))}
				return nil
			})
	})

	tp, trace := testkit.NewTraceparent()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/admin/v1/organizations/"+orgID+"/credits",
		bytes.NewReader([]byte(`{"credits": 5, "kind": "purchased", "reason": "traced"}`)))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", tp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Data struct {
			GrantID string `json:"grantId"`
		} `json:"data"`
	}
	defer func() { _ = resp.Body.Close() }()
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 202 || body.Data.GrantID == "" {
		t.Fatalf("grant: %d %+v %v", resp.StatusCode, body, err)
	}

	testkit.Eventually(t, 20*time.Second, "billing's grant event consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := grants[body.Data.GrantID]
		return ok
	})
	mu.Lock()
	defer mu.Unlock()
	if got := grants[body.Data.GrantID]; got.envelope != trace || got.consumer != trace {
		t.Fatalf("request trace %s; billing event envelope %q, consumer %q", trace, got.envelope, got.consumer)
	}
}

// TestTraceSpansAPaidOperation: one trace id from the caller through the
// gateway, the thumbnails service, billing's reserve RPC and its
// billing.credit.reserved.v1 event, then thumbnails' completion event and
// billing's billing.credit.committed.v1, each to its consumer.
func TestTraceSpansAPaidOperation(t *testing.T) {
	s := startStack(t)
	orgID, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	bus := s.bus("e2e-trace-paid")
	var mu sync.Mutex
	traces := map[string][2]string{} // subject → trace ids of the envelope and of the consumer's context
	testkit.Background(t, "consumer", func(ctx context.Context) error {
		return bus.Consume(ctx, messaging.ConsumerConfig{Durable: "e2e-trace-paid", Stream: events.StreamBilling,
			Subjects: []string{events.BillingCreditReserved, events.BillingCreditCommitted}},
			func(hctx context.Context, e events.Envelope) error {
				if e.OrgID != orgID {
					return nil
				}
				mu.Lock()
				defer mu.Unlock()
				traces[e.Type] = [2]string{testkit.TraceID(e.Traceparent), testkit.TraceID(telemetry.Traceparent(hctx))}
				return nil
			})
	})

	tp, trace := testkit.NewTraceparent()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/v1/thumbnails", bytes.NewReader([]byte(`{"prompt": "traced"}`)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", tp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("generate: %d", resp.StatusCode)
	}
	testkit.Eventually(t, 20*time.Second, "billing's reserved and committed events consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(traces) == 2
	})
	mu.Lock()
	defer mu.Unlock()
	for subject, got := range traces {
		if got[0] != trace || got[1] != trace {
			t.Errorf("%s: envelope trace %s, consumer trace %s, want %s", subject, got[0], got[1], trace)
		}
	}
}

// logLinesOf returns the JSON lines of a service's log that carry trace id
// trace.
func (s *stack) logLinesOf(service, trace string) []map[string]any {
	s.t.Helper()
	b, err := os.ReadFile(s.logs[service])
	if err != nil {
		s.t.Fatalf("%s log: %v", service, err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(b, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(l, &m) == nil && m[telemetry.LogTraceID] == trace {
			out = append(out, m)
		}
	}
	return out
}

// TestLogsJoinTheTrace: one trace id, the caller's, in the gateway's access
// log line of a POST /thumbnails, in the thumbnails service's lines (its
// own access line among them) and in billing's consumer line for the
// operation's settlement: searching the logs for a trace id finds what
// every service wrote for the request.
func TestLogsJoinTheTrace(t *testing.T) {
	s := startStack(t, "HOOKLINE_LOG_LEVEL=info")
	orgID, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	tp, trace := testkit.NewTraceparent()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/v1/thumbnails", bytes.NewReader([]byte(`{"prompt": "logged"}`)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", tp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("generate: %d", resp.StatusCode)
	}

	access := func(lines []map[string]any, route string) map[string]any {
		for _, l := range lines {
			if l["msg"] == "request" && l["route"] == route {
				return l
			}
		}
		return nil
	}
	var billing []map[string]any
	testkit.Eventually(t, 20*time.Second, "billing's consumer line of the settlement", func() bool {
		billing = nil
		for _, l := range s.logLinesOf("billing", trace) {
			if l["msg"] == "consumer: handled" {
				billing = append(billing, l)
			}
		}
		return len(billing) > 0
	})
	for _, l := range billing {
		if l["org_id"] != orgID || l["ok"] != true || l["span_id"] == "" {
			t.Errorf("billing consumer line %v: want org %s, ok, a span id", l, orgID)
		}
	}

	gw := access(s.logLinesOf("gateway", trace), "/api/v1/thumbnails")
	if gw == nil || gw["method"] != "POST" || gw["status"] != float64(201) || gw["org_id"] != orgID || gw["service"] != "gateway" {
		t.Errorf("gateway access line %v: want POST /api/v1/thumbnails 201 of org %s", gw, orgID)
	}
	thumbs := s.logLinesOf("thumbnails", trace)
	th := access(thumbs, "/thumbnails")
	if th == nil || th["status"] != float64(201) || th["org_id"] != orgID {
		t.Errorf("thumbnails access line %v (all its lines of the trace: %v)", th, thumbs)
	}
	if gw != nil && th != nil && gw[telemetry.LogSpanID] == th[telemetry.LogSpanID] {
		t.Errorf("gateway and thumbnails lines share span %v: each should log in its own span", gw[telemetry.LogSpanID])
	}
}
