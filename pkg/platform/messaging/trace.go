package messaging

import (
	"context"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"hookline.dev/pkg/platform/telemetry"
)

const (
	traceparentHeader = "traceparent"
	tracerName        = "hookline.dev/pkg/platform/messaging"
)

// injectTrace writes the trace context of ctx into h.
func injectTrace(ctx context.Context, h nats.Header) { telemetry.InjectNATS(ctx, h) }

// extractTrace returns ctx carrying the remote span context of h, falling
// back to the envelope's traceparent when the headers have none (an event
// re-driven from the outbox by hand may have lost them).
func extractTrace(ctx context.Context, h nats.Header, traceparent string) context.Context {
	ctx = telemetry.ExtractNATS(ctx, h)
	if trace.SpanContextFromContext(ctx).IsValid() || traceparent == "" {
		return ctx
	}
	return telemetry.ContextFromTraceparent(ctx, traceparent)
}

// validTraceparent reports whether tp is a W3C traceparent worth forwarding;
// a malformed value is dropped rather than propagated.
func validTraceparent(tp string) bool {
	return tp != "" && trace.SpanContextFromContext(telemetry.ContextFromTraceparent(context.Background(), tp)).IsValid()
}

func tracer() trace.Tracer { return otel.Tracer(tracerName) }
