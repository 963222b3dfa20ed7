package chix

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
)

func TestServiceRouterMethods(t *testing.T) {
	secret := []byte("chix-test-secret-0123456789abcdef")
	h := ServiceRouter(httpx.Adapter{}, nil, secret, func(r chi.Router) {
		r.Get("/things", func(w http.ResponseWriter, _ *http.Request) { _ = httpx.OK(w, []string{"a"}) })
	})
	signed, err := principal.Sign(secret, principal.Principal{OrgID: "o", Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method string, withPrincipal bool) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/things", nil)
		if withPrincipal {
			req.Header.Set(principal.Header, signed)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}

	if w := do(http.MethodHead, true); w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("HEAD on a GET route: %d %v", w.Code, w.Header())
	}
	if w := do(http.MethodHead, false); w.Code != http.StatusUnauthorized {
		t.Fatalf("HEAD without a principal: %d", w.Code)
	}
	w := do(http.MethodPost, true)
	var env struct {
		Code    string         `json:"code"`
		Details map[string]any `json:"details"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || w.Code != http.StatusMethodNotAllowed || env.Code != "method_not_allowed" || env.Details == nil {
		t.Fatalf("POST on a GET route: %d %s", w.Code, w.Body)
	}
}
