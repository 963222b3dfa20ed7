package messaging

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

const (
	traceparentHeader = "traceparent"
	tracerName        = "hookline.dev/pkg/messaging"
)

// headerCarrier carries trace context in NATS headers. Unlike
// propagation.HeaderCarrier it keeps the lower-case W3C key names on the wire
// (NATS headers are case-sensitive, and pkg/telemetry and other tooling
// expect "traceparent"), and it reads case-insensitively so a producer that
// canonicalised the key ("Traceparent") is still understood.
type headerCarrier nats.Header

func (c headerCarrier) Get(key string) string {
	if v := c[key]; len(v) > 0 {
		return v[0]
	}
	for k, v := range c {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}

func (c headerCarrier) Set(key, value string) {
	if c != nil {
		c[strings.ToLower(key)] = []string{value}
	}
}

func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// injectTrace writes the trace context of ctx into h with the global
// propagator.
func injectTrace(ctx context.Context, h nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, headerCarrier(h))
}

// extractTrace returns ctx carrying the remote span context of h, falling
// back to the envelope's traceparent when the headers have none (an event
// re-driven from the outbox by hand may have lost them).
func extractTrace(ctx context.Context, h nats.Header, traceparent string) context.Context {
	ctx = otel.GetTextMapPropagator().Extract(ctx, headerCarrier(h))
	if trace.SpanContextFromContext(ctx).IsValid() || traceparent == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{traceparentHeader: traceparent})
}

// validTraceparent reports whether tp is a W3C traceparent worth forwarding;
// a malformed value is dropped rather than propagated.
func validTraceparent(tp string) bool {
	if tp == "" {
		return false
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{traceparentHeader: tp})
	return trace.SpanContextFromContext(ctx).IsValid()
}

func tracer() trace.Tracer { return otel.Tracer(tracerName) }
