package principal

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

func TestSignVerify(t *testing.T) {
	now := time.Now()
	p := Principal{OrgID: "o1", KeyID: "k1", Tier: "pro", RequestID: "r1", Expires: now.Add(time.Minute)}
	v, err := Sign(secret, p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Verify(secret, v, now)
	if err != nil || got.OrgID != "o1" || got.Tier != "pro" {
		t.Fatalf("verify: %+v %v", got, err)
	}
	cases := map[string]string{
		"empty":         "",
		"no dot":        "abc",
		"tampered":      "x" + v,
		"other secret":  mustSign(t, []byte("another-secret-another-secret-xx"), p),
		"expired":       mustSign(t, secret, Principal{OrgID: "o1", Expires: now.Add(-time.Second)}),
		"no org":        mustSign(t, secret, Principal{Expires: now.Add(time.Minute)}),
		"bad signature": v[:len(v)-2] + "!!",
	}
	for name, c := range cases {
		if _, err := Verify(secret, c, now); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

func mustSign(t *testing.T, s []byte, p Principal) string {
	t.Helper()
	v, err := Sign(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRequire(t *testing.T) {
	h := Require(secret)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(Org(r)))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 401 {
		t.Fatalf("no header: %d", rec.Code)
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set(Header, mustSign(t, secret, Principal{OrgID: "org-a", Expires: time.Now().Add(time.Minute)}))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.String() != "org-a" {
		t.Fatalf("valid header: %d %q", rec.Code, rec.Body.String())
	}
}

// Org is "" for a request that did not pass Require.
func TestOrgWithoutPrincipal(t *testing.T) {
	if got := Org(httptest.NewRequest("GET", "/", nil)); got != "" {
		t.Fatalf("Org = %q", got)
	}
}
