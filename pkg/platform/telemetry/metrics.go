package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// EnvMetricsEndpoint is the metrics-specific OTLP endpoint; like the traces
// one it is used as given, while EnvEndpoint gets /v1/metrics appended.
const EnvMetricsEndpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"

// DurationBuckets are the histogram bounds, in seconds, of every duration
// this repository records: OpenTelemetry's HTTP server recommendation, which
// covers a cached read (5 ms) up to a slow upstream (10 s). The SDK's own
// default bounds are meant for milliseconds.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// The meter provider is process-wide, unlike the tracer provider: the
// instruments of pkg/platform/messaging and of the services are package variables
// created through the global meter, and the global delegates to the first
// provider installed only. Tests that start several services in one process
// therefore share one provider; its exporters are configured by the first
// Setup.
var metrics struct {
	sync.Mutex
	provider *sdkmetric.MeterProvider
	handler  http.Handler
}

// setupMetrics installs the process's meter provider unless one is
// installed: a Prometheus reader always (served by MetricsHandler) and an
// OTLP/HTTP periodic reader when an endpoint is configured.
func setupMetrics(ctx context.Context, res *resource.Resource, getenv func(string) string) error {
	metrics.Lock()
	defer metrics.Unlock()
	if metrics.provider != nil {
		return nil
	}
	mp, handler, err := newMeterProvider(ctx, res, getenv)
	if err != nil {
		return err
	}
	otel.SetMeterProvider(mp)
	metrics.provider, metrics.handler = mp, handler
	return nil
}

// newMeterProvider builds a provider with its readers and the handler that
// serves its Prometheus registry.
func newMeterProvider(ctx context.Context, res *resource.Resource, getenv func(string) string) (*sdkmetric.MeterProvider, http.Handler, error) {
	reg := prometheus.NewRegistry()
	prom, err := otelprom.New(
		otelprom.WithRegisterer(reg),
		// Names as Prometheus users expect them (http_server_request_duration_seconds).
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes),
		// service_name on every series, so a dashboard can tell services
		// apart whatever the scrape configuration calls its jobs.
		otelprom.WithResourceAsConstantLabels(attribute.NewAllowKeysFilter(semconv.ServiceNameKey)),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	// Go runtime and process figures (heap against GOMEMLIMIT, GC, file
	// descriptors) come from the Prometheus collectors, which read them
	// without extra dependencies; they get service_name like the rest.
	name, _ := res.Set().Value(semconv.ServiceNameKey)
	runtimeReg := prometheus.WrapRegistererWith(prometheus.Labels{"service_name": name.AsString()}, reg)
	if err := runtimeReg.Register(collectors.NewGoCollector()); err != nil {
		return nil, nil, fmt.Errorf("telemetry: go collector: %w", err)
	}
	if err := runtimeReg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, nil, fmt.Errorf("telemetry: process collector: %w", err)
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(prom)}
	endpoint, err := signalEndpoint(getenv, EnvMetricsEndpoint, "/v1/metrics")
	if err != nil {
		return nil, nil, err
	}
	if endpoint != "" {
		exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(endpoint))
		if err != nil {
			return nil, nil, fmt.Errorf("telemetry: create otlp metric exporter for %s: %w", endpoint, err)
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	return sdkmetric.NewMeterProvider(opts...), promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), nil
}

// flushMetrics exports what the OTLP reader has not sent yet. The provider
// itself stays up: other services of the process may still record.
func flushMetrics(ctx context.Context) error {
	metrics.Lock()
	mp := metrics.provider
	metrics.Unlock()
	if mp == nil {
		return nil
	}
	if err := mp.ForceFlush(ctx); err != nil {
		return fmt.Errorf("telemetry: flush metrics: %w", err)
	}
	return nil
}

// MetricsHandler serves the process's metrics in the Prometheus text format
// (the debug server mounts it at /metrics). Before Setup it answers 503.
func MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		metrics.Lock()
		h := metrics.handler
		metrics.Unlock()
		if h == nil {
			http.Error(w, "metrics are not set up", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Counter is an int64 counter with fixed attributes, for call sites that
// only count (counter.Add(1)). Create them as package variables: the global
// meter hands the measurements to the provider Setup installs later.
type Counter struct {
	inst  metric.Int64Counter
	attrs []attribute.KeyValue
	opt   metric.AddOption
}

// NewCounter returns the counter name of the meter scope. An invalid name is
// a programming error, reported through otel.Handle; the counter then
// records nothing.
func NewCounter(scope, name, description string) Counter {
	c, err := otel.Meter(scope).Int64Counter(name, metric.WithDescription(description))
	if err != nil {
		otel.Handle(err)
		return Counter{}
	}
	return Counter{inst: c, opt: metric.WithAttributeSet(*attribute.EmptySet())}
}

// With returns the counter with one more attribute, such as outcome=early.
func (c Counter) With(key, value string) Counter {
	attrs := append(slices.Clip(c.attrs), attribute.String(key, value))
	return Counter{inst: c.inst, attrs: attrs, opt: metric.WithAttributeSet(attribute.NewSet(attrs...))}
}

// Add adds n.
func (c Counter) Add(n int64) {
	if c.inst != nil {
		c.inst.Add(context.Background(), n, c.opt)
	}
}

// JobBuckets are the bounds, in seconds, of durations of long work
// (downloads, transcriptions, renders): a second to half an hour.
var JobBuckets = []float64{0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800}

// Histogram is a float64 histogram of seconds with fixed attributes, the
// timing counterpart of Counter.
type Histogram struct {
	inst  metric.Float64Histogram
	attrs []attribute.KeyValue
	opt   metric.RecordOption
}

// NewHistogram returns the seconds histogram name of the meter scope with
// the bucket bounds buckets (DurationBuckets, JobBuckets). An invalid name
// is a programming error, reported through otel.Handle; the histogram then
// records nothing.
func NewHistogram(scope, name, description string, buckets []float64) Histogram {
	h, err := otel.Meter(scope).Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(buckets...))
	if err != nil {
		otel.Handle(err)
		return Histogram{}
	}
	return Histogram{inst: h, opt: metric.WithAttributeSet(*attribute.EmptySet())}
}

// With returns the histogram with one more attribute.
func (h Histogram) With(key, value string) Histogram {
	attrs := append(slices.Clip(h.attrs), attribute.String(key, value))
	return Histogram{inst: h.inst, attrs: attrs, opt: metric.WithAttributeSet(attribute.NewSet(attrs...))}
}

// Record records a duration.
func (h Histogram) Record(d time.Duration) {
	if h.inst != nil {
		h.inst.Record(context.Background(), d.Seconds(), h.opt)
	}
}

// Gauge is an int64 gauge with fixed attributes: a state that is
// recorded, not counted (1 while a provider's model is missing, else 0).
type Gauge struct {
	inst  metric.Int64Gauge
	attrs []attribute.KeyValue
	opt   metric.RecordOption
}

// NewGauge returns the gauge name of the meter scope. An invalid name is a
// programming error, reported through otel.Handle; the gauge then records
// nothing.
func NewGauge(scope, name, description string) Gauge {
	g, err := otel.Meter(scope).Int64Gauge(name, metric.WithDescription(description))
	if err != nil {
		otel.Handle(err)
		return Gauge{}
	}
	return Gauge{inst: g, opt: metric.WithAttributeSet(*attribute.EmptySet())}
}

// With returns the gauge with one more attribute.
func (g Gauge) With(key, value string) Gauge {
	attrs := append(slices.Clip(g.attrs), attribute.String(key, value))
	return Gauge{inst: g.inst, attrs: attrs, opt: metric.WithAttributeSet(attribute.NewSet(attrs...))}
}

// Record sets the gauge to v.
func (g Gauge) Record(v int64) {
	if g.inst != nil {
		g.inst.Record(context.Background(), v, g.opt)
	}
}
