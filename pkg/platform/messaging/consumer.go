package messaging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"hookline.dev/pkg/contracts/events"
)

// Consumer defaults.
const (
	DefaultMaxDeliver    = 5
	DefaultAckWait       = 30 * time.Second
	DefaultMaxAckPending = 256
	DefaultWorkers       = 4
)

// DefaultBackoff is the redelivery delay after the 1st, 2nd, ... failed
// delivery; the last value repeats.
var DefaultBackoff = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second, 5 * time.Second}

// Headers set on a dead-lettered message, besides the original ones.
const (
	HeaderDLQError      = "Hookline-Dlq-Error"
	HeaderDLQReason     = "Hookline-Dlq-Reason" // permanent, max_deliver or unparsable
	HeaderDLQConsumer   = "Hookline-Dlq-Consumer"
	HeaderDLQSubject    = "Hookline-Dlq-Subject" // original subject, without namespace
	HeaderDLQStream     = "Hookline-Dlq-Stream"
	HeaderDLQSequence   = "Hookline-Dlq-Sequence"
	HeaderDLQDeliveries = "Hookline-Dlq-Deliveries"
)

// ConsumerConfig describes a durable pull consumer. Stream and Subjects are
// given without namespace; the bus adds it.
type ConsumerConfig struct {
	Durable  string
	Stream   string   // an events.Stream* name
	Subjects []string // filter subjects, e.g. "thumbnails.operation.>"
	// MaxDeliver bounds deliveries of one message (default 5); the last
	// failed one goes to the dead-letter subject.
	MaxDeliver int
	// Backoff is the delay before redelivery after the n-th failure
	// (default DefaultBackoff). It is applied with NakWithDelay, not as the
	// server-side BackOff: the server would use Backoff[0] as the ack
	// deadline of the first delivery and redeliver any handler slower
	// than 100 ms while it still runs.
	Backoff []time.Duration
	// AckWait is how long the server waits for an ack before redelivering
	// (default 30 s). A running handler keeps its message alive with
	// InProgress, so only a crashed consumer waits this long.
	AckWait time.Duration
	// MaxAckPending bounds the unacked messages of the consumer across all
	// replicas (default 256): it is the consumer's concurrency limit.
	MaxAckPending int
	// Workers is the number of handlers running at once in this process
	// (default 4). Messages are handled concurrently and out of order,
	// except as OrderKey says.
	Workers int
	// OrderKey, when set, keeps messages of equal keys in delivery order:
	// they go to one worker, which handles each only after the one before
	// it returned. Messages of other keys still run concurrently. A
	// message whose key is "" (or that does not parse) goes to any worker.
	// The order holds for the deliveries one process receives: a delivery
	// that fails and is retried, or one pulled by another replica, can be
	// overtaken.
	OrderKey func(events.Envelope) string
}

// positiveOr is v when it is positive, else def: a setting left at zero,
// or set below it, takes its default.
func positiveOr[T cmp.Ordered](v, def T) T {
	var zero T
	if v > zero {
		return v
	}
	return def
}

func (c ConsumerConfig) withDefaults() (ConsumerConfig, error) {
	if c.Durable == "" || strings.ContainsAny(c.Durable, ".*> ") {
		return c, fmt.Errorf("messaging: consumer: invalid durable name %q", c.Durable)
	}
	if c.Stream == "" {
		return c, fmt.Errorf("messaging: consumer %s: no stream", c.Durable)
	}
	if len(c.Subjects) == 0 {
		return c, fmt.Errorf("messaging: consumer %s: no filter subjects", c.Durable)
	}
	c.MaxDeliver = positiveOr(c.MaxDeliver, DefaultMaxDeliver)
	if len(c.Backoff) == 0 {
		c.Backoff = DefaultBackoff
	}
	c.AckWait = positiveOr(c.AckWait, DefaultAckWait)
	c.MaxAckPending = positiveOr(c.MaxAckPending, DefaultMaxAckPending)
	c.Workers = positiveOr(c.Workers, DefaultWorkers)
	return c, nil
}

// Handler processes one event. It returns nil once the effect is committed
// (the message is then acked), Permanent(err) or an events.ErrInvalid for
// an event that can never succeed, or another error to be retried. See the
// package doc for the inbox contract.
type Handler func(ctx context.Context, e events.Envelope) error

type permanentError struct{ err error }

func (e *permanentError) Error() string { return "permanent: " + e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as not worth retrying: the message goes to the
// dead-letter subject on this delivery. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err was marked with Permanent, or says its
// event is invalid (events.ErrInvalid, what service packages return).
func IsPermanent(err error) bool {
	var pe *permanentError
	return errors.As(err, &pe) || errors.Is(err, events.ErrInvalid)
}

// Consume creates or updates the durable consumer cfg and handles its
// messages with h until ctx ends, then waits for running handlers and
// returns nil. It returns an error only when the consumer cannot be set up
// (no stream, invalid config); later NATS trouble is logged and retried.
func (b *Bus) Consume(ctx context.Context, cfg ConsumerConfig, h Handler) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	filters := make([]string, len(cfg.Subjects))
	for i, s := range cfg.Subjects {
		filters[i] = b.Subject(s)
	}
	jcfg := jetstream.ConsumerConfig{
		Durable:        cfg.Durable,
		FilterSubjects: filters,
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        cfg.AckWait,
		MaxDeliver:     cfg.MaxDeliver,
		MaxAckPending:  cfg.MaxAckPending,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	}
	stream := b.StreamName(cfg.Stream)
	cons, err := b.JS.CreateOrUpdateConsumer(ctx, stream, jcfg)
	if err != nil {
		return fmt.Errorf("messaging: consumer %s on %s: %w", cfg.Durable, stream, err)
	}
	log := b.log().With("consumer", cfg.Durable, "stream", stream)
	go watchBacklog(ctx, cons, cfg.Durable)

	// Without an order key all workers share one queue; with one, each
	// worker has its own (buffered, so one slow key does not stall the
	// pump at once) and a key always maps to the same worker.
	queues := []chan jetstream.Msg{make(chan jetstream.Msg)}
	if cfg.OrderKey != nil {
		queues = make([]chan jetstream.Msg, cfg.Workers)
		for i := range queues {
			queues[i] = make(chan jetstream.Msg, orderedQueue)
		}
	}
	var wg sync.WaitGroup
	for i := range cfg.Workers {
		jobs := queues[i%len(queues)]
		wg.Go(func() {
			for m := range jobs {
				if ctx.Err() != nil {
					// Queued before the shutdown: hand it back now rather
					// than start it.
					_ = m.Nak()
					continue
				}
				b.handle(ctx, cfg, h, m)
			}
		})
	}
	defer func() {
		for _, q := range queues {
			close(q)
		}
		wg.Wait()
	}()
	route := router(cfg.OrderKey, queues)

	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		// A small client buffer: buffered messages' ack clocks already run.
		iter, err := cons.Messages(jetstream.PullMaxMessages(max(2*cfg.Workers, 8)))
		if err != nil {
			log.Error("consumer: start pulling", "err", err, "retry_in", wait)
		} else {
			started := time.Now()
			err = pump(ctx, iter, route)
			if ctx.Err() != nil {
				return nil
			}
			if time.Since(started) > time.Minute {
				wait = 100 * time.Millisecond
			}
			log.Warn("consumer: pull stopped, restarting", "err", err, "retry_in", wait)
		}
		if !sleepCtx(ctx, wait) {
			return nil
		}
		wait = min(wait*2, 5*time.Second)
		// The consumer may have been deleted (e.g. by an operator); recreate
		// it so the service heals instead of idling.
		if c, err := b.JS.CreateOrUpdateConsumer(ctx, stream, jcfg); err == nil {
			cons = c
		} else if ctx.Err() == nil {
			log.Error("consumer: recreate", "err", err)
		}
	}
	return nil
}

// orderedQueue is the buffer of each worker's queue when messages are
// routed by key.
const orderedQueue = 16

// router returns which queue a message goes to: the only one, or, with an
// order key, the one its key hashes to (round robin for messages without a
// key).
func router(key func(events.Envelope) string, queues []chan jetstream.Msg) func(jetstream.Msg) chan<- jetstream.Msg {
	if key == nil {
		return func(jetstream.Msg) chan<- jetstream.Msg { return queues[0] }
	}
	seed := maphash.MakeSeed()
	var next uint64
	return func(m jetstream.Msg) chan<- jetstream.Msg {
		var k string
		if env, err := events.Parse(m.Data()); err == nil {
			k = key(env)
		}
		if k == "" {
			next++
			return queues[next%uint64(len(queues))]
		}
		return queues[maphash.String(seed, k)%uint64(len(queues))]
	}
}

// pump hands messages to the workers until ctx ends or the iterator fails.
func pump(ctx context.Context, iter jetstream.MessagesContext, route func(jetstream.Msg) chan<- jetstream.Msg) error {
	stop := context.AfterFunc(ctx, iter.Stop)
	defer stop()
	defer iter.Stop()
	for {
		m, err := iter.Next()
		if err != nil {
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) && ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case route(m) <- m:
		case <-ctx.Done():
			// Not handled: let it come back at once rather than after AckWait.
			_ = m.Nak()
			return nil
		}
	}
}

// handle runs one delivery through h and settles it: ack, delayed nak or
// dead letter.
func (b *Bus) handle(ctx context.Context, cfg ConsumerConfig, h Handler, m jetstream.Msg) {
	log := b.log().With("consumer", cfg.Durable, "subject", m.Subject())
	meta, err := m.Metadata()
	if err != nil {
		// Not a JetStream message; nothing to settle.
		log.Error("consumer: message without metadata", "err", err)
		return
	}
	if meta.NumDelivered > 1 {
		redeliveries.With(attrConsumer, cfg.Durable).Add(1)
	}
	env, err := events.Parse(m.Data())
	if err != nil {
		b.deadLetter(ctx, cfg, m, meta, "unparsable", err)
		return
	}
	log = log.With("event_id", env.ID)

	hctx := extractTrace(ctx, m.Headers(), env.Traceparent)
	hctx, span := tracer().Start(hctx, "consume "+b.unSubject(m.Subject()),
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", m.Subject()),
			attribute.String("messaging.consumer.group.name", cfg.Durable),
			attribute.String("messaging.message.id", env.ID),
			attribute.Int64("messaging.nats.delivery", int64(meta.NumDelivered)), //nolint:gosec // G115: the delivery count is bounded by MaxDeliver, a small int
		))
	defer span.End()

	started := time.Now()
	herr := runWithHeartbeat(hctx, cfg.AckWait, m, h, env)
	elapsed := time.Since(started)
	recordProcessed(ctx, cfg.Durable, b.unSubject(m.Subject()), elapsed, herr != nil)
	// One line per delivery, in the handler's span (trace_id, span_id):
	// the consumer's counterpart of an access log line.
	log.InfoContext(hctx, "consumer: handled", "org_id", env.OrgID, "delivery", meta.NumDelivered,
		"duration_ms", float64(elapsed.Microseconds())/1000, "ok", herr == nil)
	if herr == nil {
		// Wait for the server to confirm the ack: an ack lost on the way is
		// a redelivery, harmless (inbox) but worth avoiding.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := m.DoubleAck(actx); err != nil {
			log.WarnContext(hctx, "consumer: ack not confirmed; the message may be redelivered", "err", err)
		}
		return
	}
	span.RecordError(herr)
	span.SetStatus(codes.Error, herr.Error())

	last := int(meta.NumDelivered) >= cfg.MaxDeliver //nolint:gosec // G115: the delivery count is bounded by MaxDeliver, a small int
	switch {
	case ctx.Err() != nil && !IsPermanent(herr) && !last:
		// Shutting down: the failure is ours, not the message's. Hand it to
		// another replica now (this delivery still counts towards
		// MaxDeliver). On the last delivery a nak would let the server drop
		// it, so that one is dead-lettered below instead.
		_ = m.Nak()
	case IsPermanent(herr):
		b.deadLetter(hctx, cfg, m, meta, "permanent", herr)
	case last:
		b.deadLetter(hctx, cfg, m, meta, "max_deliver", herr)
	default:
		i := min(int(meta.NumDelivered)-1, len(cfg.Backoff)-1) //nolint:gosec // G115: the delivery count is bounded by MaxDeliver, a small int
		delay := cfg.Backoff[max(i, 0)]
		log.WarnContext(hctx, "consumer: handler failed, will retry", "err", herr, "delivery", meta.NumDelivered, "retry_in", delay)
		if err := m.NakWithDelay(delay); err != nil {
			log.ErrorContext(hctx, "consumer: nak", "err", err)
		}
	}
}

// runWithHeartbeat runs h while telling the server, every third of AckWait,
// that the message is still being worked on: long handlers (renders) must
// not be redelivered to a second worker while the first still runs.
func runWithHeartbeat(ctx context.Context, ackWait time.Duration, m jetstream.Msg, h Handler, env events.Envelope) (err error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(max(ackWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	})
	defer func() {
		close(done)
		wg.Wait()
	}()
	defer func() {
		// A panicking handler must not take the consumer (and the service)
		// down; it is a failed delivery like any other.
		if p := recover(); p != nil {
			err = fmt.Errorf("messaging: handler panic: %v", p)
		}
	}()
	return h(ctx, env)
}

// deadLetter publishes the original message to
// <ns>.dlq.<durable>.<original subject> with headers naming the failure,
// then terminates it. If the dead letter cannot be stored the message is
// nak'ed instead of lost (unless this was its last delivery, when the server
// drops it and only the log remains; Postgres, not the stream, is the truth).
func (b *Bus) deadLetter(ctx context.Context, cfg ConsumerConfig, m jetstream.Msg, meta *jetstream.MsgMetadata, reason string, cause error) {
	orig := b.unSubject(m.Subject())
	log := b.log().With("consumer", cfg.Durable, "subject", orig, "stream_seq", meta.Sequence.Stream)
	h := nats.Header{}
	for k, v := range m.Headers() {
		h[k] = append([]string(nil), v...)
	}
	// The dead letter's own id: per consumer and message, so two consumers
	// dead-lettering one event both keep theirs, while a retried dead letter
	// of the same delivery is deduplicated.
	h.Set(jetstream.MsgIDHeader, "dlq:"+cfg.Durable+":"+meta.Stream+":"+strconv.FormatUint(meta.Sequence.Stream, 10))
	h.Set(HeaderDLQError, headerValue(cause.Error()))
	h.Set(HeaderDLQReason, reason)
	h.Set(HeaderDLQConsumer, cfg.Durable)
	h.Set(HeaderDLQSubject, orig)
	h.Set(HeaderDLQStream, meta.Stream)
	h.Set(HeaderDLQSequence, strconv.FormatUint(meta.Sequence.Stream, 10))
	h.Set(HeaderDLQDeliveries, strconv.FormatUint(meta.NumDelivered, 10))
	msg := &nats.Msg{
		Subject: b.Subject(events.DeadLetterPrefix + cfg.Durable + "." + orig),
		Data:    m.Data(),
		Header:  h,
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var err error
	for attempt := range 3 {
		if _, err = b.JS.PublishMsg(pctx, msg); err == nil {
			break
		}
		if !sleepCtx(pctx, time.Duration(attempt+1)*200*time.Millisecond) {
			break
		}
	}
	if err != nil {
		log.ErrorContext(ctx, "consumer: dead letter failed; nak instead", "err", err, "cause", cause)
		_ = m.NakWithDelay(cfg.Backoff[len(cfg.Backoff)-1])
		return
	}
	deadLetters.With(attrConsumer, cfg.Durable).With(attrReason, reason).Add(1)
	log.ErrorContext(ctx, "consumer: message dead-lettered", "reason", reason, "deliveries", meta.NumDelivered, "err", cause)
	if err := m.TermWithReason(reason); err != nil {
		log.WarnContext(ctx, "consumer: term", "err", err)
	}
}

// headerValue makes s safe as a NATS header value: one line, bounded.
func headerValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
	if len(s) > 1024 {
		s = strings.ToValidUTF8(s[:1024], "")
	}
	return s
}

// watchBacklog reads the consumer's backlog from the server every
// backlogEvery until ctx ends, for the backlog gauge.
func watchBacklog(ctx context.Context, cons jetstream.Consumer, durable string) {
	defer forgetBacklog(durable)
	t := time.NewTicker(backlogEvery)
	defer t.Stop()
	for {
		if info, err := cons.Info(ctx); err == nil {
			setBacklog(durable, int64(info.NumPending), int64(info.NumAckPending)) //nolint:gosec // G115: a message count
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
