package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const metricsSource = `package m

var (
	reserves = telemetry.NewCounter(scope, "hookline.billing.reserves", "Reserve answers.")
	lag      = histogram("hookline.messaging.relay.lag", "Age of an outbox row.")
	dur, _   = otel.Meter(scopeName).Float64Histogram("http.server.request.duration", metric.WithUnit("s"))
	missing  = telemetry.NewGauge(scope, "hookline.provider.model.missing", "1 while missing.")
)
`

func rule(expr string) string {
	return `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: r}
spec:
  groups:
    - name: g
      rules:
        - alert: A
          expr: |
            ` + expr + "\n"
}

func TestMetricsDeclared(t *testing.T) {
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "m.go"), []byte(metricsSource), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file's declarations do not count.
	if err := os.WriteFile(filepath.Join(repo, "m_test.go"), []byte(`var x = telemetry.NewCounter(s, "only.in.tests", "")`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		expr    string
		wantErr string
	}{
		{`sum(rate(hookline_billing_reserves_total{outcome="ok"}[5m])) / sum(rate(http_server_request_duration_seconds_count[5m]))`, ""},
		{`histogram_quantile(0.99, sum by (le) (rate(hookline_messaging_relay_lag_seconds_bucket{service_name="x.y_total"}[10m]))) > 5`, ""},
		{`max by (model) (hookline_provider_model_missing{use="image"}) > 0`, ""},
		{`sum(rate(hookline_billing_reserves{outcome="ok"}[5m]))`, "hookline_billing_reserves"},
		{`increase(only_in_tests_total[5m])`, "only_in_tests_total"},
		{`rate(hookline_billing_reserves_total[5m]) / rate(hookline_render_failures_total{kind="clip"}[5m])`, "hookline_render_failures_total"},
		{`sum(rate(hookline_billing_reserves_total[5m])`, "unclosed"},
		{`hookline_billing_reserves_total{outcome="ok"} > `, "unexpected end of input"},
	}
	for _, c := range cases {
		rendered := filepath.Join(t.TempDir(), "r.yaml")
		if err := os.WriteFile(rendered, []byte(rule(c.expr)), 0o644); err != nil {
			t.Fatal(err)
		}
		err := run(t.Context(), []string{"metrics", "-repo", repo, rendered}, &strings.Builder{})
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.expr, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want it to name %s", c.expr, err, c.wantErr)
		}
	}
}
