package app_test

import (
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
)

// TestMetricsOnDebugAddress scrapes the /metrics of a running billing after
// real traffic: the route's requests, the gateway consumer's deliveries and
// the saga's outcomes carry the right counts. Counters are per process and
// other tests of the package run before this one, hence the differences.
func TestMetricsOnDebugAddress(t *testing.T) {
	debug := testkit.ReservePort(t)
	h := newHarness(t, "HOOKLINE_DEBUG_ADDR", debug.InProcess(t))
	url := debug.URL + "/metrics"
	testkit.WaitHTTP(t, url, 10*time.Second)

	const (
		requests = "http_server_request_duration_seconds"
		handled  = "messaging_process_duration_seconds"
		reserves = "hookline_billing_reserves_total"
		settled  = "hookline_billing_settlements_total"
	)
	credits := []string{"http_route", "/account/credits", "http_request_method", "GET", "http_response_status_code", "200"}
	unauthorized := []string{"http_route", "/account/credits", "http_response_status_code", "401"}
	opened := []string{"messaging_consumer_group_name", "billing-gateway", "messaging_destination_name", events.GatewayOrganizationCreated, "outcome", "ok"}
	before := testkit.Scrape(t, url)

	org := h.openAccount("pro")
	for range 3 {
		readJSON(t, h.Do("GET", "/account/credits", org, nil), 200)
	}
	readJSON(t, h.Do("GET", "/account/credits", "", nil), 401)
	for _, id := range []string{"m-ok", "m-short"} { // 60 of 100 credits each: the second is short
		if _, err := h.reserve(t.Context(), org, id, 60); err != nil {
			t.Fatal(err)
		}
	}
	h.settle(org, "m-ok", true)
	testkit.Eventually(t, 10*time.Second, "settled", func() bool { return h.usageStatus("m-ok") == "committed" })

	delta := func(after testkit.Metrics, name string, labels ...string) float64 {
		return after.Value(name, labels...) - before.Value(name, labels...)
	}
	// The consumer and the settlement are counted just after the commit
	// that the conditions above observe.
	var after testkit.Metrics
	testkit.Eventually(t, 5*time.Second, "settlement counted", func() bool {
		after = testkit.Scrape(t, url)
		return delta(after, settled, "outcome", "committed") >= 1
	})
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{requests, credits, 3},
		{requests, unauthorized, 1},
		{handled, opened, 1},
		{reserves, []string{"outcome", events.ReserveOK}, 1},
		{reserves, []string{"outcome", events.ReserveInsufficientCredits}, 1},
		{settled, []string{"outcome", "committed"}, 1},
	} {
		if got := delta(after, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v moved by %v, want %v; series:\n%s", c.name, c.labels, got, c.want, after.Dump(c.name))
		}
	}
	if after.Value("hookline_messaging_relay_lag_seconds") == 0 {
		t.Error("no relay lag recorded after billing published events")
	}
}
