package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// TestOutboxConcurrentWriters: many concurrent transactions, some held open,
// some rolled back. Every committed event arrives exactly once, no rolled
// back one does, the stream holds no duplicate, the events of one
// transaction keep their order, and the outbox drains.
func TestOutboxConcurrentWriters(t *testing.T) {
	e := setup(t)
	const (
		writers = 50
		txs     = 40
		typ     = "thumbnails.test.written.v1"
	)
	col := newCollector()
	e.consume(t, ConsumerConfig{Durable: "t1", Stream: events.StreamThumbnails, Subjects: []string{"thumbnails.test.>"}}, col.handler)
	forcedBefore := counter(t, "hookline_messaging_relay_forced_total")
	lagBefore := counter(t, "hookline_messaging_relay_lag_seconds")
	handledBefore := counter(t, "messaging_process_duration_seconds", "messaging_consumer_group_name", "t1", "outcome", "ok")
	background(t, "relay", e.relay(t).Run)

	var (
		mu         sync.Mutex
		committed  = map[string]bool{}
		rolledBack = map[string]bool{}
		wg         sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for range txs {
				n := 1 + rng.IntN(3)
				rollback := rng.IntN(10) == 0
				hold := time.Duration(0)
				if rng.IntN(3) == 0 {
					hold = time.Duration(1+rng.IntN(8)) * time.Millisecond
				}
				var ids []string
				err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
					var txid int64
					if err := tx.QueryRow(e.ctx, `SELECT pg_current_xact_id()::text::bigint`).Scan(&txid); err != nil {
						return err
					}
					envs := make([]events.Envelope, n)
					for i := range envs {
						ev, err := events.New(e.ctx, typ, "test", "org-1", testData{Tx: txid, Pos: i})
						if err != nil {
							return err
						}
						envs[i] = ev
						ids = append(ids, ev.ID)
					}
					// Two statements for some, to order rows across calls too.
					if n > 1 && rng.IntN(2) == 0 {
						if err := WriteOutbox(e.ctx, tx, envs[0]); err != nil {
							return err
						}
						envs = envs[1:]
					}
					if err := WriteOutbox(e.ctx, tx, envs...); err != nil {
						return err
					}
					// Held open after the insert: its rows are in the table,
					// its txid is below later ones that commit first.
					time.Sleep(hold)
					if rollback {
						return errRollback
					}
					return nil
				})
				mu.Lock()
				switch {
				case err == nil:
					for _, id := range ids {
						committed[id] = true
					}
				case errors.Is(err, errRollback):
					for _, id := range ids {
						rolledBack[id] = true
					}
				default:
					t.Errorf("write: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("committed %d events, rolled back %d", len(committed), len(rolledBack))

	testkit.Eventually(t, 60*time.Second, "all committed events consumed", func() bool {
		return col.count() >= len(committed)
	})
	testkit.Eventually(t, 10*time.Second, "outbox drained", func() bool { return e.pending(t) == 0 })
	time.Sleep(300 * time.Millisecond) // room for a stray duplicate to show up

	seen := col.snapshot()
	for id := range committed {
		if seen[id] != 1 {
			t.Errorf("committed event %s delivered %d times", id, seen[id])
		}
	}
	for id := range seen {
		if rolledBack[id] {
			t.Errorf("rolled back event %s was delivered", id)
		} else if !committed[id] {
			t.Errorf("unknown event %s delivered", id)
		}
	}
	if got := e.streamMsgs(t, events.StreamThumbnails); got != uint64(len(committed)) {
		t.Errorf("stream holds %d messages, want %d (one per committed event)", got, len(committed))
	}
	// Each published row's lag was recorded (other tests' relays may add
	// theirs), and the consumer timed each event it handled.
	if got := counter(t, "hookline_messaging_relay_lag_seconds") - lagBefore; got < int64(len(committed)) {
		t.Errorf("relay lag recorded %d times, want at least %d", got, len(committed))
	}
	if got := counter(t, "messaging_process_duration_seconds", "messaging_consumer_group_name", "t1", "outcome", "ok") - handledBefore; got < int64(len(committed)) {
		t.Errorf("consumer t1 handled %d events by its metrics, want at least %d", got, len(committed))
	}

	// Stream order: (txid, seq). Within a transaction positions ascend; and
	// unless the relay had to force rows past a long transaction of the
	// shared cluster, txids never go backwards.
	msgs := e.readStream(t, events.StreamThumbnails, "thumbnails.test.>", len(committed))
	forced := counter(t, "hookline_messaging_relay_forced_total") - forcedBefore
	var lastTx int64
	lastPos := map[int64]int{}
	for _, m := range msgs {
		ev, err := events.Parse(m.Data())
		if err != nil {
			t.Fatalf("parse stream message: %v", err)
		}
		var d testData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatalf("data: %v", err)
		}
		if p, ok := lastPos[d.Tx]; ok && d.Pos != p+1 {
			t.Errorf("tx %d: position %d follows %d", d.Tx, d.Pos, p)
		} else if !ok && d.Pos != 0 {
			t.Errorf("tx %d: first event has position %d", d.Tx, d.Pos)
		}
		lastPos[d.Tx] = d.Pos
		if forced == 0 && d.Tx < lastTx {
			t.Errorf("txid %d published after txid %d", d.Tx, lastTx)
		}
		lastTx = max(lastTx, d.Tx)
	}
	if forced > 0 {
		t.Logf("%d rows were forced past a long transaction; txid order not checked", forced)
	}
}

var errRollback = errors.New("rollback on purpose")

// TestRelayCrashLosesNothing: a relay dies after JetStream acked a batch but
// before it deleted the rows; the next relay re-publishes them and the
// stream's duplicate window drops them. Consumers see each event once.
func TestRelayCrashLosesNothing(t *testing.T) {
	e := setup(t)
	const typ = "clips.test.crashed.v1"
	e.consume(t, ConsumerConfig{Durable: "t2", Stream: events.StreamClips, Subjects: []string{"clips.test.>"}}, e.effectHandler("t2", nil))

	var ids []string
	for range 100 {
		ids = append(ids, e.writeTx(t, typ, 10)...)
	}

	dupsBefore := counter(t, "hookline_messaging_relay_duplicates_total")
	r1 := e.relay(t)
	r1.BatchSize = 100
	var batches atomic.Int32
	crashed := make(chan struct{})
	r1.crashAfterPublish = func() bool {
		// Every batch from the third on dies between ack and delete, so
		// relay 1 cannot recover on its own before it is stopped.
		n := batches.Add(1)
		if n == 3 {
			close(crashed)
		}
		return n >= 3
	}
	stop1 := background(t, "relay 1", r1.Run)
	// Writers keep going across the crash.
	var wg sync.WaitGroup
	var more []string
	wg.Go(func() {
		for range 50 {
			got, err := e.writeTxE(typ, 4)
			if err != nil {
				t.Errorf("write: %v", err)
				return
			}
			more = append(more, got...)
		}
	})
	select {
	case <-crashed:
	case <-time.After(30 * time.Second):
		t.Fatal("relay 1 never reached its third batch")
	}
	stop1()
	if r1.Published() != 200 {
		t.Fatalf("relay 1 deleted %d rows before crashing, want 200", r1.Published())
	}
	if got := e.pending(t); got < 100 {
		t.Fatalf("after the crash %d rows are pending, want the 100 published but not deleted and more", got)
	}

	r2 := e.relay(t)
	background(t, "relay 2", r2.Run)
	wg.Wait()
	ids = append(ids, more...)
	testkit.Eventually(t, 30*time.Second, "outbox drained", func() bool { return e.pending(t) == 0 })
	testkit.Eventually(t, 30*time.Second, "all effects applied", func() bool {
		n, _ := e.effects(t)
		return n == len(ids)
	})
	// Counters move just after the DELETE commits.
	testkit.Eventually(t, 30*time.Second, "relay 2 saw >= 100 duplicate acks (the crashed batch)", func() bool {
		return counter(t, "hookline_messaging_relay_duplicates_total")-dupsBefore >= 100
	})
	if got := e.streamMsgs(t, events.StreamClips); got != uint64(len(ids)) {
		t.Errorf("stream holds %d messages, want %d", got, len(ids))
	}
	time.Sleep(200 * time.Millisecond)
	rows, maxN := e.effects(t)
	if rows != len(ids) || maxN != 1 {
		t.Errorf("effects: %d rows (want %d), max applications %d (want 1)", rows, len(ids), maxN)
	}
}

// TestTwoRelaysOneLeader: two relays on one schema; only one publishes at a
// time, the other takes over when the leader goes, nothing is lost.
func TestTwoRelaysOneLeader(t *testing.T) {
	e := setup(t)
	const typ = "assets.brand.test.led.v1"
	col := newCollector()
	e.consume(t, ConsumerConfig{Durable: "t3", Stream: events.StreamAssets, Subjects: []string{"assets.brand.test.>"}}, col.handler)

	var active, overlaps atomic.Int32
	hook := func(start bool) {
		if start {
			if active.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(time.Millisecond) // widen the window an overlap would need
		} else {
			active.Add(-1)
		}
	}
	r1, r2 := e.relay(t), e.relay(t)
	r1.onBatch, r2.onBatch = hook, hook
	stop1 := background(t, "relay 1", r1.Run)
	stop2 := background(t, "relay 2", r2.Run)

	var ids []string
	for range 100 {
		ids = append(ids, e.writeTx(t, typ, 3)...)
	}
	testkit.Eventually(t, 30*time.Second, "first round published and consumed", func() bool {
		return col.count() == len(ids) && r1.Published()+r2.Published() == int64(len(ids))
	})
	if r1.Leader() == r2.Leader() {
		t.Fatalf("leaders: relay 1 %v, relay 2 %v; want exactly one", r1.Leader(), r2.Leader())
	}
	leader, standby, stopLeader := r1, r2, stop1
	if r2.Leader() {
		leader, standby, stopLeader = r2, r1, stop2
	}
	if standby.Published() != 0 || leader.Published() != int64(len(ids)) {
		t.Fatalf("published: leader %d, standby %d; want %d and 0", leader.Published(), standby.Published(), len(ids))
	}

	stopLeader()
	for range 50 {
		ids = append(ids, e.writeTx(t, typ, 2)...)
	}
	testkit.Eventually(t, 30*time.Second, "standby took over", func() bool {
		return col.count() == len(ids) && standby.Published() == 100
	})
	if !standby.Leader() {
		t.Error("standby is not leader after the leader stopped")
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("%d batches published while another relay was publishing", n)
	}
	for id, n := range col.snapshot() {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
}

// TestRelayLingerBatchesCloseCommits: commits that follow a wake-up within
// Linger go out in the same round as the one that woke the relay.
func TestRelayLingerBatchesCloseCommits(t *testing.T) {
	e := setup(t)
	const typ = "assets.brand.test.lingered.v1"
	r := e.relay(t)
	r.Linger = 500 * time.Millisecond
	var batches atomic.Int32
	r.onBatch = func(start bool) {
		if start {
			batches.Add(1)
		}
	}
	background(t, "relay", r.Run)
	// One event first, so the relay is past its start-up round (which may
	// run before or after any commit) and back to waiting for a wake-up.
	e.writeTx(t, typ, 1)
	testkit.Eventually(t, 10*time.Second, "first event published", func() bool { return r.Published() == 1 })
	batches.Store(0)

	const commits = 5
	for range commits {
		e.writeTx(t, typ, 1)
	}
	testkit.Eventually(t, 10*time.Second, "all published", func() bool { return r.Published() == 1+commits })
	if n := batches.Load(); n != 1 {
		t.Errorf("%d commits within the linger went out in %d rounds, want 1", commits, n)
	}
}

// TestRelayQueueOutboxWakesWithoutNotify: rows queued through the leading
// relay send no NOTIFY, and Committed alone wakes the relay (it would
// otherwise sleep out an hour-long poll). Once another replica leads, the
// same call notifies again.
func TestRelayQueueOutboxWakesWithoutNotify(t *testing.T) {
	e := setup(t)
	const typ = "assets.brand.test.woken.v1"
	r := e.relay(t)
	r.PollInterval = time.Hour
	background(t, "relay", r.Run)
	testkit.Eventually(t, 10*time.Second, "relay leads", r.Leader)
	listener, err := e.pool.Acquire(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Release()
	if _, err := listener.Exec(e.ctx, "LISTEN "+pgx.Identifier{notifyChannel(e.schema)}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	defer listener.Exec(context.WithoutCancel(e.ctx), "UNLISTEN *") //nolint:errcheck // the pool resets it anyway
	commit := func(via *Relay) {
		t.Helper()
		b := &pgx.Batch{}
		b.Queue("BEGIN")
		if err := via.QueueOutbox(b, envelope(t, e.ctx, typ, testData{})); err != nil {
			t.Fatal(err)
		}
		b.Queue("COMMIT")
		if err := e.pool.SendBatch(e.ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
	}

	for i := 1; i <= 3; i++ {
		commit(r)
		r.Committed()
		testkit.Eventually(t, 10*time.Second, "woken relay published", func() bool { return r.Published() == int64(i) })
	}
	// A marker committed after them: a NOTIFY of theirs would come first.
	notifyMarker(t, e, e.schema)
	if n := nextNotification(t, listener.Conn()); n.Payload != "marker" {
		t.Errorf("a commit queued through the leading relay sent a NOTIFY (%q before the marker)", n.Payload)
	}
	// A relay that does not lead cannot be woken in-process: its
	// transactions notify the leader through Postgres.
	commit(e.relay(t))
	if n := nextNotification(t, listener.Conn()); n.Payload != "" {
		t.Errorf("after a commit queued through a standby relay: notification %q, want the trigger's", n.Payload)
	}
	testkit.Eventually(t, 10*time.Second, "notified relay published", func() bool { return r.Published() == 4 })
}

// TestOutboxNotifiesOwnSchemaOnly: the trigger's channel carries the schema,
// so services sharing a database do not wake each other's relays.
func TestOutboxNotifiesOwnSchemaOnly(t *testing.T) {
	a, b := setup(t), setup(t)
	conn, err := a.pool.Acquire(a.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, s := range []string{a.schema, b.schema} {
		if _, err := conn.Exec(a.ctx, "LISTEN "+pgx.Identifier{notifyChannel(s)}.Sanitize()); err != nil {
			t.Fatal(err)
		}
	}
	b.writeTx(t, "gateway.test.noticed.v1", 3)
	// Then a marker on a's channel: whatever the write sent arrives before
	// it.
	notifyMarker(t, a, a.schema)
	if n := nextNotification(t, conn.Conn()); n.Channel != notifyChannel(b.schema) || n.Payload != "" {
		t.Errorf("notified %q on %q, want the trigger on %q", n.Payload, n.Channel, notifyChannel(b.schema))
	}
	// One statement, one notification; nothing on a's channel.
	if n := nextNotification(t, conn.Conn()); n.Channel != notifyChannel(a.schema) || n.Payload != "marker" {
		t.Errorf("second notification %q on %q, want the marker on %q", n.Payload, n.Channel, notifyChannel(a.schema))
	}
	if _, err := conn.Exec(a.ctx, "UNLISTEN *"); err != nil {
		t.Fatal(err)
	}
}

// TestWriteOutboxValidatesAndDedupes covers the write path's edges.
func TestWriteOutboxValidatesAndDedupes(t *testing.T) {
	e := setup(t)
	ev := envelope(t, e.ctx, "gateway.test.written.v1", testData{})
	err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error {
		if err := WriteOutbox(e.ctx, tx); err != nil { // nothing to write
			return err
		}
		// The same event twice (a retried command with a deterministic id)
		// is one row, not a failed transaction.
		if err := WriteOutbox(e.ctx, tx, ev, ev); err != nil {
			return err
		}
		return WriteOutbox(e.ctx, tx, ev)
	})
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	if got := e.pending(t); got != 1 {
		t.Errorf("pending = %d, want 1", got)
	}
	bad := ev
	bad.ID = "not-a-uuid"
	err = pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error { return WriteOutbox(e.ctx, tx, bad) })
	if err == nil {
		t.Error("non-uuid id accepted")
	}
	bad = envelope(t, e.ctx, "", testData{})
	err = pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error { return WriteOutbox(e.ctx, tx, bad) })
	if err == nil {
		t.Error("empty type accepted")
	}
}

// TestTraceCrossesOutbox: the trace of the writing request continues in the
// consumer, via the traceparent header the relay sets from the envelope.
func TestTraceCrossesOutbox(t *testing.T) {
	restore := installTracing(t)
	defer restore()
	e := setup(t)
	got := make(chan trace.SpanContext, 1)
	e.consume(t, ConsumerConfig{Durable: "t-trace", Stream: events.StreamGateway, Subjects: []string{"gateway.test.>"}},
		func(ctx context.Context, _ events.Envelope) error {
			got <- trace.SpanContextFromContext(ctx)
			return nil
		})
	background(t, "relay", e.relay(t).Run)

	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(e.ctx, "request")
	ev := envelope(t, ctx, "gateway.test.traced.v1", testData{})
	span.End()
	if err := pgkit.InTx(e.ctx, e.pool, func(tx pgx.Tx) error { return WriteOutbox(e.ctx, tx, ev) }); err != nil {
		t.Fatal(err)
	}
	select {
	case sc := <-got:
		if sc.TraceID() != span.SpanContext().TraceID() {
			t.Errorf("consumer trace %s, want %s", sc.TraceID(), span.SpanContext().TraceID())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("event not consumed")
	}
}

// holdOpenTx starts a transaction that owns a txid (so it holds back every
// snapshot's xmin in the cluster) and keeps it open until the returned
// function is called.
func holdOpenTx(t *testing.T, e *env) (release func()) {
	t.Helper()
	tx, err := e.pool.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { _ = tx.Rollback(e.ctx) }) }
	t.Cleanup(release)
	return release
}

// TestRelayHoldsBehindOpenTransaction: committed rows wait while an older
// transaction is open (strict txid order), and are published once it ends.
func TestRelayHoldsBehindOpenTransaction(t *testing.T) {
	e := setup(t)
	col := newCollector()
	e.consume(t, ConsumerConfig{Durable: "held", Stream: events.StreamClips, Subjects: []string{"clips.held.>"}}, col.handler)
	r := e.relay(t)
	r.MaxHold = -1 // strict
	background(t, "relay", r.Run)

	// early takes its txid before the open transaction and commits after
	// the held rows: the round that publishes it has read the outbox with
	// them committed in it, and must have left them there.
	early, err := e.pool.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = early.Rollback(e.ctx) }()
	first := envelope(t, e.ctx, "clips.held.early.v1", testData{})
	if err := WriteOutbox(e.ctx, early, first); err != nil {
		t.Fatal(err)
	}
	release := holdOpenTx(t, e)
	ids := e.writeTx(t, "clips.held.one.v1", 2)
	if err := early.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "the row older than the open transaction published", func() bool {
		return col.snapshot()[first.ID] > 0 && r.Published() >= 1
	})
	if n, got := r.Published(), col.count(); n != 1 || got != 1 {
		t.Fatalf("%d rows published and %d consumed while an older transaction was open; want only the row older than it", n, got)
	}
	release()
	testkit.Eventually(t, 30*time.Second, "held events published after the old transaction ended", func() bool {
		return col.count() == 1+len(ids)
	})
}

// TestRelayForcesPastLongTransaction: with MaxHold, a transaction left open
// (by anyone in the cluster) delays events by MaxHold, not forever; and a
// commit that comes while the relay is forcing goes out in the next round,
// without a hold of its own.
//
// The relay runs a round only when woken (Recheck and PollInterval are an
// hour), so which round publishes what is decided by the test, not by how
// fast a loaded machine gets there: a relay that held the second commit
// for another MaxHold would not look again within the test.
func TestRelayForcesPastLongTransaction(t *testing.T) {
	e := setup(t)
	col := newCollector()
	e.consume(t, ConsumerConfig{Durable: "forced", Stream: events.StreamClips, Subjects: []string{"clips.forced.>"}}, col.handler)
	r := e.relay(t)
	r.MaxHold = time.Second
	r.Recheck, r.PollInterval = time.Hour, time.Hour
	// The first batch is the forced one (nothing else is in the outbox): it
	// waits for the test to commit again before it publishes.
	forcing, committed := make(chan struct{}), make(chan struct{})
	var first sync.Once
	r.onBatch = func(start bool) {
		if start {
			first.Do(func() {
				close(forcing)
				<-committed
			})
		}
	}
	background(t, "relay", r.Run)
	before := counter(t, "hookline_messaging_relay_forced_total")

	holdOpenTx(t, e)
	ids := e.writeTx(t, "clips.forced.one.v1", 2)
	// Wake the relay until a round finds the rows held for MaxHold.
	deadline := time.After(30 * time.Second)
	for wait := true; wait; {
		select {
		case <-forcing:
			wait = false
		case <-time.After(50 * time.Millisecond):
			r.Committed()
		case <-deadline:
			t.Fatal("the relay did not force the held events within 30 s (MaxHold is 1 s)")
		}
	}
	// While the transaction stays open and the relay is forcing, the next
	// commit arrives; its notification is the relay's only wake-up.
	ids = append(ids, e.writeTx(t, "clips.forced.two.v1", 1)...)
	close(committed)
	testkit.Eventually(t, 30*time.Second, "the held events and the next one published", func() bool { return col.count() == len(ids) })
	// The counter moves after the relay's DELETE, which may trail delivery.
	testkit.Eventually(t, 10*time.Second, "forced counter +3", func() bool { return counter(t, "hookline_messaging_relay_forced_total")-before >= 3 })
}

// TestRelayPoisonRowDoesNotStall: an event whose subject no stream captures
// cannot be published; it stays in the outbox while everything else flows.
func TestRelayPoisonRowDoesNotStall(t *testing.T) {
	e := setup(t)
	col := newCollector()
	e.consume(t, ConsumerConfig{Durable: "poison", Stream: events.StreamAssets, Subjects: []string{"assets.brand.poison.>"}}, col.handler)
	e.writeTx(t, "nostream.poison.row.v1", 1)
	background(t, "relay", e.relay(t).Run)
	time.Sleep(300 * time.Millisecond) // let the relay fail and back off
	var ids []string
	for range 5 {
		ids = append(ids, e.writeTx(t, "assets.brand.poison.ok.v1", 1)...)
		time.Sleep(200 * time.Millisecond)
	}
	testkit.Eventually(t, 30*time.Second, "good events published past the poison row", func() bool {
		return col.count() == len(ids)
	})
	// Acked rows are deleted once the batch's poison publish has failed too.
	testkit.Eventually(t, 30*time.Second, "only the poison row left", func() bool { return e.pending(t) == 1 })
}

// notifyMarker sends "marker" on the outbox channel of schema. Postgres
// delivers notifications in commit order, so a listener that gets the
// marker has got every notification committed before it.
func notifyMarker(t *testing.T, e *env, schema string) {
	t.Helper()
	if _, err := e.pool.Exec(e.ctx, `SELECT pg_notify($1, 'marker')`, notifyChannel(schema)); err != nil {
		t.Fatal(err)
	}
}

// nextNotification is the next notification conn receives (the outbox
// trigger's payload is empty); 30 s without one fails the test.
func nextNotification(t *testing.T, conn *pgx.Conn) *pgconn.Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := conn.WaitForNotification(ctx)
	if err != nil {
		t.Fatalf("no notification within 30 s: %v", err)
	}
	return n
}
