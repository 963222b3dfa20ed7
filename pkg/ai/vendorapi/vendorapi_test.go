package vendorapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"hookline.dev/pkg/ai/vendorapi"
)

func TestBase(t *testing.T) {
	for raw, want := range map[string]string{
		"":                             "https://api.openai.com",
		"https://api.openai.com/v1":    "https://api.openai.com",
		"https://api.openai.com/v1/":   "https://api.openai.com",
		"http://proxy:8080/openai/v1":  "http://proxy:8080/openai",
		"https://g.example.com/v1beta": "https://g.example.com",
		"http://ollama:11434/v1":       "http://ollama:11434",
		"http://whisper:8178":          "http://whisper:8178",
	} {
		u, err := vendorapi.Base(raw, "https://api.openai.com")
		if err != nil || u.String() != want {
			t.Errorf("Base(%q) = %v %v, want %s", raw, u, err, want)
		}
	}
	for _, raw := range []string{"api.openai.com", "ftp://x", "https://u:p@x", "https://x/?key=k", "http://[::1"} {
		if _, err := vendorapi.Base(raw, ""); err == nil {
			t.Errorf("Base(%q) accepted", raw)
		}
	}
}

func TestClassify(t *testing.T) {
	oai := func(typ, code string) string {
		return `{"error":{"message":"m","type":"` + typ + `","param":null,"code":"` + code + `"}}`
	}
	gem := func(code int, status, details string) string {
		return `{"error":{"code":` + map[int]string{404: "404", 429: "429", 500: "500"}[code] + `,"message":"m","status":"` + status + `","details":[` + details + `]}}`
	}
	tests := []struct {
		name   string
		d      vendorapi.Dialect
		status int
		header http.Header
		body   string
		kind   vendorapi.Kind
		after  time.Duration
	}{
		{"openai quota", vendorapi.OpenAI, 429, nil, oai("insufficient_quota", "insufficient_quota"), vendorapi.QuotaExhausted, 0},
		{"openai rate limit, ms", vendorapi.OpenAI, 429, http.Header{"Retry-After-Ms": {"1500"}}, oai("requests", "rate_limit_exceeded"), vendorapi.RateLimited, 1500 * time.Millisecond},
		{"openai rate limit, s", vendorapi.OpenAI, 429, http.Header{"Retry-After": {"7"}}, oai("requests", "rate_limit_exceeded"), vendorapi.RateLimited, 7 * time.Second},
		{"openai model", vendorapi.OpenAI, 404, nil, oai("invalid_request_error", "model_not_found"), vendorapi.ModelMissing, 0},
		{"openai other 404", vendorapi.OpenAI, 404, nil, `{"detail":"Not Found"}`, vendorapi.Fault, 0},
		{"openai 5xx", vendorapi.OpenAI, 503, nil, `<html>`, vendorapi.Unavailable, 0},
		{"openai bad request", vendorapi.OpenAI, 400, nil, oai("invalid_request_error", "invalid_value"), vendorapi.Fault, 0},
		{"gemini daily quota", vendorapi.Gemini, 429, nil, gem(429, "RESOURCE_EXHAUSTED",
			`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},`+
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"43s"}`), vendorapi.QuotaExhausted, 43 * time.Second},
		{"gemini per-minute", vendorapi.Gemini, 429, nil, gem(429, "RESOURCE_EXHAUSTED",
			`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]}`), vendorapi.RateLimited, 0},
		{"gemini model", vendorapi.Gemini, 404, nil, gem(404, "NOT_FOUND", ""), vendorapi.ModelMissing, 0},
		{"gemini internal", vendorapi.Gemini, 500, nil, gem(500, "INTERNAL", ""), vendorapi.Unavailable, 0},
	}
	for _, tt := range tests {
		f := vendorapi.Classify(tt.d, tt.status, tt.header, []byte(tt.body))
		if f.Kind != tt.kind || f.RetryAfter != tt.after {
			t.Errorf("%s: %v (%s, after %s), want %s after %s", tt.name, f, f.Kind, f.RetryAfter, tt.kind, tt.after)
		}
	}
}

func TestRetry(t *testing.T) {
	limited := &vendorapi.Failure{Kind: vendorapi.RateLimited, RetryAfter: 10 * time.Millisecond}
	n := 0
	v, f, err := vendorapi.Retry(t.Context(), 4, func() (int, *vendorapi.Failure, error) {
		n++
		if n < 3 {
			return 0, limited, nil
		}
		return 42, nil, nil
	})
	if v != 42 || f != nil || err != nil || n != 3 {
		t.Fatalf("Retry = %d %v %v after %d calls", v, f, err, n)
	}
	// A wait past the deadline is not started: the failure is returned.
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	n = 0
	_, f, _ = vendorapi.Retry(ctx, 4, func() (int, *vendorapi.Failure, error) {
		n++
		return 0, &vendorapi.Failure{Kind: vendorapi.RateLimited, RetryAfter: time.Hour}, nil
	})
	if f == nil || n != 1 {
		t.Fatalf("%d calls, failure %v", n, f)
	}
	// Other failures are not retried.
	n = 0
	_, f, _ = vendorapi.Retry(t.Context(), 4, func() (int, *vendorapi.Failure, error) {
		n++
		return 0, &vendorapi.Failure{Kind: vendorapi.QuotaExhausted}, nil
	})
	if f == nil || n != 1 {
		t.Fatalf("quota: %d calls", n)
	}
}

func TestLookupModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models/there":
			_, _ = w.Write([]byte(`{"id":"there","object":"model","created":1,"owned_by":"system"}`))
		case "/v1/models/gone":
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error":{"message":"The model 'gone' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`))
		case "/v1/models/busy":
			w.WriteHeader(503)
		default: // a server without the route
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	base, err := vendorapi.Base(srv.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	for model, missing := range map[string]bool{"there": false, "gone": true, "busy": false, "unrouted/x": false} {
		err := vendorapi.OpenAI.LookupModel(t.Context(), srv.Client(), base, model, nil)
		if errors.Is(err, vendorapi.ErrModelMissing) != missing || (model == "there") != (err == nil) {
			t.Errorf("%s: %v", model, err)
		}
	}
}

// A missing model is marked, a transient lookup failure changes nothing,
// a found model clears it.
func TestModelWatch(t *testing.T) {
	var answer error
	w := vendorapi.NewModelWatch("image", "acme", "m-1", func(context.Context) error { return answer }, slog.New(slog.DiscardHandler))
	steps := []struct {
		answer   error
		degraded bool
	}{
		{nil, false},
		{fmt.Errorf("lookup: %w", vendorapi.ErrModelMissing), true},
		{errors.New("HTTP 503"), true}, // says nothing about the model
		{context.DeadlineExceeded, true},
		{nil, false},
		{errors.New("HTTP 500"), false},
	}
	for i, s := range steps {
		answer = s.answer
		w.Check(t.Context())
		if (w.Degraded() != nil) != s.degraded {
			t.Fatalf("step %d (%v): degraded %v", i, s.answer, w.Degraded())
		}
	}
	w.MarkMissing(t.Context(), vendorapi.ErrModelMissing)
	if r, ok := w.Degraded().(vendorapi.Report); !ok || r.Model != "m-1" || r.Status != "degraded" {
		t.Fatalf("report %+v", w.Degraded())
	}
}
