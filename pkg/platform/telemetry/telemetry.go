// Package telemetry sets up OpenTelemetry tracing and metrics for Hookline
// services, carries trace context across the two transports the system
// uses (HTTP and NATS headers), and records the RED metrics of every HTTP
// route. It deliberately avoids the otelhttp contrib module so that every
// service links only the core SDK and its exporters.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// scopeName is the instrumentation scope of spans started by this package.
const scopeName = "hookline.dev/pkg/platform/telemetry"

// Environment variables read by Setup. They follow the OpenTelemetry names so
// operators can reuse collector configuration they already know.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// Setup installs a global TracerProvider, the W3C TraceContext + Baggage
// propagator and (once per process) the global MeterProvider, and returns a
// function that stops the tracer provider and flushes the metrics.
//
// Metrics are always served in the Prometheus text format by
// MetricsHandler; with an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) they are also pushed every minute.
//
// When OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-specific variant) is set,
// spans are exported over OTLP/HTTP through a batch processor. Otherwise the
// provider records no spans anywhere but still allocates trace and span ids,
// which keeps traceparent propagation (and log correlation) working in local
// runs and tests without a collector.
//
// getenv is injected rather than read from os so tests and run(ctx, getenv, …)
// control configuration completely.
func Setup(ctx context.Context, service string, getenv func(string) string) (shutdown func(context.Context) error, err error) {
	if service == "" {
		return nil, errors.New("telemetry: setup: empty service name")
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}

	// A schemaless resource cannot conflict with the SDK's own schema URL
	// when merged, so Setup never fails just because the SDK was upgraded.
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(service)))
	if err != nil {
		return nil, fmt.Errorf("telemetry: build resource for %s: %w", service, err)
	}

	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}

	endpoint, err := signalEndpoint(getenv, EnvTracesEndpoint, "/v1/traces")
	if err != nil {
		return nil, err
	}
	if endpoint != "" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
		if err != nil {
			return nil, fmt.Errorf("telemetry: create otlp exporter for %s: %w", endpoint, err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}

	if err := setupMetrics(ctx, res, getenv); err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{},
		propagation.Baggage{},
	))

	return func(ctx context.Context) error {
		err := flushMetrics(ctx)
		if serr := tp.Shutdown(ctx); serr != nil {
			err = errors.Join(err, fmt.Errorf("telemetry: shutdown tracer provider: %w", serr))
		}
		return err
	}, nil
}

// signalEndpoint returns the full OTLP/HTTP URL of one signal (traces,
// metrics), or "" when its export is disabled. The generic endpoint is a
// base URL to which the OTLP spec says the signal path is appended; the
// signal-specific one (specific) is used as given. We resolve this ourselves
// because WithEndpointURL takes the path literally.
func signalEndpoint(getenv func(string) string, specific, path string) (string, error) {
	if v := strings.TrimSpace(getenv(specific)); v != "" {
		if _, err := parseEndpoint(v); err != nil {
			return "", fmt.Errorf("telemetry: %s: %w", specific, err)
		}
		return v, nil
	}
	v := strings.TrimSpace(getenv(EnvEndpoint))
	if v == "" {
		return "", nil
	}
	u, err := parseEndpoint(v)
	if err != nil {
		return "", fmt.Errorf("telemetry: %s: %w", EnvEndpoint, err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	return u.String(), nil
}

func parseEndpoint(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil {
		return nil, fmt.Errorf("parse endpoint %q: %w", v, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q must be an http(s) URL with a host", v)
	}
	return u, nil
}
