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

	"hookline.dev/pkg/contracts/events"
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

	// After stop, nobody answers: unavailable at once, as NATS says no
	// responder is left, not when the caller's deadline runs out.
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	err := e.bus.Request(withHangBound(t, ctx), events.BillingReserveRPC, req, &rep)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("after stop: err %v, want ErrUnavailable for no responders", err)
	}
}

// withHangBound gives ctx a deadline that only a hang reaches: a request
// that ends with context.DeadlineExceeded under it waited instead of
// failing fast.
func withHangBound(t *testing.T, ctx context.Context) context.Context {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestRequestNoResponder: a subject nobody serves fails fast, on NATS's
// no-responders answer, not by waiting for the caller's deadline.
func TestRequestNoResponder(t *testing.T) {
	e := setup(t)
	err := e.bus.Request(withHangBound(t, e.ctx), "billing.rpc.nobody.v1", map[string]string{"a": "b"}, nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if !errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the no-responders cause kept, not a deadline", err)
	}
}

// TestRequestSlowHandler: a caller's deadline ends its request while the
// handler still runs, and the handler's ctx carries that deadline, so it
// can give up too.
func TestRequestSlowHandler(t *testing.T) {
	e := setup(t)
	handlerDeadline := make(chan time.Time, 1)
	finish := make(chan struct{})
	serveReserve(t, e, func(ctx context.Context, _ events.ReserveRequest) (events.ReserveReply, error) {
		dl, _ := ctx.Deadline()
		handlerDeadline <- dl
		<-finish // answers only once the caller has given up
		return events.ReserveReply{Outcome: events.ReserveOK}, nil
	})
	defer close(finish)
	ctx, cancel := context.WithTimeout(e.ctx, 200*time.Millisecond)
	defer cancel()
	callerDeadline, _ := ctx.Deadline()
	done := make(chan error, 1)
	go func() { done <- e.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{}, nil) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want ErrUnavailable for the caller's deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request outlived its 200 ms deadline by 30 s, waiting for the handler")
	}
	// The handler's deadline is the caller's, give or take the message's
	// trip: without the caller's it would be Serve's default, 30 s on.
	select {
	case dl := <-handlerDeadline:
		if dl.IsZero() || dl.After(callerDeadline.Add(serveDefaultTimeout/2)) {
			t.Errorf("handler deadline %v, want about the caller's %v", dl, callerDeadline)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handler never ran")
	}
}

func TestRequestHandlerErrorFailsFast(t *testing.T) {
	e := setup(t)
	serveReserve(t, e, func(context.Context, events.ReserveRequest) (events.ReserveReply, error) {
		return events.ReserveReply{}, errors.New("ledger unreachable\nsecond line")
	})
	// The error comes back as a reply; a caller left to its deadline would
	// see context.DeadlineExceeded instead.
	err := e.bus.Request(withHangBound(t, e.ctx), events.BillingReserveRPC, events.ReserveRequest{}, nil)
	var re *RemoteError
	if !errors.As(err, &re) || !errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a RemoteError that is ErrUnavailable", err)
	}
	if re.Message != "ledger unreachable second line" {
		t.Errorf("message %q", re.Message)
	}
}

// TestServeConcurrent: one Serve handles requests in parallel, so a slow
// request does not queue the others.
func TestServeConcurrent(t *testing.T) {
	e := setup(t)
	release, slowRuns := make(chan struct{}), make(chan struct{})
	serveReserve(t, e, func(ctx context.Context, req events.ReserveRequest) (events.ReserveReply, error) {
		if req.Operation == "slow" {
			close(slowRuns)
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return events.ReserveReply{Outcome: events.ReserveOK}, nil
	})
	slowDone := make(chan error, 1)
	go func() {
		slowDone <- e.bus.Request(withHangBound(t, e.ctx), events.BillingReserveRPC, events.ReserveRequest{Operation: "slow"}, nil)
	}()
	select { // the fast requests come while it holds a worker
	case <-slowRuns:
	case err := <-slowDone:
		t.Fatalf("the slow request ended before its handler ran: %v", err)
	}
	for range 5 {
		if err := e.bus.Request(withHangBound(t, e.ctx), events.BillingReserveRPC, events.ReserveRequest{Operation: "fast"}, nil); err != nil {
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
