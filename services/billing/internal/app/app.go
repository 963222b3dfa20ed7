// Package app wires the billing service: configuration, dependencies in
// order, the HTTP server, the reserve RPC, the event consumers, the outbox
// relay and the expiry loop, all stopped together.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"hookline.dev/pkg/config"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/telemetry"
	"hookline.dev/services/billing/internal/httpapi"
	"hookline.dev/services/billing/internal/natsapi"
	"hookline.dev/services/billing/internal/postgres"
	"hookline.dev/services/billing/migrations"
)

// Config is billing's configuration.
type Config struct {
	config.Common
	Addr              string        `env:"HOOKLINE_HTTP_ADDR" default:":8081"`
	Schema            string        `env:"HOOKLINE_DB_SCHEMA" default:"billing"`
	DBMaxConns        int32         `env:"HOOKLINE_DB_MAX_CONNS" default:"32"`
	LedgerWriters     int           `env:"HOOKLINE_LEDGER_WRITERS" default:"1"`
	NATSNamespace     string        `env:"HOOKLINE_NATS_NAMESPACE"`
	TiersJSON         string        `env:"HOOKLINE_TIERS_JSON" default:"{\"free\":{\"monthlyCredits\":10,\"paidOpsPerDay\":50,\"concurrentRenders\":1},\"creator\":{\"monthlyCredits\":100,\"paidOpsPerDay\":500,\"concurrentRenders\":2},\"pro\":{\"monthlyCredits\":500,\"paidOpsPerDay\":5000,\"concurrentRenders\":5},\"agency\":{\"monthlyCredits\":2000}}"`
	BillingCycle      string        `env:"HOOKLINE_BILLING_CYCLE" default:"monthly"`
	ReservationTTL    time.Duration `env:"HOOKLINE_RESERVATION_TTL" default:"10m"`
	RenderTTL         time.Duration `env:"HOOKLINE_RENDER_RESERVATION_TTL" default:"6h"`
	ExpiryInterval    time.Duration `env:"HOOKLINE_EXPIRY_INTERVAL" default:"15s"`
	SettlementStreams []string      `env:"HOOKLINE_SETTLEMENT_STREAMS" default:"THUMBNAILS,CLIPS"`
	RPCQueue          string        `env:"HOOKLINE_RPC_QUEUE" default:"billing"`

	tiers map[string]natsapi.Tier
}

// Validate checks the configuration and parses the tier table.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate()}
	if err := json.Unmarshal([]byte(c.TiersJSON), &c.tiers); err != nil {
		errs = append(errs, fmt.Errorf("HOOKLINE_TIERS_JSON must be a non-empty object of tiers: %w", err))
	} else if len(c.tiers) == 0 {
		errs = append(errs, errors.New("HOOKLINE_TIERS_JSON must be a non-empty object of tiers"))
	}
	for name, t := range c.tiers {
		if t.MonthlyCredits < 0 || t.PaidOpsPerDay < 0 || t.ConcurrentRenders < 0 {
			errs = append(errs, fmt.Errorf("tier %s: values must not be negative", name))
		}
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
		Name: "billing", Common: cfg.Common, Schema: cfg.Schema, MaxConns: cfg.DBMaxConns,
		Namespace: cfg.NATSNamespace, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	store := postgres.New(p.Pool, cfg.LedgerWriters, p.Relay)
	defer store.Close()
	srv := &natsapi.Server{Store: store, Log: p.Log, Policy: natsapi.Policy{
		Tiers: cfg.tiers, BillingCycle: cfg.BillingCycle, TTL: cfg.ReservationTTL, RenderTTL: cfg.RenderTTL,
	}}
	stopRPC, err := p.Bus.Serve(ctx, events.BillingReserveRPC, cfg.RPCQueue, srv.Reserve)
	if err != nil {
		return err
	}
	workers := []platform.Worker{
		func(ctx context.Context) error { <-ctx.Done(); return stopRPC() },
		func(ctx context.Context) error { return expireLoop(ctx, store, cfg.ExpiryInterval, p.Log) },
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: natsapi.GatewayConsumer, Stream: "GATEWAY",
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
			}, srv.Settlement)
		})
	}
	handler := telemetry.HTTPMiddleware("billing")(httpapi.Handler(store, []byte(cfg.PrincipalSecret), p.Ready, p.Log))
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
}

// Rebuild replays every account stream into the projections (the
// `billing rebuild` command). It needs only the database settings.
func Rebuild(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg rebuildConfig
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	pool, err := pgkit.Connect(ctx, cfg.DatabaseURL, cfg.Schema, pgkit.Options{})
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.New(pool, 0, nil) // rebuild writes no commands
	defer store.Close()
	n, err := store.Rebuild(ctx)
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "rebuilt projections of %d accounts\n", n)
	return nil
}
