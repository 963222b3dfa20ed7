package providerkit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
)

const secret = "sk-very-secret-key"

func newEndpoint(mod func(*providerkit.Config)) (*providerkit.Endpoint, error) {
	cfg := providerkit.Config{APIKey: secret}
	if mod != nil {
		mod(&cfg)
	}
	return providerkit.NewEndpoint(cfg, providerkit.Defaults{Provider: "acme", BaseURL: "https://api.example.com", Model: "m-1"})
}

func TestNewEndpointDefaults(t *testing.T) {
	ep, err := newEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Model() != "m-1" || ep.Key() != secret {
		t.Errorf("model %q, key %q", ep.Model(), ep.Key())
	}
	if got := ep.URL("v1", "images", "edits"); got != "https://api.example.com/v1/images/edits" {
		t.Errorf("URL = %q", got)
	}
	ep, err = newEndpoint(func(s *providerkit.Config) {
		s.BaseURL, s.Model = "http://127.0.0.1:9/proxy/", "custom"
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := ep.URL("v1beta", "models", ep.Model()+":generateContent"); got != "http://127.0.0.1:9/proxy/v1beta/models/custom:generateContent" {
		t.Errorf("URL = %q", got)
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

func TestFailure(t *testing.T) {
	ep, err := newEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		status   int
		rejected bool
		want     error // nil: neither sentinel
	}{
		{400, true, engine.ErrRejected},
		{200, true, engine.ErrRejected},
		{408, false, engine.ErrUnavailable},
		{429, false, engine.ErrUnavailable},
		{500, false, engine.ErrUnavailable},
		{503, false, engine.ErrUnavailable},
		{400, false, nil},
		{401, false, nil},
		{403, false, nil},
		{404, false, nil},
	}
	for _, tt := range tests {
		err := ep.Failure(tt.status, "Incorrect API key provided: "+secret+"\n  more", tt.rejected)
		for _, sentinel := range []error{engine.ErrRejected, engine.ErrUnavailable} {
			if errors.Is(err, sentinel) != errors.Is(tt.want, sentinel) {
				t.Errorf("%d rejected=%v: %v; errors.Is(%v) wrong", tt.status, tt.rejected, err, sentinel)
			}
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%d: error %q shows the key or spans lines", tt.status, err)
		}
	}
	long := ep.Failure(500, strings.Repeat("é", 1000), false)
	if n := len([]rune(long.Error())); n > 400 {
		t.Errorf("detail not shortened: %d runes", n)
	}
}

func TestPost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("X-Key") != secret || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/slow" {
			// The server notices the client leaving only once the body is
			// read.
			_, _ = io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	ep, err := newEndpoint(func(s *providerkit.Config) {
		s.BaseURL, s.Timeout = srv.URL, 100*time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"X-Key": {secret}}

	status, body, err := ep.Post(t.Context(), ep.URL("ok"), "application/json", []byte("{}"), header)
	if err != nil || status != http.StatusTeapot || string(body) != `{"ok":true}` {
		t.Fatalf("Post = %d %q %v", status, body, err)
	}

	_, _, err = ep.Post(t.Context(), ep.URL("slow"), "application/json", []byte("{}"), header)
	if !errors.Is(err, engine.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v, want ErrUnavailable and DeadlineExceeded", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err = ep.Post(ctx, ep.URL("ok"), "application/json", []byte("{}"), header)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled visible", err)
	}

	srv.Close()
	_, _, err = ep.Post(t.Context(), ep.URL("ok"), "application/json", []byte("{}"), header)
	if !errors.Is(err, engine.ErrUnavailable) || strings.Contains(err.Error(), secret) {
		t.Errorf("connection refused: %v, want ErrUnavailable without the key", err)
	}
}
