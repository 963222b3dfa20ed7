package telemetry

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// traceparentKey is the W3C Trace Context header name.
const traceparentKey = "traceparent"

// HeaderCarrier adapts nats.Header to propagation.TextMapCarrier so trace
// context can ride on JetStream messages (ARCHITECTURE §4).
//
// NATS headers are case-sensitive, unlike HTTP's. Propagators write
// lower-case keys, but a message relayed through an HTTP-minded producer may
// arrive with "Traceparent", so Get falls back to a case-insensitive match.
type HeaderCarrier nats.Header

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns the first value for key, or "".
func (c HeaderCarrier) Get(key string) string {
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

// Set replaces the values for key. Setting on a nil carrier does nothing,
// since a nil map cannot grow and library code must not panic.
func (c HeaderCarrier) Set(key, value string) {
	if c == nil {
		return
	}
	c[key] = []string{value}
}

// Keys lists the header names present.
func (c HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// InjectNATS writes the trace context of ctx into h using the global
// propagator. h must be non-nil for anything to be written; create it with
// nats.Header{} before publishing.
func InjectNATS(ctx context.Context, h nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, HeaderCarrier(h))
}

// ExtractNATS returns ctx extended with the trace context found in h, so a
// consumer's spans become children of the publisher's.
func ExtractNATS(ctx context.Context, h nats.Header) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, HeaderCarrier(h))
}

// Traceparent returns the W3C traceparent of the span in ctx, or "" when ctx
// carries no valid span context. Event envelopes store it so a consumer can
// continue the trace even when the message headers were lost (for example
// when an event is re-driven from the outbox).
//
// It uses the TraceContext propagator directly rather than the global one,
// because the envelope field is defined as W3C traceparent whatever else the
// process propagates.
func Traceparent(ctx context.Context) string {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier[traceparentKey]
}

// ContextFromTraceparent returns ctx extended with the remote span context
// described by tp. An empty or malformed tp leaves ctx unchanged, because a
// bad trace header must never stop an event from being processed.
func ContextFromTraceparent(ctx context.Context, tp string) context.Context {
	if tp == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{traceparentKey: tp})
}
