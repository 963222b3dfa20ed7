package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/testkit"
)

// installTracing sets a real tracer provider and W3C propagation globally,
// as a service's telemetry setup would, and returns the undo.
func installTracing(t testing.TB) (restore func()) {
	t.Helper()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	tp := sdktrace.NewTracerProvider()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return func() {
		_ = tp.Shutdown(context.Background())
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	}
}

func serveReserve(t *testing.T, e *env, h func(ctx context.Context, req events.ReserveRequest) (events.ReserveReply, error)) (stop func() error) {
	t.Helper()
	stop, err := e.bus.Serve(e.ctx, events.BillingReserveRPC, "billing", func(ctx context.Context, data []byte) ([]byte, error) {
		var req events.ReserveRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return nil, err
		}
		rep, err := h(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(rep)
	})
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func TestRequestReply(t *testing.T) {
	restore := installTracing(t)
	defer restore()
	e := setup(t)

	type seen struct {
		trace    trace.TraceID
		deadline time.Duration
	}
	got := make(chan seen, 1)
	stop := serveReserve(t, e, func(ctx context.Context, req events.ReserveRequest) (events.ReserveReply, error) {
		dl, _ := ctx.Deadline()
		got <- seen{trace.SpanContextFromContext(ctx).TraceID(), time.Until(dl)}
		if req.Credits > 10 {
			return events.ReserveReply{Outcome: events.ReserveInsufficientCredits, Message: "10 left"}, nil
		}
		return events.ReserveReply{Outcome: events.ReserveOK}, nil
	})

	ctx, span := otel.Tracer("test").Start(e.ctx, "POST /thumbnails")
	defer span.End()
	var rep events.ReserveReply
	req := events.ReserveRequest{ReservationID: newID(), OrgID: "org-1", Credits: 3, Operation: "generate"}
	if err := e.bus.Request(ctx, events.BillingReserveRPC, req, &rep); err != nil {
		t.Fatalf("request: %v", err)
	}
	if rep.Outcome != events.ReserveOK {
		t.Errorf("outcome %q, want ok", rep.Outcome)
	}
	s := <-got
	if s.trace != span.SpanContext().TraceID() {
		t.Errorf("handler trace %s, want the caller's %s", s.trace, span.SpanContext().TraceID())
	}
	if s.deadline <= 0 || s.deadline > DefaultRequestTimeout {
		t.Errorf("handler deadline in %s, want within the caller's default %s", s.deadline, DefaultRequestTimeout)
	}

	req.Credits = 50
	if err := e.bus.Request(ctx, events.BillingReserveRPC, req, &rep); err != nil {
		t.Fatalf("request: %v", err)
	}
	<-got
	if rep.Outcome != events.ReserveInsufficientCredits || rep.Message != "10 left" {
		t.Errorf("reply %+v", rep)
	}

	// After stop, nobody answers: unavailable, at once.
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	start := time.Now()
	err := e.bus.Request(ctx, events.BillingReserveRPC, req, &rep)
	if !errors.Is(err, ErrUnavailable) || time.Since(start) > time.Second {
		t.Errorf("after stop: err %v after %s, want ErrUnavailable quickly", err, time.Since(start))
	}
}

func TestRequestNoResponder(t *testing.T) {
	e := setup(t)
	start := time.Now()
	err := e.bus.Request(context.Background(), "billing.rpc.nobody.v1", map[string]string{"a": "b"}, nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("err = %v, want the no-responders cause kept", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("took %s; no responders should fail fast, not wait for the timeout", d)
	}
}

func TestRequestSlowHandler(t *testing.T) {
	e := setup(t)
	handlerDone := make(chan error, 1)
	serveReserve(t, e, func(ctx context.Context, _ events.ReserveRequest) (events.ReserveReply, error) {
		select {
		case <-time.After(3 * time.Second):
			handlerDone <- nil
			return events.ReserveReply{Outcome: events.ReserveOK}, nil
		case <-ctx.Done():
			handlerDone <- ctx.Err()
			return events.ReserveReply{}, ctx.Err()
		}
	})
	ctx, cancel := context.WithTimeout(e.ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := e.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{}, nil)
	// Either the caller's deadline or the handler's error reply (its ctx
	// shares the deadline) comes first; both are unavailability.
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s, want about the 200ms deadline", d)
	}
	// The handler's ctx carried the caller's deadline, so it gave up too.
	select {
	case herr := <-handlerDone:
		if !errors.Is(herr, context.DeadlineExceeded) {
			t.Errorf("handler ended with %v, want its ctx deadline", herr)
		}
	case <-time.After(2 * time.Second):
		t.Error("handler still running after the caller's deadline")
	}
}

func TestRequestHandlerErrorFailsFast(t *testing.T) {
	e := setup(t)
	serveReserve(t, e, func(context.Context, events.ReserveRequest) (events.ReserveReply, error) {
		return events.ReserveReply{}, errors.New("ledger unreachable\nsecond line")
	})
	start := time.Now()
	err := e.bus.Request(context.Background(), events.BillingReserveRPC, events.ReserveRequest{}, nil)
	var re *RemoteError
	if !errors.As(err, &re) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want a RemoteError that is ErrUnavailable", err)
	}
	if re.Message != "ledger unreachable second line" {
		t.Errorf("message %q", re.Message)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("took %s, want an immediate error reply", d)
	}
}

// TestServeConcurrent: one Serve handles requests in parallel, so a slow
// request does not queue the others.
func TestServeConcurrent(t *testing.T) {
	e := setup(t)
	release := make(chan struct{})
	serveReserve(t, e, func(ctx context.Context, req events.ReserveRequest) (events.ReserveReply, error) {
		if req.Operation == "slow" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return events.ReserveReply{Outcome: events.ReserveOK}, nil
	})
	slowDone := make(chan error, 1)
	go func() {
		slowDone <- e.bus.Request(context.Background(), events.BillingReserveRPC, events.ReserveRequest{Operation: "slow"}, nil)
	}()
	time.Sleep(50 * time.Millisecond)
	for range 5 {
		if err := e.bus.Request(context.Background(), events.BillingReserveRPC, events.ReserveRequest{Operation: "fast"}, nil); err != nil {
			t.Fatalf("fast request behind a slow one: %v", err)
		}
	}
	close(release)
	if err := <-slowDone; err != nil {
		t.Errorf("slow request: %v", err)
	}
}

func TestPing(t *testing.T) {
	e := setup(t)
	if err := e.bus.Ping(e.ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	nc, err := Connect(e.ctx, testkit.NATSURL(t), "messaging-ping")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBus(nc, e.bus.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if err := b.Ping(e.ctx); err == nil {
		t.Error("ping succeeded on a closed connection")
	}
}
