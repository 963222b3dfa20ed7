package telemetry

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// HTTPMiddleware starts a server span per request, continuing any trace
// context found in the request headers, and records the response status.
//
// service becomes an instrumentation-scope attribute: tests start several
// services in one process behind one global provider (and thus one resource),
// and this is what still tells their spans apart.
func HTTPMiddleware(service string) func(http.Handler) http.Handler {
	// The global tracer delegates to whatever provider is installed later, so
	// building the middleware before Setup runs is harmless.
	tracer := otel.Tracer(scopeName, trace.WithInstrumentationAttributes(attribute.String("hookline.service", service)))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			ctx, span := tracer.Start(ctx, r.Method+" "+r.URL.Path,
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(
					semconv.HTTPRequestMethodKey.String(r.Method),
					semconv.URLPath(r.URL.Path),
				),
			)
			defer span.End()

			r = r.WithContext(ctx)
			rw, sw := wrapWriter(w)
			next.ServeHTTP(rw, r)

			// net/http's ServeMux records the matched pattern on the request it
			// was handed (ours). The route template is the low-cardinality name
			// tracing backends group by, so prefer it over the raw path.
			if p := r.Pattern; p != "" {
				if _, rest, ok := strings.Cut(p, " "); ok {
					p = rest
				}
				span.SetName(r.Method + " " + p)
				span.SetAttributes(semconv.HTTPRoute(p))
			}

			status := sw.status
			if status == 0 {
				// The handler wrote nothing; net/http then sends 200.
				status = http.StatusOK
			}
			span.SetAttributes(semconv.HTTPResponseStatusCode(status))
			// For server spans only 5xx is the server's fault; 4xx is the
			// client's and must not light up error dashboards.
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
		})
	}
}

// InjectHTTP writes the trace context of ctx into h for an outgoing request.
// A nil header is ignored: there is nothing to write into.
func InjectHTTP(ctx context.Context, h http.Header) {
	if h == nil {
		return
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(h))
}

// statusWriter records the status code on its way to the client. It is the
// hot path of every request, so it embeds the writer rather than forwarding
// through an interface switch, and allocates once.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	// 1xx responses (e.g. 103 Early Hints) precede the real status.
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer's optional
// features (deadlines, hijacking) that this wrapper does not re-expose.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// flushStatusWriter is a statusWriter that also implements http.Flusher. It
// is a separate type because handlers detect streaming support with a type
// assertion, so the wrapper must offer Flush exactly when the underlying
// writer does.
type flushStatusWriter struct {
	statusWriter
	flusher http.Flusher
}

func (f *flushStatusWriter) Flush() {
	if f.status == 0 {
		f.status = http.StatusOK
	}
	f.flusher.Flush()
}

// wrapWriter returns the writer to pass down and the recorder to read the
// status from afterwards. Either way it costs a single allocation.
func wrapWriter(w http.ResponseWriter) (http.ResponseWriter, *statusWriter) {
	if f, ok := w.(http.Flusher); ok {
		fw := &flushStatusWriter{statusWriter: statusWriter{ResponseWriter: w}, flusher: f}
		return fw, &fw.statusWriter
	}
	sw := &statusWriter{ResponseWriter: w}
	return sw, sw
}
