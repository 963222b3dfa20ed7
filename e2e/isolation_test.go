package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/platform/principal"
)

// TestTenantIsolation goes through the real gateway and the real assets
// and billing services: one organization's resource is a 404 for another,
// whatever principal it forges, and a service port reached directly acts
// for nobody without a principal signed with the deployment's secret.
func TestTenantIsolation(t *testing.T) {
	s := startStack(t)
	orgA, keyA := s.newOrg("pro")
	_, keyB := s.newOrg("pro")

	st, body := s.do("POST", "/api/v1/collections", keyA, map[string]any{"name": "A's"})
	if st != 201 {
		t.Fatalf("create collection: %d %v", st, body)
	}
	id := body["data"].(map[string]any)["id"].(string)
	path := "/api/v1/collections/" + id
	if st, body := s.do("GET", path, keyA, nil); st != 200 {
		t.Fatalf("A reads its collection: %d %v", st, body)
	}
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		var b any
		if m == "PATCH" {
			b = map[string]any{"name": "taken"}
		}
		if st, body := s.do(m, path, keyB, b); st != 404 || body["code"] != "not_found" {
			t.Fatalf("B %s A's collection: %d %v", m, st, body)
		}
	}
	// A principal for A forged by B is replaced by the gateway with B's.
	forged := s.sign(principal.Principal{OrgID: orgA, KeyID: "forged", Tier: "pro", Expires: time.Now().Add(time.Hour)})
	if st, body := s.raw("GET", s.base+path, "", []string{"Authorization", "Bearer " + keyB, principal.Header, forged}); st != 404 || !strings.Contains(body, "not_found") {
		t.Fatalf("B with a forged principal for A: %d %s", st, body)
	}
	if st, body := s.do("GET", path, keyA, nil); st != 200 || body["data"].(map[string]any)["name"] != "A's" {
		t.Fatalf("A's collection after B's attempts: %d %v", st, body)
	}

	// The service ports refuse every request without a valid principal.
	otherSecret, _ := principal.Sign([]byte("another-secret-another-secret-0000"), principal.Principal{OrgID: orgA, Expires: time.Now().Add(time.Hour)})
	expired := s.sign(principal.Principal{OrgID: orgA, Expires: time.Now().Add(-time.Minute)})
	for _, target := range []string{s.assets + "/collections/" + id, s.billing + "/account/credits", s.thumbsURL + "/thumbnails"} {
		for name, h := range map[string][]string{
			"nothing":        nil,
			"the API key":    {"Authorization", "Bearer " + keyA},
			"another secret": {principal.Header, otherSecret},
			"expired":        {principal.Header, expired},
			"garbage":        {principal.Header, "abc.def"},
		} {
			if st, body := s.raw("GET", target, "", h); st != 401 || !strings.Contains(body, `"unauthorized"`) {
				t.Errorf("%s with %s: %d %s", target, name, st, body)
			}
		}
	}
	// ...and the one signed with the deployment's secret is what admits:
	// the check above is the only thing between a port and the data.
	valid := s.sign(principal.Principal{OrgID: orgA, KeyID: "direct", Tier: "pro", Expires: time.Now().Add(time.Minute)})
	if st, body := s.raw("GET", s.assets+"/collections/"+id, "", []string{principal.Header, valid}); st != 200 {
		t.Fatalf("direct call with a valid principal: %d %s", st, body)
	}
}

// TestMethodsAndMediaTypes checks 405, HEAD and 415 on the real services,
// through the gateway and on their own ports.
func TestMethodsAndMediaTypes(t *testing.T) {
	s := startStack(t)
	orgA, keyA := s.newOrg("pro")
	auth := []string{"Authorization", "Bearer " + keyA}
	signed := []string{principal.Header, s.sign(principal.Principal{OrgID: orgA, KeyID: "direct", Tier: "pro", Expires: time.Now().Add(time.Minute)})}

	for _, c := range []struct{ url, method string }{
		{s.base + "/api/v1/account/credits", "HEAD"},
		{s.base + "/api/v1/collections", "HEAD"},
		{s.assets + "/collections", "HEAD"},
		{s.billing + "/account/credits", "HEAD"},
	} {
		h := auth
		if !strings.HasPrefix(c.url, s.base) {
			h = signed
		}
		if st, body := s.raw(c.method, c.url, "", h); st != 200 || body != "" {
			t.Errorf("%s %s: %d %q", c.method, c.url, st, body)
		}
	}
	for _, c := range []struct {
		url string
		h   []string
	}{{s.base + "/api/v1/account/credits", auth}, {s.billing + "/account/credits", signed}} {
		if st, body := s.raw("POST", c.url, "", c.h); st != 405 || !strings.Contains(body, `"method_not_allowed"`) {
			t.Errorf("POST %s: %d %s", c.url, st, body)
		}
	}
	for _, c := range []struct {
		url string
		h   []string
	}{{s.base + "/api/v1/collections", auth}, {s.assets + "/collections", signed}} {
		h := append([]string{"Content-Type", "text/plain"}, c.h...)
		if st, body := s.raw("POST", c.url, `{"name":"x"}`, h); st != 415 || !strings.Contains(body, `"unsupported_media_type"`) {
			t.Errorf("text/plain body to %s: %d %s", c.url, st, body)
		}
	}
}

func (s *stack) sign(p principal.Principal) string {
	s.t.Helper()
	v, err := principal.Sign([]byte(principalSecret), p)
	if err != nil {
		s.t.Fatal(err)
	}
	return v
}

// raw sends a request with the given header pairs and returns the status
// and body.
func (s *stack) raw(method, url, body string, headers []string) (int, string) {
	s.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
