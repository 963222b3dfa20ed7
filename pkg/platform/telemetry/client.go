package telemetry

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Transport wraps base (http.DefaultTransport when nil) so that every
// outbound request gets a client span, a child of the span in the
// request's context: calls to provider APIs, video sites and S3 then show
// in the trace of the request or message that caused them. The span lasts
// until the response headers arrive (a streamed body is not waited for).
//
// Unlike otelhttp's transport it writes no traceparent header: these
// clients talk to third parties (and to addresses users supply), which
// have no business with our trace ids. Calls between our own services
// inject it explicitly (InjectHTTP).
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base, tracer: otel.Tracer(scopeName)}
}

type transport struct {
	base   http.RoundTripper
	tracer trace.Tracer
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, span := t.tracer.Start(req.Context(), req.Method+" "+req.URL.Host,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			semconv.HTTPRequestMethodKey.String(method(req.Method)),
			semconv.ServerAddress(req.URL.Hostname()),
			semconv.URLScheme(req.URL.Scheme),
		))
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		span.End()
		return resp, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	if resp.StatusCode >= 400 {
		// For a client every 4xx and 5xx is a failed call.
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	span.End()
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach base.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
