package e2e

import (
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// TestGatewayMetrics scrapes the gateway process's /metrics after traffic:
// each route is counted under its template, by status, and the raw path of
// a request (an organization's id) never becomes a label.
func TestGatewayMetrics(t *testing.T) {
	s := startStack(t)
	org, key := s.newOrg("pro")
	testkit.Eventually(t, 15*time.Second, "account opened", func() bool {
		return s.credits(key)["credits"].(map[string]any)["subscription"] == float64(500)
	})
	for range 2 {
		s.credits(key)
	}
	if st, _ := s.do("GET", "/api/v1/account/credits", "wrong", nil); st != 401 {
		t.Fatalf("bad key: %d", st)
	}
	if st, _ := s.do("POST", "/admin/v1/organizations/"+org+"/credits", adminToken, map[string]any{"credits": 5, "kind": "purchased", "reason": "metrics"}); st != 202 {
		t.Fatalf("grant: %d", st)
	}

	m := testkit.Scrape(t, s.debug+"/metrics")
	const requests = "http_server_request_duration_seconds"
	credits := m.Value(requests, "http_route", "/api/v1/account/credits", "http_response_status_code", "200", "service_name", "gateway")
	// Polled until the account opened, then twice more.
	if credits < 3 {
		t.Errorf("credits 200s counted %v, want at least 3; series:\n%s", credits, m.Dump(requests))
	}
	if got := m.Value(requests, "http_route", "/admin/v1/organizations/{id}/credits", "http_request_method", "POST", "http_response_status_code", "202"); got != 1 {
		t.Errorf("grants counted %v, want 1; series:\n%s", got, m.Dump(requests))
	}
	if got := m.Value(requests, "http_response_status_code", "401"); got != 1 {
		t.Errorf("401s counted %v, want 1", got)
	}
	for _, f := range m[requests].GetMetric() {
		for _, l := range f.GetLabel() {
			if l.GetName() == "http_route" && l.GetValue() != "" && strings.Contains(l.GetValue(), org) {
				t.Errorf("route label %q holds a raw path", l.GetValue())
			}
		}
	}
}
