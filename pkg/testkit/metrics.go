package testkit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"hookline.dev/pkg/platform/telemetry"
)

// Metrics is one scrape of a Prometheus text endpoint, by metric name.
type Metrics map[string]*dto.MetricFamily

// Scrape reads the metrics a running service serves at url (its debug
// address's /metrics).
func Scrape(t testing.TB, url string) Metrics {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	return parse(t, url, resp.StatusCode, resp.Body)
}

func parse(t testing.TB, source string, status int, body io.Reader) Metrics {
	t.Helper()
	if status != http.StatusOK {
		t.Fatalf("scrape %s: status %d", source, status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	m, err := parser.TextToMetricFamilies(body)
	if err != nil {
		t.Fatalf("scrape %s: %v", source, err)
	}
	return m
}

var setupProcessMetrics = sync.OnceValue(func() error {
	_, err := telemetry.Setup(context.Background(), "test", nil)
	return err
})

// ScrapeProcess reads the metrics of the test process itself: those of the
// services it runs in-process, or of packages whose instruments record
// without a service around them, for which it sets telemetry up first.
func ScrapeProcess(t testing.TB) Metrics {
	t.Helper()
	serve := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		telemetry.MetricsHandler().ServeHTTP(rec, httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/metrics", nil))
		return rec
	}
	rec := serve()
	if rec.Code == http.StatusServiceUnavailable {
		if err := setupProcessMetrics(); err != nil {
			t.Fatalf("telemetry setup: %v", err)
		}
		rec = serve()
	}
	return parse(t, "the process", rec.Code, rec.Body)
}

// Value sums the series of the metric name whose labels include labels
// (name, value, name, value, …): a counter's value, a gauge's, or a
// histogram's sample count. A metric or series that does not exist is 0.
func (m Metrics) Value(name string, labels ...string) float64 {
	f := m[name]
	if f == nil {
		return 0
	}
	var sum float64
	for _, s := range f.GetMetric() {
		if !hasLabels(s, labels) {
			continue
		}
		switch {
		case s.Counter != nil:
			sum += s.Counter.GetValue()
		case s.Gauge != nil:
			sum += s.Gauge.GetValue()
		case s.Histogram != nil:
			sum += float64(s.Histogram.GetSampleCount())
		case s.Untyped != nil:
			sum += s.Untyped.GetValue()
		}
	}
	return sum
}

func hasLabels(s *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range s.GetLabel() {
			if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Dump lists the series of the metrics whose name starts with prefix,
// for failure messages.
func (m Metrics) Dump(prefix string) string {
	var b strings.Builder
	for name, f := range m {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, s := range f.GetMetric() {
			fmt.Fprintf(&b, "%s%v\n", name, s.GetLabel())
		}
	}
	return b.String()
}
