package providerkit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hookline.dev/pkg/ai/vendorapi"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

const secret = "sk-very-secret-key"

func newEndpoint(mod func(*providerkit.Config)) (*providerkit.Endpoint, error) {
	cfg := providerkit.Config{APIKey: secret}
	if mod != nil {
		mod(&cfg)
	}
	return providerkit.NewEndpoint(cfg, providerkit.Defaults{Provider: "acme", BaseURL: "https://api.example.com",
		Dialect: vendorapi.OpenAI, Catalogue: providerkit.OpenAIImages,
		Header: func(key string) http.Header { return http.Header{"X-Key": {key}} }})
}

func TestNewEndpointDefaults(t *testing.T) {
	ep, err := newEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Model().Name != providerkit.OpenAIImages.Default {
		t.Errorf("model %q", ep.Model().Name)
	}
	// The base URL as users write it: with or without the version, with a
	// proxy's path prefix.
	for base, want := range map[string]string{
		"":                            "https://api.example.com/v1/images/edits",
		"https://api.example.com/v1":  "https://api.example.com/v1/images/edits",
		"https://api.example.com/v1/": "https://api.example.com/v1/images/edits",
		"http://127.0.0.1:9/proxy/":   "http://127.0.0.1:9/proxy/v1/images/edits",
		"http://127.0.0.1:9/proxy/v1": "http://127.0.0.1:9/proxy/v1/images/edits",
	} {
		ep, err := newEndpoint(func(s *providerkit.Config) { s.BaseURL = base })
		if err != nil {
			t.Fatal(err)
		}
		if got := ep.URL("images", "edits"); got != want {
			t.Errorf("base %q: URL = %q, want %q", base, got, want)
		}
	}
	ep, err = newEndpoint(func(s *providerkit.Config) { s.Model = "custom" })
	if err != nil {
		t.Fatal(err)
	}
	if m := ep.Model(); m.Name != "custom" || m.Images == 0 || m.Size(thumbnail.Landscape).W == 0 {
		t.Errorf("an unlisted model gets the generic limits: %+v", m)
	}
}

func TestNewEndpointRefuses(t *testing.T) {
	tests := map[string]func(*providerkit.Config){
		"no key":          func(s *providerkit.Config) { s.APIKey = "  " },
		"relative URL":    func(s *providerkit.Config) { s.BaseURL = "api.example.com" },
		"ftp":             func(s *providerkit.Config) { s.BaseURL = "ftp://api.example.com" },
		"query":           func(s *providerkit.Config) { s.BaseURL = "https://api.example.com/?key=" + secret },
		"credentials":     func(s *providerkit.Config) { s.BaseURL = "https://u:" + secret + "@api.example.com" },
		"unparsable":      func(s *providerkit.Config) { s.BaseURL = "http://[::1" },
		"model with path": func(s *providerkit.Config) { s.Model = "../admin" },
		"negative":        func(s *providerkit.Config) { s.Timeout = -time.Second },
	}
	for name, mod := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := newEndpoint(mod)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), "acme: ") {
				t.Errorf("error %q lacks the provider", err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q shows the key", err)
			}
		})
	}
}

// TestCall drives Call through every kind of answer a provider gives.
func TestCall(t *testing.T) {
	type answer struct {
		status int
		header map[string]string
		body   string
	}
	var (
		mu      sync.Mutex
		queue   []answer
		attempt int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("X-Key") != secret || r.URL.Path != "/v1/things" {
			http.Error(w, "bad request "+r.URL.Path, http.StatusBadRequest)
			return
		}
		mu.Lock()
		a := queue[0]
		queue = queue[1:]
		attempt++
		mu.Unlock()
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	defer srv.Close()
	refused := func(f *vendorapi.Failure) bool { return f.Code == "moderation_blocked" }
	oai := func(code string) string {
		return `{"error":{"message":"m ` + secret + `","type":"invalid_request_error","param":null,"code":"` + code + `"}}`
	}
	tests := []struct {
		name     string
		answers  []answer
		want     error // nil: a plain fault
		reason   string
		after    time.Duration
		attempts int
	}{
		{"ok", []answer{{200, nil, `{"ok":true}`}}, nil, "", 0, 1},
		{"refusal", []answer{{400, nil, oai("moderation_blocked")}}, engine.ErrRejected, "", 0, 1},
		{"bad request", []answer{{400, nil, oai("invalid_value")}}, nil, "", 0, 1},
		{"model missing", []answer{{404, nil, oai("model_not_found")}}, engine.ErrModelMissing, "", 0, 1},
		{"quota spent, with Retry-After", []answer{{429, map[string]string{"Retry-After": "120"}, oai("insufficient_quota")}},
			engine.ErrUnavailable, engine.ReasonQuotaExhausted, 120 * time.Second, 1},
		{"quota spent, without Retry-After: none invented", []answer{{429, nil, oai("insufficient_quota")}},
			engine.ErrUnavailable, engine.ReasonQuotaExhausted, 0, 1},
		{"rate limit waited out", []answer{{429, map[string]string{"Retry-After-Ms": "20"}, oai("rate_limit_exceeded")}, {200, nil, `{}`}}, nil, "", 0, 2},
		{"rate limit longer than the request", []answer{{429, map[string]string{"Retry-After": "3600"}, oai("rate_limit_exceeded")}},
			engine.ErrUnavailable, engine.ReasonRateLimited, time.Hour, 1},
		{"server error", []answer{{503, nil, `upstream down`}}, engine.ErrUnavailable, engine.ReasonUnreachable, 0, 1},
	}
	ep, err := newEndpoint(func(s *providerkit.Config) { s.BaseURL = srv.URL + "/v1" })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			queue, attempt = tt.answers, 0
			mu.Unlock()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			data, err := ep.Call(ctx, ep.URL("things"), "application/json", []byte("{}"), refused)
			if attempt != tt.attempts {
				t.Errorf("%d attempts, want %d", attempt, tt.attempts)
			}
			if tt.name == "ok" || tt.name == "rate limit waited out" {
				if err != nil || len(data) == 0 {
					t.Fatalf("Call = %q, %v", data, err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, sentinel := range []error{engine.ErrRejected, engine.ErrUnavailable, engine.ErrModelMissing} {
				if errors.Is(err, sentinel) != errors.Is(tt.want, sentinel) {
					t.Errorf("%v: errors.Is(%v) wrong", err, sentinel)
				}
			}
			var o *engine.Outage
			if errors.As(err, &o) != (tt.reason != "") || o != nil && (o.Reason != tt.reason || o.RetryAfter != tt.after) {
				t.Errorf("outage %+v, want %s after %s", o, tt.reason, tt.after)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q shows the key", err)
			}
		})
	}
}

func TestCallTimeoutsAndDeadServers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices the client leaving only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	ep, err := newEndpoint(func(s *providerkit.Config) {
		s.BaseURL, s.Timeout = srv.URL, 100*time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ep.Call(t.Context(), ep.URL("slow"), "application/json", []byte("{}"), nil)
	if !errors.Is(err, engine.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v, want ErrUnavailable and DeadlineExceeded", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = ep.Call(ctx, ep.URL("ok"), "application/json", []byte("{}"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled visible", err)
	}
	srv.Close()
	_, err = ep.Call(t.Context(), ep.URL("ok"), "application/json", []byte("{}"), nil)
	if !errors.Is(err, engine.ErrUnavailable) || strings.Contains(err.Error(), secret) {
		t.Errorf("connection refused: %v, want ErrUnavailable without the key", err)
	}
}
