package messaging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
)

// Relay defaults.
const (
	DefaultRelayBatch   = 500
	DefaultRelayPoll    = 500 * time.Millisecond
	DefaultRelayRecheck = 5 * time.Millisecond
	DefaultRelayLock    = 500 * time.Millisecond
	DefaultRelayMaxHold = 5 * time.Second
	DefaultRelayAckWait = 10 * time.Second
	DefaultRelayLinger  = 10 * time.Millisecond
)

// Relay publishes the outbox of one schema to JetStream. Run one per service
// replica: a session-level advisory lock keyed by the schema lets exactly one
// of them publish while the others wait as hot standbys, taking over within
// LockRetry when the leader's session ends.
//
// Tuning fields may be set between NewRelay and Run; zero means the default.
type Relay struct {
	// BatchSize is the most rows published per round (one async publish
	// burst, one ack wait, one DELETE).
	BatchSize int
	// PollInterval is the fallback wake-up when no notification arrives.
	PollInterval time.Duration
	// Recheck is the first wait when committed rows are held behind an open
	// older transaction; it doubles up to PollInterval while they stay held.
	Recheck time.Duration
	// LockRetry is how often a standby tries to take over.
	LockRetry time.Duration
	// MaxHold bounds how long committed rows wait for an older transaction
	// to finish. Transaction ids are cluster-wide, so any long writing
	// transaction (another service, a psql session left open) holds back
	// every relay of the cluster; after MaxHold the relay publishes the
	// committed rows anyway, out of txid order, and counts them in
	// hookline.messaging.relay.forced. Negative disables the bound (strict order,
	// no liveness guarantee). Consumers never rely on order (see package
	// doc), so liveness wins by default.
	MaxHold time.Duration
	// AckWait bounds the wait for JetStream acks of one batch.
	AckWait time.Duration
	// Linger is how long an idle relay waits after a notification before
	// it reads, so that the commits of the next few milliseconds go out in
	// the same round (one SELECT, one publish burst, one DELETE) instead
	// of one round each. It adds up to Linger to the outbox lag and
	// nothing when the relay is never idle. Every round costs both
	// processes wake-ups and syscalls, and those are what a busy machine
	// is short of: under billing's benchmark load (bench/run.sh billing),
	// a longer linger left the whole machine measurably less busy for a
	// few milliseconds more of outbox lag, well inside its goal.
	// Negative disables it.
	Linger time.Duration

	pool *pgxpool.Pool
	bus  *Bus
	log  *slog.Logger

	leader    atomic.Bool
	published atomic.Int64
	// wake carries Committed's signals to the waiting leader.
	wake chan struct{}

	// Test hooks: onBatch brackets the publishing of a batch; crashAfterPublish
	// makes the session end after the acks and before the DELETE, as a crash
	// there would.
	onBatch           func(start bool)
	crashAfterPublish func() bool
}

// NewRelay returns a relay for the schema of pool (its search_path), which
// publishes through bus.
func NewRelay(pool *pgxpool.Pool, bus *Bus, log *slog.Logger) *Relay {
	if log == nil {
		log = slog.Default()
	}
	return &Relay{pool: pool, bus: bus, log: log.With("component", "outbox-relay"), wake: make(chan struct{}, 1)}
}

// QueueOutbox is the package's QueueOutbox for a transaction of this
// relay's process, whose commit the process reports with Committed. While
// this relay leads its schema the transaction sends no NOTIFY, and
// Committed wakes the relay directly: that spares Postgres the notification
// queue, a database-wide lock every notifying commit takes and a signal to
// every listening session of the database (other services' relays too).
// Should leadership move in between, the new leader finds the rows in its
// first round or, at the latest, after PollInterval.
func (r *Relay) QueueOutbox(b *pgx.Batch, envs ...events.Envelope) error {
	if len(envs) > 0 && r.Leader() {
		b.Queue(`SET LOCAL hookline.outbox_notify = off`)
	}
	return QueueOutbox(b, envs...)
}

// Committed wakes the relay after a transaction with rows from QueueOutbox
// committed. It never blocks: one pending wake-up serves any number of
// commits.
func (r *Relay) Committed() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Leader reports whether this relay holds the schema's lock right now.
func (r *Relay) Leader() bool { return r.leader.Load() }

// Published is the number of rows this relay published and saw acked.
func (r *Relay) Published() int64 { return r.published.Load() }

func (r *Relay) defaults() {
	r.BatchSize = positiveOr(r.BatchSize, DefaultRelayBatch)
	r.PollInterval = positiveOr(r.PollInterval, DefaultRelayPoll)
	r.Recheck = positiveOr(r.Recheck, DefaultRelayRecheck)
	r.LockRetry = positiveOr(r.LockRetry, DefaultRelayLock)
	r.MaxHold = cmp.Or(r.MaxHold, DefaultRelayMaxHold)
	r.AckWait = positiveOr(r.AckWait, DefaultRelayAckWait)
	r.Linger = cmp.Or(r.Linger, DefaultRelayLinger)
}

// Run relays until ctx ends, then returns nil. Database and NATS failures
// are logged and retried with backoff, never returned: a relay that gave up
// would silently stop all publishing of its service. Call Run once per
// Relay.
func (r *Relay) Run(ctx context.Context) error {
	if r.pool == nil || r.bus == nil {
		return errors.New("messaging: relay needs a pool and a bus")
	}
	r.defaults()
	wait := 100 * time.Millisecond
	for {
		started := time.Now()
		err := r.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if time.Since(started) > time.Minute {
			wait = 100 * time.Millisecond
		}
		r.log.Warn("outbox relay session ended, reconnecting", "err", err, "retry_in", wait)
		if !sleepCtx(ctx, wait) {
			return nil
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// errCrash ends a session the way a crash would (test hook).
var errCrash = errors.New("messaging: relay crash (test hook)")

// session runs one database session: wait for leadership, LISTEN, relay.
// It returns when ctx ends or the session breaks; the lock goes with it.
func (r *Relay) session(ctx context.Context) error {
	// The session commits only the DELETEs of published rows, and those
	// need not wait for their WAL to reach disk: a DELETE lost in a
	// database crash only publishes its rows again, which JetStream's
	// message-id window and the consumers' inbox drop. Each synchronous
	// DELETE was one more WAL flush per round, queued with the flushes of
	// the commits that do need them (the service's own transactions).
	cfg := r.pool.Config().ConnConfig.Copy()
	if cfg.RuntimeParams == nil { // ParseConfig makes it; a hand-built config may not
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["synchronous_commit"] = "off"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = conn.Close(cctx) // closing the session releases the lock
	}()

	schema, err := r.acquire(ctx, conn)
	if err != nil || schema == "" {
		return err
	}
	r.leader.Store(true)
	defer r.leader.Store(false)
	log := r.log.With("schema", schema)
	log.Info("outbox relay is leader")

	channel := notifyChannel(schema)
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen %s: %w", channel, err)
	}

	// Committed rows held behind the open transaction that pins xmin at
	// heldXmin, since heldSince. Under steady load some transaction is
	// always in flight, but xmin keeps advancing; only a pinned xmin counts
	// towards MaxHold.
	var heldSince time.Time
	var heldXmin string
	forcing := false
	recheck := r.Recheck
	pubBackoff := 50 * time.Millisecond
	for {
		force := r.MaxHold > 0 && !heldSince.IsZero() && time.Since(heldSince) >= r.MaxHold
		res, err := r.batch(ctx, conn, force)
		if ctx.Err() != nil {
			return nil
		}
		var pe *publishError
		switch {
		case errors.As(err, &pe) && res.published > 0:
			// Some rows went out, so NATS works and one subject fails (no
			// stream captures it?). Retry at once: a poison row must not
			// slow every other event down to the backoff.
			log.Error("outbox publish failed for some rows", "err", err)
			continue
		case errors.As(err, &pe):
			// The database is fine; NATS is not, or every row left is one
			// no stream accepts. Keep the lock and retry after a pause that
			// a new commit cuts short, so fresh events do not wait out the
			// backoff behind a poison row.
			log.Error("outbox publish failed, retrying", "err", err, "retry_in", pubBackoff)
			if _, err := r.waitNotify(ctx, conn, pubBackoff); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("wait for notification: %w", err)
			}
			pubBackoff = min(pubBackoff*2, 5*time.Second)
			continue
		case err != nil:
			return err
		}
		pubBackoff = 50 * time.Millisecond
		if res.forced > 0 && !forcing {
			// Log once per pinned xmin: while it stays pinned every round
			// forces (each new commit would otherwise wait MaxHold again).
			forcing = true
			log.Warn("outbox rows published out of txid order: an older transaction stays open", "rows", res.forced, "held_for", time.Since(heldSince).Round(time.Millisecond))
		}
		if res.full {
			continue // more rows are ready right now
		}
		wait := r.PollInterval
		if res.held {
			if heldSince.IsZero() || res.xmin != heldXmin {
				heldSince, heldXmin, forcing = time.Now(), res.xmin, false
				recheck = r.Recheck
			}
			wait = recheck
			recheck = min(recheck*2, r.PollInterval)
		} else {
			heldSince, forcing = time.Time{}, false
		}
		notified, err := r.waitNotify(ctx, conn, wait)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("wait for notification: %w", err)
		}
		if notified && r.Linger > 0 && !sleepCtx(ctx, r.Linger) {
			return nil
		}
	}
}

// acquire waits until this session holds the schema's relay lock. It
// returns "" without error when ctx ends first.
func (r *Relay) acquire(ctx context.Context, conn *pgx.Conn) (string, error) {
	for {
		var schema string
		var locked bool
		err := conn.QueryRow(ctx, `SELECT current_schema(), pg_try_advisory_lock(hashtext('hookline.outbox.' || current_schema()))`).Scan(&schema, &locked)
		if err != nil {
			if ctx.Err() != nil {
				return "", nil
			}
			return "", fmt.Errorf("relay lock: %w", err)
		}
		if locked {
			return schema, nil
		}
		if !sleepCtx(ctx, r.LockRetry) {
			return "", nil
		}
	}
}

// notifyChannel is the channel of the outbox trigger: channel names are
// identifiers, cut at 63 bytes like the trigger does.
func notifyChannel(schema string) string {
	ch := "outbox_" + schema
	if len(ch) > 63 {
		ch = ch[:63]
	}
	return ch
}

// waitNotify blocks until a notification or a wake-up from Committed
// arrives or wait passes, and reports whether one arrived. It then discards
// the notifications already buffered: one round serves them all.
func (r *Relay) waitNotify(ctx context.Context, conn *pgx.Conn, wait time.Duration) (bool, error) {
	select {
	case <-r.wake: // a commit while the last round ran: no need to wait
		drainNotifications(conn)
		return true, nil
	default:
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	// The watcher ends the wait on a wake-up; it has exited before woken
	// is read, so a wake-up it took is never lost.
	woken := false
	waiting, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-r.wake:
			woken = true
			cancel()
		case <-waiting:
		}
	}()
	_, err := conn.WaitForNotification(wctx)
	close(waiting)
	<-exited
	switch {
	case err == nil || woken:
		drainNotifications(conn)
		return true, nil
	case ctx.Err() == nil && wctx.Err() != nil:
		return false, nil // waited it out
	default:
		return false, err
	}
}

// drainNotifications discards the notifications conn has buffered. A done
// context makes WaitForNotification return buffered notifications only,
// without touching the connection.
func drainNotifications(conn *pgx.Conn) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for {
		if n, _ := conn.WaitForNotification(done); n == nil {
			return
		}
	}
}

// selectBatch reads the oldest rows in (txid, seq) order together with
// whether each is publishable: txid below the snapshot's xmin means its
// transaction is no longer in flight, so no row that sorts before it can
// still appear. Ready rows therefore always come first.
const selectBatch = `
SELECT id::text, subject, payload::text, coalesce(traceparent, ''),
	txid < pg_snapshot_xmin(pg_current_snapshot()),
	pg_snapshot_xmin(pg_current_snapshot())::text,
	extract(epoch FROM clock_timestamp() - created_at)::float8
FROM outbox
ORDER BY txid, seq
LIMIT $1`

type outboxRow struct {
	id, subject, payload, traceparent string
	ready                             bool
	xmin                              string
	// written is when the row's transaction wrote it, on this process's
	// clock: the database reports the age, so clock skew does not count.
	written time.Time
}

type batchResult struct {
	published int
	forced    int
	held      bool   // committed rows wait behind an open transaction
	xmin      string // the xmin they wait for, when held
	full      bool   // a whole batch went out: more may be ready
}

// publishError marks a failure on the NATS side of a batch.
type publishError struct{ err error }

func (e *publishError) Error() string { return "publish: " + e.err.Error() }
func (e *publishError) Unwrap() error { return e.err }

// batch publishes one batch and deletes what JetStream acknowledged.
func (r *Relay) batch(ctx context.Context, conn *pgx.Conn, force bool) (batchResult, error) {
	var res batchResult
	rows, err := conn.Query(ctx, selectBatch, r.BatchSize)
	if err != nil {
		return res, fmt.Errorf("select outbox: %w", err)
	}
	read := time.Now()
	batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (outboxRow, error) {
		var o outboxRow
		var age float64
		err := row.Scan(&o.id, &o.subject, &o.payload, &o.traceparent, &o.ready, &o.xmin, &age)
		o.written = read.Add(-time.Duration(age * float64(time.Second)))
		return o, err
	})
	if err != nil {
		return res, fmt.Errorf("read outbox: %w", err)
	}
	n := len(batch)
	for i, o := range batch {
		if !o.ready {
			res.held, res.xmin = true, o.xmin
			if !force {
				n = i
				break
			}
			res.forced++
		}
	}
	if n == 0 {
		return res, nil
	}
	batch = batch[:n]
	if r.onBatch != nil {
		r.onBatch(true)
		defer r.onBatch(false)
	}

	acked, dups, perr := r.publish(ctx, batch)
	if r.crashAfterPublish != nil && r.crashAfterPublish() {
		return res, errCrash
	}
	if len(acked) > 0 {
		// Delete even when ctx just ended: the rows are in the stream, and
		// leaving them would only cause re-publishes.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_, err := conn.Exec(dctx, `DELETE FROM outbox WHERE id = ANY($1::text[]::uuid[])`, acked)
		cancel()
		if err != nil {
			return res, fmt.Errorf("delete %d published rows: %w", len(acked), err)
		}
		res.published = len(acked)
		r.published.Add(int64(len(acked)))
		relayPublished.Add(int64(len(acked)))
		relayDuplicates.Add(int64(dups))
		relayForced.Add(int64(res.forced))
	}
	if perr != nil {
		return res, &publishError{err: perr}
	}
	res.full = len(batch) == r.BatchSize
	return res, nil
}

// publish sends the batch asynchronously (one burst instead of a round trip
// per event) and waits for every ack. It returns the ids JetStream stored
// (or recognised as duplicates), which are safe to delete, and the first
// error; unacked rows stay in the outbox for the next round.
func (r *Relay) publish(ctx context.Context, batch []outboxRow) (acked []string, dups int, err error) {
	futures := make([]jetstream.PubAckFuture, 0, len(batch))
	for _, o := range batch {
		h := nats.Header{}
		h.Set(jetstream.MsgIDHeader, o.id)
		if validTraceparent(o.traceparent) {
			h[traceparentHeader] = []string{o.traceparent}
		}
		f, perr := r.bus.JS.PublishMsgAsync(&nats.Msg{
			Subject: r.bus.Subject(o.subject),
			Data:    []byte(o.payload),
			Header:  h,
		})
		if perr != nil {
			err = fmt.Errorf("publish %s %s: %w", o.subject, o.id, perr)
			break
		}
		futures = append(futures, f)
	}
	wctx, cancel := context.WithTimeout(ctx, r.AckWait)
	defer cancel()
	acked = make([]string, 0, len(futures))
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			acked = append(acked, batch[i].id)
			relayLag.Record(ctx, time.Since(batch[i].written).Seconds())
			if ack.Duplicate {
				dups++
			}
		case ferr := <-f.Err():
			if err == nil {
				err = fmt.Errorf("publish %s %s: %w", batch[i].subject, batch[i].id, ferr)
			}
		case <-wctx.Done():
			if err == nil {
				err = fmt.Errorf("wait for publish acks: %w", wctx.Err())
			}
			return acked, dups, err
		}
	}
	return acked, dups, err
}

// sleepCtx waits d or until ctx ends; it reports whether ctx is still live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
