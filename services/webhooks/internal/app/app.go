// Package app wires the webhooks service: configuration, dependencies in
// order (telemetry, Postgres, NATS JetStream), the HTTP server, the
// consumers of the clips and billing events, the dispatcher and the
// outbox relay, all stopped together.
package app

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/httpapi"
	"hookline.dev/services/webhooks/internal/postgres"
	"hookline.dev/services/webhooks/internal/service"
	"hookline.dev/services/webhooks/migrations"
)

// Config is the webhooks service's configuration. The fetch allow-list
// (HOOKLINE_FETCH_ALLOW_HOSTS) is the operator's: receivers on hosts it
// names may be loopback or private (tests, an on-premises receiver).
type Config struct {
	config.Common `default:"HOOKLINE_HTTP_ADDR=:8086,HOOKLINE_DB_SCHEMA=webhooks"`
	config.Fetch

	// Timeout bounds one delivery attempt: a slow receiver is cut off.
	Timeout time.Duration `env:"HOOKLINE_WEBHOOKS_TIMEOUT" default:"10s"`
	// MaxResponseBytes is how much of a receiver's answer is read.
	MaxResponseBytes int64 `env:"HOOKLINE_WEBHOOKS_MAX_RESPONSE_BYTES" default:"4096"`
	// BackoffBase is the delay after a first failed attempt, doubled after
	// each further one up to BackoffMax; RetryWindow is how long a
	// delivery is retried.
	BackoffBase time.Duration `env:"HOOKLINE_WEBHOOKS_BACKOFF_BASE" default:"5s"`
	BackoffMax  time.Duration `env:"HOOKLINE_WEBHOOKS_BACKOFF_MAX" default:"2h"`
	RetryWindow time.Duration `env:"HOOKLINE_WEBHOOKS_RETRY_WINDOW" default:"25h"`
	// An endpoint is disabled once it failed DisableFailures attempts in a
	// row over at least DisableAfter.
	DisableFailures int           `env:"HOOKLINE_WEBHOOKS_DISABLE_FAILURES" default:"10"`
	DisableAfter    time.Duration `env:"HOOKLINE_WEBHOOKS_DISABLE_AFTER" default:"24h"`
	// SecretOverlap is how long a rotated-out secret still signs.
	SecretOverlap time.Duration `env:"HOOKLINE_WEBHOOKS_SECRET_OVERLAP" default:"24h"`
	// Workers is how many endpoints one process sends to at once; Poll
	// how often it looks for retries that fell due.
	Workers int           `env:"HOOKLINE_WEBHOOKS_WORKERS" default:"16"`
	Poll    time.Duration `env:"HOOKLINE_WEBHOOKS_POLL" default:"1s"`
}

func (c *Config) policy() delivery.Policy {
	return delivery.Policy{Base: c.BackoffBase, Max: c.BackoffMax, Window: c.RetryWindow,
		DisableFailures: c.DisableFailures, DisableAfter: c.DisableAfter, Rand: rand.Float64}
}

func (c *Config) fetch() safefetch.Config {
	// Redirects are not followed: a receiver answers where it was
	// registered, and a 3xx is a failed attempt.
	return safefetch.Config{Timeout: c.Timeout, AllowHosts: c.FetchAllowHosts, DenyHosts: c.FetchDenyHosts, MaxRedirects: -1}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate(), c.Fetch.Validate(), c.fetch().Validate(), c.policy().Validate()}
	if c.Timeout <= 0 || c.Timeout > 5*time.Minute {
		errs = append(errs, errors.New("HOOKLINE_WEBHOOKS_TIMEOUT must be positive and at most 5m"))
	}
	if c.MaxResponseBytes < 0 || c.MaxResponseBytes > 1<<20 {
		errs = append(errs, errors.New("HOOKLINE_WEBHOOKS_MAX_RESPONSE_BYTES must be from 0 to 1048576"))
	}
	if c.SecretOverlap < 0 {
		errs = append(errs, errors.New("HOOKLINE_WEBHOOKS_SECRET_OVERLAP must not be negative"))
	}
	if c.Workers < 1 || c.Poll <= 0 {
		errs = append(errs, errors.New("HOOKLINE_WEBHOOKS_WORKERS must be at least 1 and HOOKLINE_WEBHOOKS_POLL positive"))
	}
	return errors.Join(errs...)
}

// Run starts the webhooks service and blocks until ctx is cancelled or a
// part fails.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: "webhooks", Common: cfg.Common, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	svc := &service.Service{
		Store:         postgres.New(p.Pool),
		Fetcher:       safefetch.New(cfg.fetch()),
		Policy:        cfg.policy(),
		SecretOverlap: cfg.SecretOverlap,
		MaxResponse:   cfg.MaxResponseBytes,
		Timeout:       cfg.Timeout,
		Workers:       cfg.Workers,
		Poll:          cfg.Poll,
		Log:           p.Log,
	}
	svc.Init()

	handler := telemetry.HTTPMiddleware("webhooks", p.Log)(httpapi.Handler(svc, []byte(cfg.PrincipalSecret), p.Ready, p.Log))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler},
		svc.Run,
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: service.ClipsConsumer, Stream: events.StreamClips, Subjects: service.ClipsSubjects, OrderKey: service.OrderKey,
			}, svc.HandleClipsEvent)
		},
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: service.BillingConsumer, Stream: events.StreamBilling, Subjects: service.BillingSubjects, OrderKey: service.OrderKey,
			}, svc.HandleBillingEvent)
		})
}
