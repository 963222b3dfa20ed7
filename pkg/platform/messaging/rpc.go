package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ErrUnavailable means no answer came: no responder, timeout, closed
// connection, or the responder's handler failed. Callers answer 503
// `unavailable`; for billing's reserve it also means nothing was charged
// that will not expire on its own.
var ErrUnavailable = errors.New("messaging: service unavailable")

// DefaultRequestTimeout applies to a Request whose ctx has no deadline.
const DefaultRequestTimeout = 2 * time.Second

// Request-reply headers.
const (
	// HeaderError carries a handler's error instead of a reply body, so the
	// caller fails at once instead of waiting for its timeout.
	HeaderError = "Hookline-Error"
	// HeaderTimeout is the caller's remaining time in milliseconds; the
	// handler's ctx gets the same deadline, so work nobody waits for stops.
	HeaderTimeout = "Hookline-Timeout"
)

// RemoteError is a responder's handler failure. It matches ErrUnavailable
// with errors.Is.
type RemoteError struct {
	Subject string
	Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("messaging: %s: responder failed: %s", e.Subject, e.Message)
}

// Unwrap makes a remote failure an unavailability for the caller.
func (e *RemoteError) Unwrap() error { return ErrUnavailable }

// serveConcurrency is how many requests one Serve handles at once. NATS
// calls subscription handlers one at a time, so without workers one slow
// database round trip would queue every other request.
const serveConcurrency = 32

// serveDefaultTimeout bounds a request whose caller sent no deadline.
const serveDefaultTimeout = 30 * time.Second

// serveQueue is the buffer between NATS and the workers; a full buffer drops
// requests (NATS reports a slow consumer) and their callers time out.
const serveQueue = 1024

// Serve answers requests on the namespaced subject as a member of queue
// (replicas share the load). h gets a ctx carrying the caller's trace and
// deadline; its result is the reply body, and its error is replied in
// HeaderError so the caller fails fast. Serve stops when ctx ends or stop is
// called; stop waits for the requests already received to be answered.
func (b *Bus) Serve(ctx context.Context, subject, queue string, h func(ctx context.Context, data []byte) ([]byte, error)) (stop func() error, err error) {
	subj := b.Subject(subject)
	ch := make(chan *nats.Msg, serveQueue)
	sub, err := b.NC.ChanQueueSubscribe(subj, queue, ch)
	if err != nil {
		return nil, fmt.Errorf("messaging: serve %s: %w", subj, err)
	}
	// The subscription reaches the server asynchronously; until it has,
	// a request from another connection finds no responder. Return only
	// once the server has it, so a caller that starts serving and then
	// reports ready is reachable.
	if err := b.NC.FlushTimeout(5 * time.Second); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("messaging: serve %s: flush: %w", subj, err)
	}
	// Handlers outlive a cancelled ctx: a request already taken is answered
	// (bounded by its caller's deadline) rather than dropped mid-transaction.
	base := context.WithoutCancel(ctx)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range serveConcurrency {
		wg.Go(func() {
			for {
				select {
				case m := <-ch:
					b.serveOne(base, subject, m, h)
				case <-quit:
					// Unsubscribed: nothing new arrives; answer what is queued.
					for {
						select {
						case m := <-ch:
							b.serveOne(base, subject, m, h)
						default:
							return
						}
					}
				}
			}
		})
	}
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() {
			if err := sub.Unsubscribe(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrBadSubscription) {
				stopErr = fmt.Errorf("messaging: stop serving %s: %w", subj, err)
			}
			close(quit)
			wg.Wait()
		})
		return stopErr
	}
	context.AfterFunc(ctx, func() { _ = stop() })
	return stop, nil
}

func (b *Bus) serveOne(base context.Context, subject string, m *nats.Msg, h func(context.Context, []byte) ([]byte, error)) {
	if m.Reply == "" {
		return // nobody is waiting for an answer
	}
	timeout := serveDefaultTimeout
	if ms, err := strconv.ParseInt(m.Header.Get(HeaderTimeout), 10, 64); err == nil && ms > 0 {
		timeout = min(time.Duration(ms)*time.Millisecond, 5*time.Minute)
	}
	ctx, cancel := context.WithTimeout(base, timeout)
	defer cancel()
	ctx = extractTrace(ctx, m.Header, "")
	ctx, span := tracer().Start(ctx, "serve "+subject,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", m.Subject),
		))
	defer span.End()

	reply := &nats.Msg{Subject: m.Reply, Header: nats.Header{}}
	data, err := callHandler(ctx, h, m.Data)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		b.log().WarnContext(ctx, "rpc handler failed", "subject", subject, "err", err)
		v := headerValue(err.Error())
		if v == "" {
			v = "handler error" // an empty header would read as success
		}
		reply.Header.Set(HeaderError, v)
	} else {
		reply.Data = data
	}
	if err := b.NC.PublishMsg(reply); err != nil {
		b.log().ErrorContext(ctx, "rpc reply", "subject", subject, "err", err)
	}
}

// callHandler turns a handler panic into an error reply: a bad request must
// not take the responder down.
func callHandler(ctx context.Context, h func(context.Context, []byte) ([]byte, error), data []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	out, err = h(ctx, data)
	if err == nil && len(out) == 0 {
		// An empty body would read as a missing reply; send JSON null.
		out = []byte("null")
	}
	return out, err
}

// Request sends req as JSON to the namespaced subject and decodes the reply
// into reply (nil ignores it). The deadline is ctx's, or 2 s when it has
// none. Any failure to get an answer wraps ErrUnavailable (and the cause,
// e.g. nats.ErrNoResponders or context.DeadlineExceeded); a reply that does
// not decode is a plain error.
func (b *Bus) Request(ctx context.Context, subject string, req, reply any) error {
	data, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("messaging: request %s: marshal: %w", subject, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	subj := b.Subject(subject)
	ctx, span := tracer().Start(ctx, "request "+subject,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", subj),
		))
	defer span.End()

	msg := nats.NewMsg(subj)
	msg.Data = data
	injectTrace(ctx, msg.Header)
	if dl, ok := ctx.Deadline(); ok {
		msg.Header.Set(HeaderTimeout, strconv.FormatInt(max(time.Until(dl).Milliseconds(), 1), 10))
	}
	resp, err := b.NC.RequestMsgWithContext(ctx, msg)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		if errors.Is(err, nats.ErrBadSubject) || errors.Is(err, nats.ErrMaxPayload) {
			return fmt.Errorf("messaging: request %s: %w", subject, err)
		}
		return fmt.Errorf("messaging: request %s: %w: %w", subject, ErrUnavailable, err)
	}
	if e := resp.Header.Get(HeaderError); e != "" {
		rerr := &RemoteError{Subject: subject, Message: e}
		span.RecordError(rerr)
		span.SetStatus(codes.Error, e)
		return rerr
	}
	if reply == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Data, reply); err != nil {
		return fmt.Errorf("messaging: request %s: decode reply: %w", subject, err)
	}
	return nil
}
