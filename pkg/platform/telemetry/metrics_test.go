package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/sdk/resource"
)

// scrape sets metrics up (once per process) and reads MetricsHandler.
func scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	restoreGlobals(t)
	if _, err := Setup(context.Background(), "telemetry-test", nil); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics status %d", rec.Code)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// count returns the sample count (histograms) or value (counters) of the
// series of name with exactly labels among its labels.
func count(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	var sum float64
	for _, m := range fams[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			if got[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		if m.Histogram != nil {
			sum += float64(m.Histogram.GetSampleCount())
		} else {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

func TestHTTPMetricsByRouteTemplate(t *testing.T) {
	const name = "http_server_request_duration_seconds"
	before := scrape(t)

	// A chi router wrapped from outside (billing, assets) reports through
	// RecordRoute; one that runs the middleware itself (gateway) through its
	// routing context, mounted sub-routers included.
	inner := chi.NewRouter()
	inner.Use(RecordRoute)
	inner.Get("/metrics-test/items/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	outer := HTTPMiddleware("svc", nil)(inner)

	gw := chi.NewRouter()
	gw.Use(HTTPMiddleware("gw", nil))
	sub := chi.NewRouter()
	sub.Get("/metrics-test/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	gw.Mount("/api", sub)

	for i := range 3 {
		outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/metrics-test/items/"+string(rune('a'+i)), nil))
	}
	gw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/metrics-test/orders/9", nil))
	// An unknown path and an invented method add no series of their own.
	outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/metrics-test/nope/1", nil))
	outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("BREW", "/metrics-test/items/x", nil))

	after := scrape(t)
	for _, c := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"http_route": "/metrics-test/items/{id}", "http_request_method": "GET", "http_response_status_code": "204"}, 3},
		{map[string]string{"http_route": "/api/metrics-test/orders/{id}", "http_response_status_code": "503"}, 1},
		{map[string]string{"http_request_method": "_OTHER"}, 1},
	} {
		if got := count(after, name, c.labels) - count(before, name, c.labels); got != c.want {
			t.Errorf("%s%v moved by %v, want %v", name, c.labels, got, c.want)
		}
	}
	// Runtime figures come from Prometheus collectors; they are labelled
	// with the service too.
	for _, m := range after["go_goroutines"].GetMetric() {
		if len(m.GetLabel()) == 0 || m.GetLabel()[0].GetName() != "service_name" || m.GetLabel()[0].GetValue() == "" {
			t.Errorf("go_goroutines labels %v, want service_name", m.GetLabel())
		}
	}
	for _, m := range after[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "http_route" && (strings.Contains(l.GetValue(), "/items/a") || strings.Contains(l.GetValue(), "nope")) {
				t.Errorf("raw path %q became a route label", l.GetValue())
			}
			if l.GetName() == "service_name" && l.GetValue() == "" {
				t.Error("series without service_name")
			}
		}
	}
}

func TestCounterAttributes(t *testing.T) {
	c := NewCounter("hookline.dev/pkg/platform/telemetry/test", "hookline.test.outcomes", "Test outcomes.")
	early, dup := c.With("outcome", "early"), c.With("outcome", "duplicate")
	before := scrape(t)
	early.Add(2)
	dup.Add(1)
	early.With("kind", "x").Add(5)
	after := scrape(t)
	for labels, want := range map[string]float64{"early": 7, "duplicate": 1} {
		l := map[string]string{"outcome": labels}
		if got := count(after, "hookline_test_outcomes_total", l) - count(before, "hookline_test_outcomes_total", l); got != want {
			t.Errorf("outcome=%s moved by %v, want %v", labels, got, want)
		}
	}
}

func TestMetricsExportOverOTLP(t *testing.T) {
	collector, hits := fakeCollector(t, "/base/v1/metrics")

	env := map[string]string{EnvEndpoint: collector.URL + "/base"}
	mp, _, err := newMeterProvider(context.Background(), resource.Default(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	c, err := mp.Meter("test").Int64Counter("hookline.test.exported")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if hits.Load() == 0 {
		t.Error("collector received no POST on /base/v1/metrics")
	}
}
