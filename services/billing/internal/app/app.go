// Package app wires the billing service: configuration, dependencies in
// order, the HTTP server, the reserve RPC, the event consumers, the outbox
// relay and the expiry loop, all stopped together.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/billing/internal/httpapi"
	"hookline.dev/services/billing/internal/natsapi"
	"hookline.dev/services/billing/internal/postgres"
	"hookline.dev/services/billing/migrations"
)

// Config is billing's configuration.
type Config struct {
	config.Common `default:"HOOKLINE_HTTP_ADDR=:8081,HOOKLINE_DB_SCHEMA=billing"`
	LedgerWriters int `env:"HOOKLINE_LEDGER_WRITERS" default:"1"`
	// Tiers is the tier table shared with the gateway (pkg/contracts/tiers): each
	// tier's subscription grant, billing cycle and quotas.
	Tiers             tiers.Source
	ReservationTTL    time.Duration `env:"HOOKLINE_RESERVATION_TTL" default:"10m"`
	RenderTTL         time.Duration `env:"HOOKLINE_RENDER_RESERVATION_TTL" default:"6h"`
	ExpiryInterval    time.Duration `env:"HOOKLINE_EXPIRY_INTERVAL" default:"15s"`
	SettlementStreams []string      `env:"HOOKLINE_SETTLEMENT_STREAMS" default:"THUMBNAILS,CLIPS"`
	RPCQueue          string        `env:"HOOKLINE_RPC_QUEUE" default:"billing"`

	tiers *tiers.Table
}

// Validate checks the configuration and parses the tier table.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate()}
	var err error
	if c.tiers, err = c.Tiers.Load(); err != nil {
		errs = append(errs, err)
	}
	if c.LedgerWriters < 1 || c.LedgerWriters > 64 {
		errs = append(errs, errors.New("HOOKLINE_LEDGER_WRITERS must be between 1 and 64"))
	}
	if c.ReservationTTL <= 0 || c.RenderTTL <= 0 || c.ExpiryInterval <= 0 {
		errs = append(errs, errors.New("reservation TTLs and the expiry interval must be positive"))
	}
	return errors.Join(errs...)
}

// Run starts billing and blocks until ctx is cancelled or a part fails.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: "billing", Common: cfg.Common, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	store := postgres.New(p.Pool, cfg.LedgerWriters, p.Relay)
	defer store.Close()
	srv := &natsapi.Server{Store: store, Log: p.Log, Policy: natsapi.Policy{
		Tiers: cfg.tiers, TTL: cfg.ReservationTTL, RenderTTL: cfg.RenderTTL,
	}}
	stopRPC, err := p.Bus.Serve(ctx, events.BillingReserveRPC, cfg.RPCQueue, countReserves(srv.Reserve))
	if err != nil {
		return err
	}
	stopAdjust, err := p.Bus.Serve(ctx, events.BillingAdjustRPC, cfg.RPCQueue, srv.Adjust)
	if err != nil {
		return errors.Join(err, stopRPC())
	}
	workers := []platform.Worker{
		func(ctx context.Context) error { <-ctx.Done(); return errors.Join(stopRPC(), stopAdjust()) },
		func(ctx context.Context) error { return expireLoop(ctx, store, cfg.ExpiryInterval, p.Log) },
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: natsapi.GatewayConsumer, Stream: events.StreamGateway,
				Subjects: []string{events.GatewayOrganizationCreated, events.GatewayCreditsGranted},
			}, srv.Gateway)
		},
	}
	for _, stream := range cfg.SettlementStreams {
		prefix := strings.ToLower(stream)
		workers = append(workers, func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: natsapi.SettlementConsumer + "-" + prefix, Stream: stream,
				Subjects: []string{prefix + ".*.completed.v1", prefix + ".*.failed.v1"},
				// Settlements wait for their group's transaction; many in
				// flight make the groups large.
				Workers: 128, MaxAckPending: 2048,
				OrderKey: natsapi.SettlementOrder,
			}, srv.Settlement)
		})
	}
	handler := telemetry.HTTPMiddleware("billing", p.Log)(httpapi.Handler(store, cfg.tiers, []byte(cfg.PrincipalSecret), p.Ready, p.Log))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler}, workers...)
}

func expireLoop(ctx context.Context, store *postgres.Store, every time.Duration, log *slog.Logger) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			n, err := store.ExpireDue(ctx, 500)
			if err != nil && ctx.Err() == nil {
				log.Error("expiring reservations", "err", err)
			} else if n > 0 {
				log.Info("expired reservations", "count", n)
			}
		}
	}
}

// rebuildConfig is what `billing rebuild` needs: only the database.
type rebuildConfig struct {
	config.Database
	Schema string `env:"HOOKLINE_DB_SCHEMA" default:"billing"`
	// Batch is about how many events one rebuild transaction replays while
	// it holds the locks of its accounts.
	Batch int `env:"HOOKLINE_REBUILD_BATCH" default:"5000"`
}

// Validate checks the batch size.
func (c rebuildConfig) Validate() error {
	if c.Batch < 1 || c.Batch > 1_000_000 {
		return errors.New("HOOKLINE_REBUILD_BATCH must be between 1 and 1000000")
	}
	return nil
}

// Rebuild replays every account stream into the projections (the
// `billing rebuild` command), one batch of accounts per transaction, while
// billing may keep running. It needs only the database settings.
func Rebuild(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg rebuildConfig
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	pool, err := pgkit.Connect(ctx, cfg.DatabaseURL, cfg.Schema, pgkit.Options{MaxConns: 2})
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.New(pool, 0, nil) // rebuild writes no commands
	defer store.Close()
	n, err := store.Rebuild(ctx, cfg.Batch)
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "rebuilt projections of %d accounts\n", n)
	return nil
}
