package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/trace"
)

// logLines decodes the JSON lines of buf.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestLogHandlerAddsTheSpanOfTheContext(t *testing.T) {
	installRecorder(t)
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("service", "svc")
	ctx, sc := startParent(t)

	log.InfoContext(ctx, "inside")
	log.Info("outside")
	log.InfoContext(context.Background(), "no span")

	lines := logLines(t, &buf)
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	if lines[0][LogTraceID] != sc.TraceID().String() || lines[0][LogSpanID] != sc.SpanID().String() || lines[0]["service"] != "svc" {
		t.Errorf("line in a span: %v, want trace %s span %s", lines[0], sc.TraceID(), sc.SpanID())
	}
	for _, l := range lines[1:] {
		if _, ok := l[LogTraceID]; ok {
			t.Errorf("line without a span has a trace id: %v", l)
		}
	}
	// Wrapping twice adds the ids once.
	buf.Reset()
	slog.New(LogHandler(LogHandler(slog.NewJSONHandler(&buf, nil)))).InfoContext(ctx, "twice")
	if n := strings.Count(buf.String(), `"`+LogTraceID+`"`); n != 1 {
		t.Errorf("trace_id %d times in %s", n, buf.String())
	}
}

func TestAccessLogLine(t *testing.T) {
	installRecorder(t)
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	r := chi.NewRouter()
	r.Use(HTTPMiddleware("gw", log))
	var inner trace.SpanContext
	r.Post("/orgs/{id}/things", func(w http.ResponseWriter, r *http.Request) {
		SetOrg(r.Context(), "org-42")
		inner = trace.SpanContextFromContext(r.Context())
		w.WriteHeader(http.StatusCreated)
	})
	r.Get("/healthz", func(http.ResponseWriter, *http.Request) {})

	tp, traceID := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "0af7651916cd43dd8448eb211c80319c"
	req := httptest.NewRequest(http.MethodPost, "/orgs/abc/things", nil)
	req.Header.Set("traceparent", tp)
	r.ServeHTTP(httptest.NewRecorder(), req)
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil)) // debug: not written
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/nowhere", nil))

	lines := logLines(t, &buf)
	if len(lines) != 2 {
		t.Fatalf("want 2 access lines (probe at debug), got %d: %s", len(lines), buf.String())
	}
	got := lines[0]
	want := map[string]any{"msg": "request", "method": "POST", "route": "/orgs/{id}/things", "status": float64(201),
		"org_id": "org-42", LogTraceID: traceID, LogSpanID: inner.SpanID().String()}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, got[k], v, got)
		}
	}
	if d, ok := got["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("duration_ms = %v", got["duration_ms"])
	}
	if lines[1]["route"] != "unmatched" || lines[1]["status"] != float64(404) || lines[1]["org_id"] != "" {
		t.Errorf("unmatched request: %v", lines[1])
	}
}

func TestTransportSpansWithoutTraceHeaders(t *testing.T) {
	rec := installRecorder(t)
	var sent http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent = r.Header.Clone()
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client := &http.Client{Transport: Transport(nil)}
	ctx, parent := startParent(t)

	for _, path := range []string{"/ok", "/missing"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if sent.Get("traceparent") != "" {
			t.Errorf("%s: traceparent sent to a third party: %q", path, sent.Get("traceparent"))
		}
	}
	// A refused connection is a failed span too.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/", nil)
	if resp, err := client.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatal("request to port 1 succeeded")
	}

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	wantStatus := []int64{200, 404, 0}
	for i, s := range spans {
		if s.Parent().SpanID() != parent.SpanID() || s.SpanKind() != trace.SpanKindClient {
			t.Errorf("span %d %q: parent %s kind %v", i, s.Name(), s.Parent().SpanID(), s.SpanKind())
		}
		if got := attr(s.Attributes(), "http.response.status_code").AsInt64(); got != wantStatus[i] {
			t.Errorf("span %d status attribute %d, want %d", i, got, wantStatus[i])
		}
		failed := s.Status().Code.String() == "Error"
		if failed != (i > 0) {
			t.Errorf("span %d %q: status %v", i, s.Name(), s.Status())
		}
	}
}
