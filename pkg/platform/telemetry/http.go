package telemetry

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// HTTPMiddleware starts a server span per request, continuing any trace
// context found in the request headers, and records the response status.
// It also records http.server.request.duration by method, route template
// and status code: the rate, errors and duration of every route.
//
// With a logger it writes one access log line per request, inside the
// request's span (so with trace_id and span_id, see LogHandler): method,
// route template, status, duration and the organization that SetOrg
// recorded. Probes (/healthz, /readyz) are logged at debug level only.
//
// service becomes an instrumentation-scope attribute: tests start several
// services in one process behind one global provider (and thus one resource),
// and this is what still tells their spans apart.
func HTTPMiddleware(service string, log *slog.Logger) func(http.Handler) http.Handler {
	// The global tracer delegates to whatever provider is installed later, so
	// building the middleware before Setup runs is harmless.
	tracer := otel.Tracer(scopeName, trace.WithInstrumentationAttributes(attribute.String("hookline.service", service)))
	duration, err := otel.Meter(scopeName).Float64Histogram("http.server.request.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP server requests."),
		metric.WithExplicitBucketBoundaries(DurationBuckets...))
	if err != nil {
		otel.Handle(err)
		duration = noop.Float64Histogram{}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			slot := &requestSlot{}
			ctx = context.WithValue(ctx, requestKey{}, slot)
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

			status := sw.status
			if status == 0 {
				// The handler wrote nothing; net/http then sends 200.
				status = http.StatusOK
			}
			attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(method(r.Method)), semconv.HTTPResponseStatusCode(status)}
			// The route template is the low-cardinality name tracing backends
			// and dashboards group by; a request that matched no route has
			// none, and its raw path must not take its place.
			p := route(r, slot)
			if p != "" {
				span.SetName(r.Method + " " + p)
				attrs = append(attrs, semconv.HTTPRoute(p))
			}
			span.SetAttributes(attrs...)
			elapsed := time.Since(start)
			duration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(attrs...))
			if log != nil {
				accessLog(ctx, log, r, p, status, elapsed, slot.org)
			}
			// For server spans only 5xx is the server's fault; 4xx is the
			// client's and must not light up error dashboards.
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
		})
	}
}

// requestKey carries a *requestSlot from HTTPMiddleware to RecordRoute and
// SetOrg.
type requestKey struct{}

// requestSlot receives what the middleware learns only from code nested
// inside it: the route template of a router whose routing context it
// cannot see, and the organization authentication found.
type requestSlot struct{ pattern, org string }

// orgAttr is the span attribute of the organization a request acts for.
const orgAttr = "hookline.org_id"

// SetOrg records the organization the request in ctx acts for (the
// gateway's API key, a service's signed principal): HTTPMiddleware's
// access log line names it, and the request's span carries it. Outside
// HTTPMiddleware only the span gets it.
func SetOrg(ctx context.Context, orgID string) {
	if slot, ok := ctx.Value(requestKey{}).(*requestSlot); ok {
		slot.org = orgID
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.String(orgAttr, orgID))
}

// accessLog writes the one line of a finished request.
func accessLog(ctx context.Context, log *slog.Logger, r *http.Request, route string, status int, elapsed time.Duration, org string) {
	level := slog.LevelInfo
	if route == "/healthz" || route == "/readyz" || r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
		level = slog.LevelDebug
	}
	if !log.Enabled(ctx, level) {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	log.LogAttrs(ctx, level, "request",
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.String("org_id", org),
	)
}

// RecordRoute is chi middleware for a router that HTTPMiddleware wraps from
// the outside: chi keeps its routing context on a request of its own, so it
// hands the matched template back through the slot the outer middleware
// put in the context.
func RecordRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if slot, ok := r.Context().Value(requestKey{}).(*requestSlot); ok {
			if rctx := chi.RouteContext(r.Context()); rctx != nil {
				slot.pattern = rctx.RoutePattern()
			}
		}
	})
}

// route returns the template of the route r matched, or "". A chi router
// around the middleware (the gateway) leaves it in its routing context, a
// chi router inside it in the slot (RecordRoute), and net/http's ServeMux on
// the request it was handed, which is ours.
func route(r *http.Request, slot *requestSlot) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		return rctx.RoutePattern()
	}
	if slot.pattern != "" {
		return slot.pattern
	}
	p := r.Pattern
	if _, rest, ok := strings.Cut(p, " "); ok {
		p = rest
	}
	return p
}

// method returns m when it is a standard method and _OTHER otherwise, as
// OpenTelemetry's HTTP conventions say: a client must not be able to mint a
// new time series per request by inventing methods.
func method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "_OTHER"
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
