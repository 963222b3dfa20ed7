package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// installRecorder swaps in a provider that keeps ended spans in memory and
// restores the previous globals afterwards. Tests using it must not run in
// parallel because the provider is process-global.
func installRecorder(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	restoreGlobals(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return rec
}

// restoreGlobals puts back the global provider and propagator when the test
// ends, so Setup in one test cannot leak into another.
func restoreGlobals(t *testing.T) {
	t.Helper()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})
}

func startParent(t *testing.T) (context.Context, trace.SpanContext) {
	t.Helper()
	ctx, span := otel.Tracer("test").Start(context.Background(), "parent")
	t.Cleanup(func() { span.End() })
	sc := span.SpanContext()
	if !sc.IsValid() {
		t.Fatal("parent span has no valid span context")
	}
	return ctx, sc
}

func TestSetupWithoutEndpoint(t *testing.T) {
	restoreGlobals(t)
	shutdown, err := Setup(context.Background(), "test-svc", func(string) string { return "" })
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	// Ids must still be allocated so traceparent propagates without a collector.
	_, span := otel.Tracer("test").Start(context.Background(), "op")
	if !span.SpanContext().IsValid() {
		t.Error("span from no-exporter provider has no valid span context")
	}
	span.End()
	if got := Traceparent(trace.ContextWithSpan(context.Background(), span)); got == "" {
		t.Error("Traceparent is empty under the no-exporter provider")
	}
	if err := shutdown(context.Background()); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestSetupRejectsEmptyService(t *testing.T) {
	if _, err := Setup(context.Background(), "", nil); err == nil {
		t.Fatal("Setup with empty service name succeeded")
	}
}

func TestSetupExportsToEndpoint(t *testing.T) {
	restoreGlobals(t)
	collector, hits := fakeCollector(t, "/base/v1/traces")

	env := map[string]string{EnvEndpoint: collector.URL + "/base/"}
	shutdown, err := Setup(context.Background(), "test-svc", func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	_, span := otel.Tracer("test").Start(context.Background(), "exported")
	span.End()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Shutdown flushes the batch processor, so the export happens here.
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if hits.Load() == 0 {
		t.Error("collector received no POST on /base/v1/traces")
	}
}

func TestSignalEndpoint(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{name: "unset", env: nil, want: ""},
		{name: "base without path", env: map[string]string{EnvEndpoint: "http://c:4318"}, want: "http://c:4318/v1/traces"},
		{name: "base with slash", env: map[string]string{EnvEndpoint: "https://c:4318/"}, want: "https://c:4318/v1/traces"},
		{name: "base with prefix", env: map[string]string{EnvEndpoint: "http://c/otlp"}, want: "http://c/otlp/v1/traces"},
		{name: "traces variable wins", env: map[string]string{EnvEndpoint: "http://a", EnvTracesEndpoint: "http://b/x"}, want: "http://b/x"},
		{name: "no scheme", env: map[string]string{EnvEndpoint: "collector:4318"}, wantErr: true},
		{name: "bad traces URL", env: map[string]string{EnvTracesEndpoint: "ftp://x"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := signalEndpoint(func(k string) string { return tc.env[k] }, EnvTracesEndpoint, "/v1/traces")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHTTPRoundTripPreservesTraceID(t *testing.T) {
	rec := installRecorder(t)
	ctx, parent := startParent(t)

	var seen trace.SpanContext
	h := HTTPMiddleware("gateway", nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = trace.SpanContextFromContext(r.Context())
		w.WriteHeader(http.StatusTeapot)
	}))

	req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/things/42", nil)
	InjectHTTP(ctx, req.Header)
	if req.Header.Get("traceparent") == "" {
		t.Fatal("InjectHTTP wrote no traceparent header")
	}
	h.ServeHTTP(httptest.NewRecorder(), req)

	if seen.TraceID() != parent.TraceID() {
		t.Errorf("handler trace id = %s, want %s", seen.TraceID(), parent.TraceID())
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("ended spans = %d, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "GET /things/42" {
		t.Errorf("span name = %q", s.Name())
	}
	if s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span kind = %v, want server", s.SpanKind())
	}
	if s.Parent().SpanID() != parent.SpanID() || !s.Parent().IsRemote() {
		t.Errorf("span parent = %v, want remote %v", s.Parent().SpanID(), parent.SpanID())
	}
	if got := attr(s.Attributes(), "http.response.status_code"); got.AsInt64() != http.StatusTeapot {
		t.Errorf("status attribute = %v, want 418", got.String())
	}
	if s.Status().Code == codes.Error {
		t.Error("4xx must not mark a server span as error")
	}
}

func TestHTTPMiddlewareStatusAndRoute(t *testing.T) {
	rec := installRecorder(t)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /quiet", func(w http.ResponseWriter, r *http.Request) {})
	h := HTTPMiddleware("billing", nil)(mux)

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/items/7", nil))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/quiet", nil))

	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("ended spans = %d, want 2", len(spans))
	}
	if spans[0].Name() != "GET /items/{id}" {
		t.Errorf("span name = %q, want route template", spans[0].Name())
	}
	if spans[0].Status().Code != codes.Error {
		t.Error("5xx did not mark the span as error")
	}
	if got := attr(spans[0].Attributes(), "http.route").AsString(); got != "/items/{id}" {
		t.Errorf("http.route = %q", got)
	}
	if got := attr(spans[1].Attributes(), "http.response.status_code").AsInt64(); got != http.StatusOK {
		t.Errorf("status of a handler that wrote nothing = %d, want 200", got)
	}
}

// plainWriter is a ResponseWriter without Flush.
type plainWriter struct{ h http.Header }

func (p *plainWriter) Header() http.Header         { return p.h }
func (p *plainWriter) Write(b []byte) (int, error) { return len(b), nil }
func (p *plainWriter) WriteHeader(int)             {}

func TestHTTPMiddlewareFlusher(t *testing.T) {
	installRecorder(t)
	var isFlusher bool
	h := HTTPMiddleware("svc", nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var f http.Flusher
		f, isFlusher = w.(http.Flusher)
		if isFlusher {
			f.Flush()
		}
		// ResponseController must still reach the real writer.
		_ = http.NewResponseController(w).Flush()
	}))

	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/", nil))
	if !isFlusher {
		t.Error("wrapper hid http.Flusher of a flushing writer")
	}
	if !rr.Flushed {
		t.Error("Flush did not reach the underlying writer")
	}

	h.ServeHTTP(&plainWriter{h: http.Header{}}, httptest.NewRequest(http.MethodGet, "/", nil))
	if isFlusher {
		t.Error("wrapper invented http.Flusher for a writer without it")
	}
}

func TestNATSRoundTripPreservesTraceID(t *testing.T) {
	installRecorder(t)
	ctx, parent := startParent(t)

	h := nats.Header{}
	InjectNATS(ctx, h)
	if h.Get("traceparent") == "" {
		t.Fatalf("InjectNATS wrote no traceparent: %v", h)
	}
	got := trace.SpanContextFromContext(ExtractNATS(context.Background(), h))
	if got.TraceID() != parent.TraceID() || got.SpanID() != parent.SpanID() {
		t.Errorf("extracted %s/%s, want %s/%s", got.TraceID(), got.SpanID(), parent.TraceID(), parent.SpanID())
	}
	if !got.IsRemote() {
		t.Error("extracted span context is not marked remote")
	}

	// A header whose case was changed by some relay still works.
	mixed := nats.Header{"Traceparent": h["traceparent"]}
	if got := trace.SpanContextFromContext(ExtractNATS(context.Background(), mixed)); got.TraceID() != parent.TraceID() {
		t.Errorf("mixed-case extract trace id = %s", got.TraceID())
	}

	// Nil headers are ignored, not a panic.
	InjectNATS(ctx, nil)
	if sc := trace.SpanContextFromContext(ExtractNATS(context.Background(), nil)); sc.IsValid() {
		t.Error("extract from nil header produced a span context")
	}
}

func TestTraceparentRoundTrip(t *testing.T) {
	installRecorder(t)
	if got := Traceparent(context.Background()); got != "" {
		t.Errorf("Traceparent without span = %q, want empty", got)
	}
	ctx, parent := startParent(t)
	tp := Traceparent(ctx)
	if len(tp) != 55 || tp[:3] != "00-" {
		t.Fatalf("Traceparent = %q, want W3C version 00 form", tp)
	}
	got := trace.SpanContextFromContext(ContextFromTraceparent(context.Background(), tp))
	if got.TraceID() != parent.TraceID() || got.SpanID() != parent.SpanID() {
		t.Errorf("round trip = %s/%s, want %s/%s", got.TraceID(), got.SpanID(), parent.TraceID(), parent.SpanID())
	}

	base := context.Background()
	for _, bad := range []string{"", "garbage", "00-00000000000000000000000000000000-0000000000000000-01"} {
		if sc := trace.SpanContextFromContext(ContextFromTraceparent(base, bad)); sc.IsValid() {
			t.Errorf("ContextFromTraceparent(%q) produced a valid span context", bad)
		}
	}
}

func attr(kvs []attribute.KeyValue, key string) attribute.Value {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// fakeCollector is an OTLP/HTTP collector that counts the POSTs to path.
func fakeCollector(t *testing.T, path string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	hits := new(atomic.Int32)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == path {
			hits.Add(1)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(collector.Close)
	return collector, hits
}
