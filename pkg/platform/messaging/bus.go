package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/platform/natsauth"
)

// connectCap bounds how long Connect keeps retrying the first connection
// when ctx has no deadline, so a wrong URL fails a start instead of hanging.
const connectCap = 30 * time.Second

// Connect dials NATS with settings fit for a long-running service: it
// reconnects forever (a NATS restart must not kill a service), names the
// connection for server-side monitoring, and retries the first dial until ctx
// ends (at most 30 s without a deadline), since services and NATS start
// together.
// Options in extra come last and win (WithUser for a service's own user).
func Connect(ctx context.Context, url, name string, extra ...nats.Option) (*nats.Conn, error) {
	log := slog.Default().With("component", "nats", "name", name)
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.Timeout(2 * time.Second),
		nats.PingInterval(20 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("nats reconnected", "url", c.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Error("nats async error", "subject", subject, "err", err)
		}),
	}
	opts = append(opts, extra...)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, connectCap)
		defer cancel()
	}
	wait := 100 * time.Millisecond
	for {
		nc, err := nats.Connect(url, opts...)
		if err == nil {
			return nc, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("messaging: connect nats %s: %w (gave up: %w)", url, err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, 2*time.Second)
	}
}

// WithUser authenticates as a service's own NATS user and moves its reply
// subjects under natsauth.InboxPrefix(user), the only inbox its
// permissions let it read. An empty user means no credentials.
func WithUser(user, password string) []nats.Option {
	if user == "" {
		return nil
	}
	return []nats.Option{nats.UserInfo(user, password), nats.CustomInboxPrefix(natsauth.InboxPrefix(user))}
}

// namespacePattern keeps a namespace to one subject token that is also valid
// in a stream name: no dots, wildcards or spaces.
var namespacePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Bus is a NATS connection, its JetStream context and an optional namespace.
// Its methods are safe for concurrent use.
type Bus struct {
	NC        *nats.Conn
	JS        jetstream.JetStream
	Namespace string
	// Log receives the errors of background work (consumers, relay
	// publishes); slog.Default() unless replaced before use.
	Log *slog.Logger
	// Streams are the stream settings configuration declares
	// (HOOKLINE_STREAMS), applied by EnsureStreams.
	Streams StreamConfig
}

// NewBus wraps nc. An empty namespace is production; tests pass
// testkit.Namespace(t).
func NewBus(nc *nats.Conn, namespace string) (*Bus, error) {
	if nc == nil {
		return nil, errors.New("messaging: nil nats connection")
	}
	if namespace != "" && !namespacePattern.MatchString(namespace) {
		return nil, fmt.Errorf("messaging: invalid namespace %q (letters, digits, '-' and '_' only)", namespace)
	}
	js, err := jetstream.New(nc,
		// A publish whose ack never comes (server restart mid-flight) must
		// fail rather than hold a relay batch forever.
		jetstream.WithPublishAsyncTimeout(10*time.Second),
		jetstream.WithPublishAsyncMaxPending(4096),
	)
	if err != nil {
		return nil, fmt.Errorf("messaging: jetstream: %w", err)
	}
	return &Bus{NC: nc, JS: js, Namespace: namespace, Log: slog.Default()}, nil
}

// Subject returns s in the bus's namespace.
func (b *Bus) Subject(s string) string {
	if b.Namespace == "" {
		return s
	}
	return b.Namespace + "." + s
}

// StreamName returns the stream name in the bus's namespace.
func (b *Bus) StreamName(name string) string {
	if b.Namespace == "" {
		return name
	}
	return strings.ToUpper(b.Namespace) + "_" + name
}

// unSubject strips the namespace from a received subject.
func (b *Bus) unSubject(s string) string {
	if b.Namespace == "" {
		return s
	}
	return strings.TrimPrefix(s, b.Namespace+".")
}

func (b *Bus) log() *slog.Logger {
	if b.Log != nil {
		return b.Log
	}
	return slog.Default()
}

// Ping reports whether the connection is up and JetStream answers; it backs
// /readyz, so a service that cannot publish or consume stops taking traffic.
func (b *Bus) Ping(ctx context.Context) error {
	if st := b.NC.Status(); st != nats.CONNECTED {
		return fmt.Errorf("messaging: nats connection %s", st)
	}
	if _, err := b.JS.AccountInfo(ctx); err != nil {
		return fmt.Errorf("messaging: jetstream account info: %w", err)
	}
	return nil
}
