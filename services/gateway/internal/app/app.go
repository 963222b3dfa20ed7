// Package app wires the gateway together: configuration, telemetry,
// Postgres, NATS, the domain, the HTTP server and the outbox relay, with an
// orderly shutdown. Tests start the real service through Run.
package app

import (
	"context"
	"io"
	"log/slog"
	"time"

	"hookline.dev/pkg/config"
	"hookline.dev/pkg/platform"
	"hookline.dev/services/gateway/internal/httpapi"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/postgres"
	"hookline.dev/services/gateway/internal/ratelimit"
	"hookline.dev/services/gateway/migrations"
)

// ServiceName names the gateway in telemetry, NATS and logs.
const ServiceName = "gateway"

// Run starts the gateway and blocks until ctx ends or a component fails.
// It writes logs to stdout, and the line "gateway listening on <addr>" once
// the server accepts connections.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: ServiceName, Common: cfg.Common, Schema: cfg.Schema, MaxConns: cfg.DBMaxConns,
		Namespace: cfg.NATSNamespace, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	orgs := org.NewService(postgres.NewOrgs(p.Pool), org.Options{Tiers: cfg.Tiers, CacheTTL: cfg.KeyCacheTTL})
	guard := idempotency.NewGuard(postgres.NewIdempotency(p.Pool), nil, idempotency.DefaultTTL,
		// The claim must outlive the longest proxied request, or a slow
		// request could be claimed again and run twice.
		cfg.UpstreamTimeout+time.Minute)
	handler := httpapi.NewHandler(httpapi.Config{
		Orgs:              orgs,
		Limiter:           ratelimit.New(nil),
		Limits:            cfg.limits,
		Idempotency:       guard,
		Upstreams:         cfg.upstreams,
		Transport:         httpapi.NewTransport(cfg.UpstreamTimeout),
		PrincipalSecret:   []byte(cfg.PrincipalSecret),
		AdminToken:        cfg.AdminToken,
		MaxBodyBytes:      cfg.MaxBodyBytes,
		IdempotentTimeout: cfg.UpstreamTimeout + 30*time.Second,
		Ready:             p.Ready,
		Log:               p.Log,
	}, cfg.Tiers[0])

	return p.Serve(ctx, stdout, platform.Server{
		Addr: cfg.Addr, Handler: handler,
		// Must exceed the upstream timeout so a slow service's answer can
		// still be written.
		WriteTimeout: cfg.UpstreamTimeout + time.Minute,
	}, func(ctx context.Context) error {
		purgeLoop(ctx, guard, cfg.IdempotencyPurgeInterval, p.Log)
		return nil
	})
}

// purgeLoop deletes expired idempotency records now and then. Expired
// records are already ignored by the claim, so this only reclaims space.
func purgeLoop(ctx context.Context, guard *idempotency.Guard, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := guard.Purge(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("purge idempotency records", "err", err)
			} else if n > 0 {
				log.Info("purged idempotency records", "count", n)
			}
		}
	}
}
