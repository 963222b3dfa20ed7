// Package telemetry sets up OpenTelemetry tracing for Hookline services and
// carries trace context across the two transports the system uses: HTTP and
// NATS headers. It deliberately avoids the otelhttp contrib module so that
// every service links only the core SDK and one exporter.
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
const scopeName = "hookline.dev/pkg/telemetry"

// Environment variables read by Setup. They follow the OpenTelemetry names so
// operators can reuse collector configuration they already know.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// Setup installs a global TracerProvider and the W3C TraceContext + Baggage
// propagator, and returns a function that flushes and stops the provider.
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

	endpoint, err := tracesEndpoint(getenv)
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

	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{},
		propagation.Baggage{},
	))

	return func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("telemetry: shutdown tracer provider: %w", err)
		}
		return nil
	}, nil
}

// tracesEndpoint returns the full OTLP/HTTP traces URL, or "" when export is
// disabled. The generic endpoint is a base URL to which the OTLP spec says the
// signal path is appended; the traces-specific one is used as given. We
// resolve this ourselves because WithEndpointURL takes the path literally.
func tracesEndpoint(getenv func(string) string) (string, error) {
	if v := strings.TrimSpace(getenv(EnvTracesEndpoint)); v != "" {
		if _, err := parseEndpoint(v); err != nil {
			return "", fmt.Errorf("telemetry: %s: %w", EnvTracesEndpoint, err)
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
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
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
