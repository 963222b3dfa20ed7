// Package app wires the gateway together: configuration, telemetry,
// Postgres, NATS, the domain, the HTTP server and the outbox relay, with an
// orderly shutdown. Tests start the real service through Run.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"hookline.dev/pkg/config"
	"hookline.dev/pkg/debugsrv"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/telemetry"
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
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: logLevel(cfg.LogLevel)})).
		With("service", ServiceName)

	shutdownTelemetry, err := telemetry.Setup(ctx, ServiceName, getenv)
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := shutdownTelemetry(ctx); err != nil {
			log.Warn("telemetry shutdown", "err", err)
		}
	}()

	pool, err := pgkit.Connect(ctx, cfg.DatabaseURL, cfg.Schema, pgkit.Options{MaxConns: cfg.DBMaxConns})
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pgkit.Migrate(ctx, pool, messaging.Migrations); err != nil {
		return err
	}
	if err := pgkit.Migrate(ctx, pool, migrations.FS); err != nil {
		return err
	}

	nc, err := messaging.Connect(ctx, cfg.NATSURL, ServiceName)
	if err != nil {
		return err
	}
	defer nc.Close()
	bus, err := messaging.NewBus(nc, cfg.NATSNamespace)
	if err != nil {
		return err
	}
	bus.Log = log
	if err := bus.EnsureStreams(ctx); err != nil {
		return err
	}

	orgs := org.NewService(postgres.NewOrgs(pool), org.Options{Tiers: cfg.Tiers, CacheTTL: cfg.KeyCacheTTL})
	guard := idempotency.NewGuard(postgres.NewIdempotency(pool), nil, idempotency.DefaultTTL,
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
		Ready: func(ctx context.Context) error {
			if err := pool.Ping(ctx); err != nil {
				return fmt.Errorf("postgres: %w", err)
			}
			return bus.Ping(ctx)
		},
		Log: log,
	}, cfg.Tiers[0])

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		// Must exceed the upstream timeout so a slow service's answer can
		// still be written.
		WriteTimeout: cfg.UpstreamTimeout + time.Minute,
		IdleTimeout:  2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http server: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return fmt.Errorf("http shutdown: %w", err)
		}
		return nil
	})
	g.Go(func() error { return messaging.NewRelay(pool, bus, log).Run(gctx) })
	g.Go(func() error { return debugsrv.Run(gctx, cfg.DebugAddr) })
	g.Go(func() error { purgeLoop(gctx, guard, cfg.IdempotencyPurgeInterval, log); return nil })

	fmt.Fprintf(stdout, "gateway listening on %s\n", ln.Addr())
	log.Info("started", "addr", ln.Addr().String(), "schema", cfg.Schema, "namespace", cfg.NATSNamespace)

	err = g.Wait()
	// In-flight requests are done (Shutdown waited); flush what NATS still
	// buffers before the deferred closes.
	if derr := drain(nc, cfg.ShutdownTimeout); derr != nil {
		log.Warn("nats drain", "err", derr)
	}
	log.Info("stopped")
	return err
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

// natsConn is the part of *nats.Conn drain needs.
type natsConn interface {
	Drain() error
	IsClosed() bool
}

// drain flushes and closes the connection, waiting at most timeout.
func drain(nc natsConn, timeout time.Duration) error {
	if err := nc.Drain(); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for !nc.IsClosed() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

func logLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return slog.LevelInfo
	}
	return l
}
