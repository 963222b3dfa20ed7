package apptest

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
)

// Sign returns the principal of org as the gateway signs it with Secret:
// key "k" of tier pro, a fresh request id, idem as the idempotency key (""
// for none), valid for a minute.
func Sign(t testing.TB, org, idem string) string {
	t.Helper()
	v, err := principal.Sign([]byte(Secret), principal.Principal{OrgID: org, KeyID: "k", Tier: "pro", RequestID: uuid.NewString(),
		IdempotencyKey: idem, Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Call sends a request to url the way the gateway forwards one: as org
// ("" sends no principal) with idem as the idempotency key of its
// principal. It is testkit.Call with the principal added.
func Call(t testing.TB, client *http.Client, method, url, org, idem string, body any) testkit.Response {
	t.Helper()
	var headers []string
	if org != "" {
		headers = []string{principal.Header, Sign(t, org, idem)}
	}
	return testkit.Call(t, client, method, url, body, headers...)
}

// Do calls the service's path as org ("" sends no principal). body is
// marshalled unless it is a string, which is sent as is.
func (s *Service) Do(method, path, org string, body any) testkit.Response {
	s.T.Helper()
	return Call(s.T, s.Client, method, s.URL+path, org, "", body)
}

// Must is Do that fails the test unless the answer's status is want.
func (s *Service) Must(want int, method, path, org string, body any) testkit.Response {
	s.T.Helper()
	r := s.Do(method, path, org, body)
	if r.Status != want {
		s.T.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Raw)
	}
	return r
}

// Fetch GETs url (a public URL the service gave out) anonymously and
// returns the status and body.
func (s *Service) Fetch(url string) (int, []byte) {
	s.T.Helper()
	x := testkit.Send(s.T, s.Client, http.MethodGet, url, nil)
	return x.Status, x.Body
}
