// Package app wires the gateway together: configuration, telemetry,
// Postgres, NATS, the domain, the HTTP server and the outbox relay, with an
// orderly shutdown. Tests start the real service through Run.
package app

import (
	"context"
	"io"
	"log/slog"
	"time"

	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/services/gateway/internal/httpapi"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/natsrpc"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/postgres"
	"hookline.dev/services/gateway/internal/ratelimit"
	"hookline.dev/services/gateway/migrations"
)

// ServiceName names the gateway in telemetry, NATS and logs.
const ServiceName = "gateway"

// adjustTimeout bounds the wait for billing's answer to a credit adjustment.
const adjustTimeout = 5 * time.Second

// Run starts the gateway and blocks until ctx ends or a component fails.
// It writes logs to stdout, and the line "gateway listening on <addr>" once
// the server accepts connections.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: ServiceName, Common: cfg.Common, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	orgs := org.NewService(postgres.NewOrgs(p.Pool), org.Options{
		Tiers: cfg.tiers.Names(), CacheTTL: cfg.KeyCacheTTL, MissingTTL: cfg.KeyMissingTTL,
		Ledger: natsrpc.NewBilling(p.Bus, adjustTimeout),
	})
	buckets := postgres.NewRateBuckets(p.Pool)
	var shared ratelimit.Store
	if cfg.RateLimitShared {
		shared = buckets
	}
	limiter := ratelimit.NewShared(shared, ratelimit.SharedOptions{
		Span: cfg.RateLimitLease,
		OnError: func(err error) {
			p.Log.Warn("shared rate limit unavailable; limiting per replica", "err", err)
		},
	})
	guard := idempotency.NewGuard(postgres.NewIdempotency(p.Pool), nil, idempotency.DefaultTTL,
		// The claim must outlive the longest proxied request, or a slow
		// request could be claimed again and run twice.
		cfg.UpstreamTimeout+time.Minute)
	handler := httpapi.NewHandler(httpapi.Config{
		Orgs:             orgs,
		Limiter:          limiter,
		Limits:           cfg.limits,
		AuthFailures:     ratelimit.New(nil),
		AuthFailureLimit: cfg.authFailures,
		TrustedProxies:   cfg.trustedProxies,
		Idempotency:      guard,
		Upstreams:        cfg.upstreams,
		Transport:        httpapi.NewTransport(cfg.UpstreamTimeout),
		PrincipalSecret:  []byte(cfg.PrincipalSecret),
		AdminToken:       cfg.AdminToken,
		MaxBodyBytes:     cfg.MaxBodyBytes,
		BodyReadTimeout:  cfg.BodyReadTimeout,
		Deadlines: httpapi.Deadlines{
			Read: cfg.UpstreamReadTimeout, Write: cfg.UpstreamWriteTimeout, Slow: cfg.UpstreamTimeout,
		},
		IdempotentTimeout: cfg.UpstreamTimeout + 30*time.Second,
		Ready:             p.Ready,
		Log:               p.Log,
	}, cfg.tiers.Names()[0])

	return p.Serve(ctx, stdout, platform.Server{
		Addr: cfg.Addr, Handler: handler,
		// Must exceed the upstream timeout so a slow service's answer can
		// still be written.
		WriteTimeout: cfg.UpstreamTimeout + time.Minute,
	}, func(ctx context.Context) error {
		purgeLoop(ctx, cfg.IdempotencyPurgeInterval, p.Log, map[string]func(context.Context) (int64, error){
			"idempotency records": guard.Purge,
			"rate-limit buckets":  buckets.Purge,
		})
		return nil
	})
}

// purgeLoop deletes expired idempotency records and refilled rate-limit
// buckets now and then. Both are already ignored (or equal to a missing
// row) when expired, so this only reclaims space.
func purgeLoop(ctx context.Context, every time.Duration, log *slog.Logger, purges map[string]func(context.Context) (int64, error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for what, purge := range purges {
				n, err := purge(ctx)
				if err != nil && ctx.Err() == nil {
					log.Warn("purge "+what, "err", err)
				} else if n > 0 {
					log.Info("purged "+what, "count", n)
				}
			}
		}
	}
}
