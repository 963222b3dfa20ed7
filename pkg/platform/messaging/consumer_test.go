package messaging

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// publishDirect puts an event on the stream without the outbox, so consumer
// tests do not depend on the relay.
func (e *env) publishDirect(t testing.TB, ev events.Envelope) {
	t.Helper()
	msg := nats.NewMsg(e.bus.Subject(ev.Type))
	msg.Data = mustJSON(t, ev)
	if _, err := e.bus.JS.PublishMsg(e.ctx, msg); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

// deliveries counts handler calls per event id.
type deliveries struct {
	mu sync.Mutex
	n  map[string]int
}

func (d *deliveries) add(id string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == nil {
		d.n = map[string]int{}
	}
	d.n[id]++
	return d.n[id]
}

func (d *deliveries) get(id string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n[id]
}

// deadLetters reads the dead letters of a consumer.
func (e *env) deadLetters(t testing.TB, durable string, want int) []jetstream.Msg {
	t.Helper()
	return e.readStream(t, events.StreamDLQ, events.DeadLetterPrefix+durable+".>", want)
}

// drained waits until the server has nothing left to deliver to the
// consumer and no delivery awaiting its ack, then returns the consumer's
// info. From then on no handler call can come: counts taken after it are
// final, and Delivered.Consumer counts every delivery the server made.
func (e *env) drained(t testing.TB, stream, durable string) *jetstream.ConsumerInfo {
	t.Helper()
	var info *jetstream.ConsumerInfo
	testkit.Eventually(t, 10*time.Second, "consumer "+durable+" drained", func() bool {
		c, err := e.bus.JS.Consumer(e.ctx, e.bus.StreamName(stream), durable)
		if err != nil {
			return false
		}
		info, err = c.Info(e.ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	return info
}

func TestConsumerDeadLettersAfterMaxDeliver(t *testing.T) {
	e := setup(t)
	var d deliveries
	cfg := ConsumerConfig{
		Durable: "always-fails", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.t4a.>"},
		MaxDeliver: 3, Backoff: []time.Duration{20 * time.Millisecond, 40 * time.Millisecond},
	}
	before := counter(t, "hookline_messaging_dead_letters_total", "messaging_consumer_group_name", cfg.Durable)
	consumer := []string{"messaging_consumer_group_name", cfg.Durable}
	failedBefore := counter(t, "messaging_process_duration_seconds", append(consumer, "outcome", "error")...)
	redeliveredBefore := counter(t, "hookline_messaging_redeliveries_total", consumer...)
	e.consume(t, cfg, func(_ context.Context, ev events.Envelope) error {
		d.add(ev.ID)
		return errors.New("database on fire")
	})
	ev := envelope(t, e.ctx, "thumbnails.t4a.failed.v1", testData{})
	e.publishDirect(t, ev)

	dl := e.deadLetters(t, cfg.Durable, 1)[0]
	info := e.drained(t, cfg.Stream, cfg.Durable)
	if got := d.get(ev.ID); got != 3 || info.Delivered.Consumer != 3 {
		t.Errorf("handler ran %d times over %d deliveries, want MaxDeliver = 3", got, info.Delivered.Consumer)
	}
	if got := counter(t, "hookline_messaging_dead_letters_total", "messaging_consumer_group_name", cfg.Durable, "reason", "max_deliver") - before; got != 1 {
		t.Errorf("dead-letter counter moved by %d, want 1", got)
	}
	// Every delivery is timed as a failure; all but the first are redeliveries.
	if got := counter(t, "messaging_process_duration_seconds", append(consumer, "outcome", "error", "messaging_destination_name", "thumbnails.t4a.failed.v1")...) - failedBefore; got != 3 {
		t.Errorf("failed handlings counted %d, want 3", got)
	}
	if got := counter(t, "hookline_messaging_redeliveries_total", consumer...) - redeliveredBefore; got != 2 {
		t.Errorf("redeliveries counted %d, want 2", got)
	}
	wantSubject := e.bus.Subject("dlq.always-fails.thumbnails.t4a.failed.v1")
	if dl.Subject() != wantSubject {
		t.Errorf("dead letter on %q, want %q", dl.Subject(), wantSubject)
	}
	h := dl.Headers()
	for k, want := range map[string]string{
		HeaderDLQReason:     "max_deliver",
		HeaderDLQDeliveries: "3",
		HeaderDLQConsumer:   "always-fails",
		HeaderDLQSubject:    "thumbnails.t4a.failed.v1",
		HeaderDLQError:      "database on fire",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	got, err := events.Parse(dl.Data())
	if err != nil || got.ID != ev.ID {
		t.Errorf("dead letter payload: id %q err %v, want the original event %s", got.ID, err, ev.ID)
	}
}

func TestConsumerPermanentErrorDeadLettersAtOnce(t *testing.T) {
	e := setup(t)
	var d deliveries
	cfg := ConsumerConfig{Durable: "permanent", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.t4b.>"}}
	before := counter(t, "hookline_messaging_dead_letters_total", "messaging_consumer_group_name", cfg.Durable)
	e.consume(t, cfg, func(_ context.Context, ev events.Envelope) error {
		d.add(ev.ID)
		return Permanent(errors.New("reservation unknown"))
	})
	ev := envelope(t, e.ctx, "thumbnails.t4b.failed.v1", testData{})
	e.publishDirect(t, ev)

	dl := e.deadLetters(t, cfg.Durable, 1)[0]
	info := e.drained(t, cfg.Stream, cfg.Durable)
	if got := d.get(ev.ID); got != 1 || info.Delivered.Consumer != 1 {
		t.Errorf("handler ran %d times over %d deliveries, want 1", got, info.Delivered.Consumer)
	}
	if got := dl.Headers().Get(HeaderDLQReason); got != "permanent" {
		t.Errorf("reason %q, want permanent", got)
	}
	if got := counter(t, "hookline_messaging_dead_letters_total", "messaging_consumer_group_name", cfg.Durable) - before; got != 1 {
		t.Errorf("dead-letter counter moved by %d, want 1", got)
	}
}

func TestConsumerUnparsableDeadLettersAtOnce(t *testing.T) {
	e := setup(t)
	called := make(chan struct{}, 1)
	cfg := ConsumerConfig{Durable: "garbage", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.t4c.>"}}
	e.consume(t, cfg, func(context.Context, events.Envelope) error {
		called <- struct{}{}
		return nil
	})
	if _, err := e.bus.JS.Publish(e.ctx, e.bus.Subject("thumbnails.t4c.bad.v1"), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	dl := e.deadLetters(t, cfg.Durable, 1)[0]
	if got := dl.Headers().Get(HeaderDLQReason); got != "unparsable" {
		t.Errorf("reason %q, want unparsable", got)
	}
	if string(dl.Data()) != "{not json" {
		t.Errorf("payload %q not kept", dl.Data())
	}
	select {
	case <-called:
		t.Error("handler called for an unparsable message")
	default:
	}
}

// TestConsumerRetryThenSuccessAppliesOnce: the first delivery fails after
// claiming the inbox (rolled back), the second succeeds; a duplicate
// publish of the same event is then a no-op thanks to the inbox.
func TestConsumerRetryThenSuccessAppliesOnce(t *testing.T) {
	e := setup(t)
	var d deliveries
	cfg := ConsumerConfig{
		Durable: "flaky", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.t4d.>"},
		Backoff: []time.Duration{20 * time.Millisecond},
	}
	e.consume(t, cfg, func(ctx context.Context, ev events.Envelope) error {
		n := d.add(ev.ID)
		return e.effectHandler(cfg.Durable, func(events.Envelope) error {
			if n == 1 {
				return errors.New("transient") // after the claim: rolled back with it
			}
			return nil
		})(ctx, ev)
	})
	ev := envelope(t, e.ctx, "thumbnails.t4d.done.v1", testData{})
	e.publishDirect(t, ev)
	testkit.Eventually(t, 10*time.Second, "effect applied", func() bool {
		n, _ := e.effects(t)
		return n == 1
	})
	// The broker may repeat a message long after (Postgres is the truth):
	// publish it again without a message id so the stream stores it twice.
	e.publishDirect(t, ev)
	testkit.Eventually(t, 10*time.Second, "duplicate delivered", func() bool { return d.get(ev.ID) == 3 })
	e.drained(t, cfg.Stream, cfg.Durable) // the duplicate's transaction has ended
	if rows, maxN := e.effects(t); rows != 1 || maxN != 1 {
		t.Errorf("effects: %d rows applied up to %d times, want 1 and 1", rows, maxN)
	}
}

func TestClaimInbox(t *testing.T) {
	e := setup(t)
	id := newID()
	claim := func() bool {
		var first bool
		if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
			var err error
			first, err = ClaimInbox(e.ctx, tx, "c1", id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return first
	}
	if !claim() {
		t.Fatal("first claim returned false")
	}
	if claim() {
		t.Fatal("second claim returned true")
	}
	// Another consumer has its own claim on the same event.
	if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		first, err := ClaimInbox(e.ctx, tx, "c2", id)
		if err == nil && !first {
			t.Error("claim by another consumer returned false")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// A rolled back claim leaves no trace.
	other := newID()
	_ = pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		if _, err := ClaimInbox(e.ctx, tx, "c1", other); err != nil {
			t.Fatal(err)
		}
		return errRollback
	})
	if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		first, err := ClaimInbox(e.ctx, tx, "c1", other)
		if err == nil && !first {
			t.Error("claim after a rolled back claim returned false")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	n, err := PruneInbox(e.ctx, e.pool, time.Now().Add(time.Hour))
	if err != nil || n != 3 {
		t.Errorf("prune: %d rows, err %v; want 3", n, err)
	}
}

func TestQueueClaimInbox(t *testing.T) {
	e := setup(t)
	old, fresh := InboxClaim{"c1", newID()}, InboxClaim{"c1", newID()}
	if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		_, err := ClaimInbox(e.ctx, tx, old.Consumer, old.EventID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	claimed := map[InboxClaim]bool{}
	if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`SELECT 1`)
		QueueClaimInbox(b, []InboxClaim{old, fresh, fresh, {"c2", old.EventID}}, claimed)
		return tx.SendBatch(e.ctx, b).Close()
	}); err != nil {
		t.Fatal(err)
	}
	want := map[InboxClaim]bool{fresh: true, {"c2", old.EventID}: true}
	if len(claimed) != len(want) || !claimed[fresh] || !claimed[InboxClaim{"c2", old.EventID}] {
		t.Errorf("claimed = %v, want %v", claimed, want)
	}
	// Nothing queued for no claims: the batch stays valid.
	b := &pgx.Batch{}
	QueueClaimInbox(b, nil, claimed)
	if b.Len() != 0 {
		t.Errorf("queued %d statements for no claims", b.Len())
	}
}

// TestConsumerHeartbeatsLongHandlers: a handler slower than AckWait is not
// redelivered while it runs. Heartbeats go every third of AckWait, so a
// heartbeat may come up to two thirds of it late before the server
// redelivers: AckWait is long enough for a loaded machine's stalls, and the
// handler outlasts it more than twice.
func TestConsumerHeartbeatsLongHandlers(t *testing.T) {
	e := setup(t)
	var d deliveries
	const ackWait = 1500 * time.Millisecond
	cfg := ConsumerConfig{
		Durable: "slow", Stream: events.StreamClips, Subjects: []string{"clips.t4e.>"},
		AckWait: ackWait, Workers: 2,
	}
	done := make(chan struct{})
	e.consume(t, cfg, func(ctx context.Context, ev events.Envelope) error {
		if d.add(ev.ID) == 1 {
			select {
			case <-time.After(5 * ackWait / 2):
			case <-ctx.Done():
			}
			close(done)
		}
		return nil
	})
	ev := envelope(t, e.ctx, "clips.t4e.rendered.v1", testData{})
	e.publishDirect(t, ev)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("handler never finished")
	}
	info := e.drained(t, cfg.Stream, cfg.Durable)
	if got := d.get(ev.ID); got != 1 || info.Delivered.Consumer != 1 {
		t.Errorf("handler ran %d times over %d deliveries, want 1 (InProgress should hold the message)", got, info.Delivered.Consumer)
	}
}

func TestConsumerConfigValidation(t *testing.T) {
	e := setup(t)
	for _, cfg := range []ConsumerConfig{
		{Stream: events.StreamClips, Subjects: []string{"clips.>"}},
		{Durable: "a.b", Stream: events.StreamClips, Subjects: []string{"clips.>"}},
		{Durable: "x", Subjects: []string{"clips.>"}},
		{Durable: "x", Stream: events.StreamClips},
	} {
		if err := e.bus.Consume(e.ctx, cfg, func(context.Context, events.Envelope) error { return nil }); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	err := e.bus.Consume(ctx, ConsumerConfig{Durable: "x", Stream: "NOPE", Subjects: []string{"nope.>"}},
		func(context.Context, events.Envelope) error { return nil })
	if err == nil {
		t.Error("consumer on a missing stream started")
	}
}

func TestNamespacing(t *testing.T) {
	b := &Bus{Namespace: "t1a2"}
	if got := b.Subject("billing.credit.reserved.v1"); got != "t1a2.billing.credit.reserved.v1" {
		t.Errorf("Subject = %q", got)
	}
	if got := b.StreamName(events.StreamBilling); got != "T1A2_BILLING" {
		t.Errorf("StreamName = %q", got)
	}
	if got := b.unSubject("t1a2.clips.x.v1"); got != "clips.x.v1" {
		t.Errorf("unSubject = %q", got)
	}
	p := &Bus{}
	if p.Subject("a.b") != "a.b" || p.StreamName(events.StreamClips) != "CLIPS" {
		t.Error("empty namespace changed names")
	}
	nc, err := Connect(context.Background(), testkit.NATSURL(t), "messaging-test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, bad := range []string{"a.b", "a*", "a b", ">"} {
		if _, err := NewBus(nc, bad); err == nil {
			t.Errorf("namespace %q accepted", bad)
		}
	}
	if _, err := NewBus(nc, "ok_ns-1"); err != nil {
		t.Errorf("valid namespace refused: %v", err)
	}
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) != nil")
	}
	if !IsPermanent(Permanent(errors.New("x"))) || IsPermanent(errors.New("x")) {
		t.Error("IsPermanent")
	}
	if !IsPermanent(fmt.Errorf("handler: %w", events.Invalid(errors.New("x")))) || events.Invalid(nil) != nil {
		t.Error("an invalid event is not permanent")
	}
}

// TestConsumerBacklogGauge: the backlog gauge reports what a consumer has
// not acknowledged yet (what a queue-depth autoscaler scales on), pending
// and in flight together, and forgets the consumer when it stops.
func TestConsumerBacklogGauge(t *testing.T) {
	e := setup(t)
	cfg := ConsumerConfig{Durable: "backlogged", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.t4b.>"}, Workers: 1}
	release := make(chan struct{})
	defer close(release)
	for range 12 {
		e.publishDirect(t, envelope(t, e.ctx, "thumbnails.t4b.waiting.v1", testData{}))
	}
	e.consume(t, cfg, func(ctx context.Context, _ events.Envelope) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	// The first reading may come before the first delivery; the next one
	// (backlogEvery later) sees one in the handler.
	testkit.Eventually(t, 3*backlogEvery/2, "12 unacknowledged, one in flight", func() bool {
		m := testkit.ScrapeProcess(t)
		p := m.Value("hookline_messaging_consumer_backlog", "messaging_consumer_group_name", cfg.Durable, "state", "pending")
		f := m.Value("hookline_messaging_consumer_backlog", "messaging_consumer_group_name", cfg.Durable, "state", "in_flight")
		return f >= 1 && p+f == 12
	})
}
