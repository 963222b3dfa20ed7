// Package platform starts what every Hookline service stands on, in the
// order ARCHITECTURE.md §9 fixes: logging and telemetry, the Postgres pool
// with the messaging and service migrations, NATS with the event streams;
// and it runs the HTTP server, the outbox relay, the debug server and the
// service's own workers together until the context ends, then shuts them
// down in order (HTTP first, then NATS drained).
package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"golang.org/x/sync/errgroup"

	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/debugsrv"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/telemetry"
)

// Options say which service is starting and where its state lives (the
// schema, pool and NATS namespace of Common).
type Options struct {
	Name   string
	Common config.Common
	// Migrations are the service's own, applied after the messaging tables.
	Migrations fs.FS
	// SharedMigrations are tables of pkg packages the service uses beyond
	// messaging (credits.Migrations), applied before Migrations.
	SharedMigrations []fs.FS
	// NativeMemory is what the service holds outside the Go runtime at
	// rest (cgo libraries and their models, the binary): the Go runtime's
	// soft limit is then the container's limit less it, instead of 90 %.
	NativeMemory int64
}

// Platform is a service's running dependencies.
type Platform struct {
	Log  *slog.Logger
	Pool *pgxpool.Pool
	NC   *nats.Conn
	Bus  *messaging.Bus
	// Relay publishes the service's outbox; Serve runs it. Writers that
	// queue outbox rows through it wake it directly (Relay.QueueOutbox).
	Relay *messaging.Relay

	opt      Options
	closers  []func()
	shutdown func(context.Context) error
}

// Open starts logging, telemetry, Postgres (migrated) and NATS (with the
// streams). On error everything already opened is closed again.
func Open(ctx context.Context, getenv func(string) string, stdout io.Writer, opt Options) (p *Platform, err error) {
	streams, err := messaging.ParseStreamConfig(opt.Common.Streams)
	if err != nil {
		return nil, fmt.Errorf("config: HOOKLINE_STREAMS: %w", err)
	}
	opened := &Platform{opt: opt, Log: NewLogger(stdout, opt.Common.LogLevel).With("service", opt.Name)}
	p = opened
	defer func() {
		// The error returns set p to nil: what was opened is closed
		// through its own name.
		if err != nil {
			opened.Close()
		}
	}()
	container := ContainerMemory(opt.Common.MemoryLimit)
	if limit, ok := memoryLimit(container, opt.NativeMemory, getenv("GOMEMLIMIT")); ok {
		debug.SetMemoryLimit(limit)
		p.Log.Info("memory limit", "container_bytes", container, "go_bytes", limit)
	}
	if p.shutdown, err = telemetry.Setup(ctx, opt.Name, getenv); err != nil {
		return nil, err
	}
	if p.Pool, err = pgkit.Connect(ctx, opt.Common.DatabaseURL, opt.Common.Schema, pgkit.Options{
		MaxConns: opt.Common.DBMaxConns, MaxConnIdleTime: opt.Common.DBMaxConnIdle,
	}); err != nil {
		return nil, err
	}
	p.closers = append(p.closers, p.Pool.Close)
	if err = pgkit.Migrate(ctx, p.Pool, messaging.Migrations); err != nil {
		return nil, err
	}
	for _, m := range opt.SharedMigrations {
		if err = pgkit.Migrate(ctx, p.Pool, m); err != nil {
			return nil, err
		}
	}
	if opt.Migrations != nil {
		if err = pgkit.Migrate(ctx, p.Pool, opt.Migrations); err != nil {
			return nil, err
		}
	}
	if p.NC, err = messaging.Connect(ctx, opt.Common.NATSURL, opt.Name,
		messaging.WithUser(opt.Common.NATSUser, opt.Common.NATSPassword)...); err != nil {
		return nil, err
	}
	p.closers = append(p.closers, p.NC.Close)
	if p.Bus, err = messaging.NewBus(p.NC, opt.Common.NATSNamespace); err != nil {
		return nil, err
	}
	p.Bus.Log = p.Log
	p.Bus.Streams = streams
	if err = p.Bus.EnsureStreams(ctx); err != nil {
		return nil, err
	}
	p.Relay = messaging.NewRelay(p.Pool, p.Bus, p.Log)
	return p, nil
}

// memoryLimit is the Go runtime's soft memory limit for a container limit
// of container bytes: what is left of it once native, the memory outside
// the runtime, is set aside, or, when the service does not say, 90 %,
// which leaves room for what the runtime does not count (cgo, the binary)
// before the kernel's OOM killer acts. It reports false when GOMEMLIMIT is
// set, which the runtime has already applied and which stays the
// operator's word, or when no container limit is known.
func memoryLimit(container, native int64, gomemlimit string) (int64, bool) {
	switch {
	case gomemlimit != "" || container <= 0:
		return 0, false
	case native > 0 && native < container:
		return container - native, true
	}
	return container / 10 * 9, true
}

// Close releases the dependencies, newest first, and flushes telemetry.
func (p *Platform) Close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
	p.closers = nil
	if p.shutdown != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.shutdown(ctx); err != nil {
			p.Log.Warn("telemetry shutdown", "err", err)
		}
		p.shutdown = nil
	}
}

// Ready reports whether Postgres and JetStream answer (for /readyz).
func (p *Platform) Ready(ctx context.Context) error {
	if err := p.Pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return p.Bus.Ping(ctx)
}

// Worker is a long-running part of a service; it returns when ctx ends.
type Worker func(ctx context.Context) error

// Server tunes the HTTP server; zero values take the defaults.
type Server struct {
	Addr    string
	Handler http.Handler
	// WriteTimeout must exceed the slowest response (default 2 minutes).
	WriteTimeout time.Duration
}

// Serve runs the HTTP server, the outbox relay, the debug server and the
// workers until ctx ends or one of them fails. It prints "<name> listening
// on <addr>" to stdout once the listener is open. On the way out the HTTP
// server finishes in-flight requests within ShutdownTimeout, then NATS is
// drained so buffered messages are not lost.
func (p *Platform) Serve(ctx context.Context, stdout io.Writer, s Server, workers ...Worker) error {
	if s.WriteTimeout <= 0 {
		s.WriteTimeout = 2 * time.Minute
	}
	srv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      s.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(p.Log.Handler(), slog.LevelWarn),
	}
	ln, err := Listen(ctx, s.Addr)
	if err != nil {
		return fmt.Errorf("%s: listen %s: %w", p.opt.Name, s.Addr, err)
	}
	var debugLn net.Listener
	if a := p.opt.Common.DebugAddr; a != "" {
		if debugLn, err = Listen(ctx, a); err != nil {
			_ = ln.Close()
			return fmt.Errorf("%s: debug listen %s: %w", p.opt.Name, a, err)
		}
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
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opt.Common.ShutdownTimeout)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	g.Go(func() error { return p.Relay.Run(gctx) })
	g.Go(func() error { return p.pruneInbox(gctx) })
	g.Go(func() error { return debugsrv.Run(gctx, debugLn) })
	for _, w := range workers {
		g.Go(func() error { return w(gctx) })
	}
	_, _ = fmt.Fprintf(stdout, "%s listening on %s\n", p.opt.Name, ln.Addr())
	p.Log.Info("started", "addr", ln.Addr().String(), "schema", p.opt.Common.Schema, "namespace", p.opt.Common.NATSNamespace)

	err = g.Wait()
	if derr := drain(p.NC, p.opt.Common.ShutdownTimeout); derr != nil {
		p.Log.Warn("nats drain", "err", derr)
	}
	p.Log.Info("stopped")
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// pruneInbox keeps the inbox from growing forever: every service's consumers
// add a row per event, and rows older than InboxRetention can no longer
// stop a duplicate.
func (p *Platform) pruneInbox(ctx context.Context) error {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		n, err := messaging.PruneInbox(ctx, p.Pool, time.Now().Add(-messaging.InboxRetention))
		switch {
		case err != nil && ctx.Err() == nil:
			p.Log.Warn("prune inbox", "err", err)
		case n > 0:
			p.Log.Info("pruned inbox", "rows", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// drain flushes NATS within timeout; Drain alone may wait indefinitely.
func drain(nc *nats.Conn, timeout time.Duration) error {
	if nc.IsClosed() {
		return nil
	}
	if err := nc.Drain(); err != nil {
		return err
	}
	for deadline := time.Now().Add(timeout); !nc.IsClosed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			nc.Close()
			return errors.New("nats drain timed out")
		}
	}
	return nil
}

// NewLogger returns the JSON logger services write to stdout. A line
// logged with a context inside a request or message handler (InfoContext
// and friends) carries that span's trace_id and span_id
// (telemetry.LogHandler).
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(telemetry.LogHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})))
}
