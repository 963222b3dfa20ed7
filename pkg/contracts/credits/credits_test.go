package credits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
)

func TestReservationIDs(t *testing.T) {
	org, other := uuid.NewString(), uuid.NewString()
	id := ReservationID(org, "thumbnails.variations", "idem:k1", 0, 0)
	if u, err := uuid.Parse(id); err != nil || u.Version() != 5 {
		t.Fatalf("id %q is not a UUIDv5 (%v)", id, err)
	}
	if again := ReservationID(org, "thumbnails.variations", "idem:k1", 0, 0); again != id {
		t.Fatalf("same inputs gave %s and %s", id, again)
	}
	seen := map[string]string{id: "base"}
	for name, v := range map[string]string{
		"index":      ReservationID(org, "thumbnails.variations", "idem:k1", 1, 0),
		"generation": ReservationID(org, "thumbnails.variations", "idem:k1", 0, 1),
		"key":        ReservationID(org, "thumbnails.variations", "idem:k2", 0, 0),
		"operation":  ReservationID(org, "thumbnails.edit", "idem:k1", 0, 0),
		"org":        ReservationID(other, "thumbnails.variations", "idem:k1", 0, 0),
		// Moving a character between parts must not give the same name.
		"boundaries": ReservationID(org, "thumbnails.variations"+"i", "dem:k1", 0, 0),
	} {
		if prev, dup := seen[v]; dup {
			t.Fatalf("%s gives the same id as %s", name, prev)
		}
		seen[v] = name
	}
}

func TestKeyOf(t *testing.T) {
	if k := KeyOf(principal.Principal{RequestID: "r1", IdempotencyKey: "k1"}); k != "idem:k1" {
		t.Fatalf("with idempotency key: %q", k)
	}
	if k := KeyOf(principal.Principal{RequestID: "r1"}); k != "req:r1" {
		t.Fatalf("without idempotency key: %q", k)
	}
	if k := KeyOf(principal.Principal{}); k != "" {
		t.Fatalf("without either: %q", k)
	}
}

// env is one test's world: a schema with the outbox and the journal, a bus
// in its own namespace, and a client whose reserve calls go to billing.
type env struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	bus    *messaging.Bus
	client *Client
	org    string
	seen   chan events.ReserveRequest
}

func setup(t *testing.T, timeout time.Duration) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), testkit.Schema(t, "credits"), pgkit.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for _, m := range []fs.FS{messaging.Migrations, Migrations} {
		if err := pgkit.Migrate(ctx, pool, m); err != nil {
			t.Fatal(err)
		}
	}
	nc, err := messaging.Connect(ctx, testkit.NATSURL(t), "credits-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	bus, err := messaging.NewBus(nc, testkit.Namespace(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Billing: bus, Pool: pool, Source: "thumbnails", FailedSubject: events.ThumbnailsOperationFailed, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return &env{ctx: ctx, pool: pool, bus: bus, client: c, org: uuid.NewString(), seen: make(chan events.ReserveRequest, 100)}
}

// billing answers the reserve RPC the way billing does, with answer
// deciding the reply body; every request it receives is sent to e.seen.
func (e *env) billing(t *testing.T, answer func(ctx context.Context, req events.ReserveRequest) []byte) {
	t.Helper()
	stop, err := e.bus.Serve(e.ctx, events.BillingReserveRPC, "billing", func(ctx context.Context, data []byte) ([]byte, error) {
		var req events.ReserveRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return nil, err
		}
		e.seen <- req
		return answer(ctx, req), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
}

func reply(outcome, msg string) []byte {
	b, _ := json.Marshal(events.ReserveReply{Outcome: outcome, Message: msg})
	return b
}

func (e *env) request(key string, credits ...int64) Request {
	r := Request{OrgID: e.org, Operation: "thumbnails.variations", Key: key}
	for i, c := range credits {
		r.Items = append(r.Items, Item{Credits: c, ResourceType: "thumbnail", ResourceID: "res-" + string(rune('a'+i))})
	}
	return r
}

// outbox returns the events written to the outbox, in write order.
func (e *env) outbox(t *testing.T) []events.Envelope {
	t.Helper()
	rows, err := e.pool.Query(e.ctx, `SELECT payload FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	raws, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	out := make([]events.Envelope, len(raws))
	for i, raw := range raws {
		if out[i], err = events.Parse(raw); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// failedFor returns the reservation ids that outbox events fail, checking
// each is a thumbnails.operation.failed.v1 of the test's organization.
func (e *env) failedFor(t *testing.T) []string {
	t.Helper()
	var ids []string
	for _, ev := range e.outbox(t) {
		var d events.OperationFailed
		if err := ev.Decode(&d); err != nil {
			t.Fatal(err)
		}
		if ev.Type != events.ThumbnailsOperationFailed || ev.OrgID != e.org || ev.Source != "thumbnails" || d.Reason == "" {
			t.Fatalf("unexpected event %+v %+v", ev, d)
		}
		ids = append(ids, d.ReservationID)
	}
	return ids
}

func (e *env) state(t *testing.T, id string) string {
	t.Helper()
	var s string
	if err := e.pool.QueryRow(e.ctx, `SELECT state FROM credit_reservations WHERE reservation_id = $1`, id).Scan(&s); err != nil {
		t.Fatalf("journal row %s: %v", id, err)
	}
	return s
}

func wantCode(t *testing.T, err error, code apierr.Code) {
	t.Helper()
	if !apierr.Is(err, code) {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBillingAnswers(t *testing.T) {
	e := setup(t, 2*time.Second)
	answers := map[string][]byte{
		"ok":           reply(events.ReserveOK, ""),
		"insufficient": reply(events.ReserveInsufficientCredits, "3 credits required"),
		"quota":        reply(events.ReserveQuotaExceeded, "quota exceeded: paid operations per day (limit 5)"),
		"invalid":      reply(events.ReserveInvalid, "credits must be from 1 to 10000"),
		"garbage":      []byte(`{"outcome": 7`),
		"unknown":      reply("maybe", ""),
	}
	e.billing(t, func(_ context.Context, req events.ReserveRequest) []byte {
		return answers[req.ResourceID]
	})
	reserve := func(key string) ([]Reservation, error) {
		return e.client.Reserve(e.ctx, Request{OrgID: e.org, Operation: "thumbnails.generate", Key: key,
			Items: []Item{{Credits: 3, ResourceType: "thumbnail", ResourceID: key}}})
	}
	onlyID := func(key string) string { return ReservationID(e.org, "thumbnails.generate", key, 0, 0) }

	rs, err := reserve("ok")
	if err != nil || len(rs) != 1 || rs[0].ID != onlyID("ok") || rs[0].Credits != 3 || rs[0].OrgID != e.org {
		t.Fatalf("ok: %+v %v", rs, err)
	}
	if got := <-e.seen; got.ReservationID != rs[0].ID || got.Credits != 3 || got.OrgID != e.org || got.Operation != "thumbnails.generate" || got.ResourceType != "thumbnail" {
		t.Fatalf("billing received %+v", got)
	}
	if s := e.state(t, rs[0].ID); s != stateReserved {
		t.Fatalf("ok: journal %s", s)
	}

	_, err = reserve("insufficient")
	wantCode(t, err, apierr.InsufficientCredits)
	var ae *apierr.Error
	if errors.As(err, &ae); ae.Code.Status() != 402 || ae.Details["required"] != int64(3) {
		t.Fatalf("insufficient: %+v", ae)
	}
	_, err = reserve("quota")
	wantCode(t, err, apierr.QuotaExceeded)
	if errors.As(err, &ae); ae.Code.Status() != 403 || ae.Message != "quota exceeded: paid operations per day (limit 5)" {
		t.Fatalf("quota: %+v", ae)
	}
	// A request billing calls invalid is our bug: an internal error.
	if _, err = reserve("invalid"); err == nil || errors.As(err, &ae) {
		t.Fatalf("invalid: %v", err)
	}
	for _, key := range []string{"insufficient", "quota", "invalid"} {
		<-e.seen
		if s := e.state(t, onlyID(key)); s != stateRefused {
			t.Fatalf("%s: journal %s", key, s)
		}
	}
	if ev := e.outbox(t); len(ev) != 0 {
		t.Fatalf("refusals wrote events: %+v", ev)
	}

	// An answer we cannot read may hide an applied reservation: 503 and a
	// failed event, so billing refunds it if it was held.
	for _, key := range []string{"garbage", "unknown"} {
		_, err = reserve(key)
		wantCode(t, err, apierr.Unavailable)
		<-e.seen
		if s := e.state(t, onlyID(key)); s != stateFailed {
			t.Fatalf("%s: journal %s", key, s)
		}
	}
	if got := e.failedFor(t); !equal(got, []string{onlyID("garbage"), onlyID("unknown")}) {
		t.Fatalf("failed events for %v", got)
	}
}

func TestBillingDown(t *testing.T) {
	// A timeout far beyond the test's life: the call must end on NATS's
	// no-responders answer, which the journal tells apart from a timeout
	// (refused, no event; a timeout writes a failed event to refund).
	e := setup(t, 5*time.Minute)
	_, err := e.client.Reserve(e.ctx, e.request("idem:down", 1, 1))
	wantCode(t, err, apierr.Unavailable)
	// Nobody received the call: nothing can be charged, nothing to refund.
	if ev := e.outbox(t); len(ev) != 0 {
		t.Fatalf("events written: %+v", ev)
	}
	if s := e.state(t, ReservationID(e.org, "thumbnails.variations", "idem:down", 0, 0)); s != stateRefused {
		t.Fatalf("journal %s", s)
	}
	if s := e.state(t, ReservationID(e.org, "thumbnails.variations", "idem:down", 1, 0)); s != stateRefused {
		t.Fatalf("journal of the item never asked %s", s)
	}
}

func TestBillingSlow(t *testing.T) {
	e := setup(t, 300*time.Millisecond)
	applied := make(chan string, 1)
	gaveUp := make(chan struct{})
	e.billing(t, func(ctx context.Context, req events.ReserveRequest) []byte {
		// The caller's deadline travels with the request; billing applies
		// the reservation only after it passed, so the answer is lost.
		// (It answers once the client has given up: answering at its own
		// deadline could still beat the client's on a loaded machine.)
		<-ctx.Done()
		<-gaveUp
		applied <- req.ReservationID
		return reply(events.ReserveOK, "")
	})
	_, err := e.client.Reserve(e.ctx, e.request("idem:slow", 2))
	close(gaveUp)
	wantCode(t, err, apierr.Unavailable)
	id := ReservationID(e.org, "thumbnails.variations", "idem:slow", 0, 0)
	if got := <-applied; got != id {
		t.Fatalf("billing applied %s, want %s", got, id)
	}
	if got := e.failedFor(t); !equal(got, []string{id}) {
		t.Fatalf("failed events for %v, want [%s]", got, id)
	}
	if s := e.state(t, id); s != stateFailed {
		t.Fatalf("journal %s", s)
	}
}

// TestAllOrNothing: when one item of a request is refused or lost, every
// reservation already made is released and nothing after it is asked for.
func TestAllOrNothing(t *testing.T) {
	e := setup(t, 300*time.Millisecond)
	lost := make(chan struct{})
	e.billing(t, func(_ context.Context, req events.ReserveRequest) []byte {
		switch req.ResourceID {
		case "res-c":
			if req.Operation == "thumbnails.variations" {
				return reply(events.ReserveInsufficientCredits, "")
			}
			// The clips variant: the answer never comes while the
			// client waits (answering at the handler's own deadline
			// could still beat the client's on a loaded machine).
			<-lost
		}
		return reply(events.ReserveOK, "")
	})
	t.Cleanup(func() { close(lost) }) // runs before the responder stops
	id := func(op string, i int) string { return ReservationID(e.org, op, "idem:multi", i, 0) }

	_, err := e.client.Reserve(e.ctx, e.request("idem:multi", 1, 1, 1, 1))
	wantCode(t, err, apierr.InsufficientCredits)
	if got := e.failedFor(t); !equal(got, []string{id("thumbnails.variations", 0), id("thumbnails.variations", 1)}) {
		t.Fatalf("released %v, want items 0 and 1", got)
	}
	for i, want := range []string{stateFailed, stateFailed, stateRefused, stateRefused} {
		if s := e.state(t, id("thumbnails.variations", i)); s != want {
			t.Fatalf("item %d: journal %s, want %s", i, s, want)
		}
	}

	req := e.request("idem:multi", 1, 1, 1, 1)
	req.Operation = "clips.render"
	_, err = e.client.Reserve(e.ctx, req)
	wantCode(t, err, apierr.Unavailable)
	// Items 0 and 1 were held, item 2 may have been; item 3 never asked.
	if got := e.failedFor(t)[2:]; !equal(got, []string{id("clips.render", 0), id("clips.render", 1), id("clips.render", 2)}) {
		t.Fatalf("released %v, want items 0 to 2", got)
	}
	// Every request billing took was sent to e.seen before the answers
	// the client has seen (or given up on); drain without closing, since
	// a handler may still hold the channel.
	asked := map[string]int{}
	for drained := false; !drained; {
		select {
		case r := <-e.seen:
			asked[r.ResourceID]++
		default:
			drained = true
		}
	}
	if asked["res-d"] != 0 || asked["res-a"] != 2 || asked["res-c"] != 2 {
		t.Fatalf("billing was asked for %v", asked)
	}
}

// TestRetries: the same request reserves once while it runs, and a new
// run after its reservations ended takes new ids.
func TestRetries(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	first, err := e.client.Reserve(e.ctx, e.request("req:r1", 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if first[0].ID != ReservationID(e.org, "thumbnails.variations", "req:r1", 0, 0) || first[1].ID != ReservationID(e.org, "thumbnails.variations", "req:r1", 1, 0) {
		t.Fatalf("ids %+v", first)
	}
	<-e.seen
	<-e.seen
	_, err = e.client.Reserve(e.ctx, e.request("req:r1", 1, 2))
	wantCode(t, err, apierr.IdempotencyConflict)

	// Item 0 failed, item 1 completed.
	done := events.Envelope{}
	err = pgx.BeginFunc(e.ctx, e.pool, func(tx pgx.Tx) error {
		if err := e.client.Fail(e.ctx, tx, first[0], "render error"); err != nil {
			return err
		}
		if err := e.client.Fail(e.ctx, tx, first[0], "again"); err != nil {
			return err // failing twice is one failure
		}
		done, err = events.New(e.ctx, events.ThumbnailsOperationCompleted, "thumbnails", e.org,
			events.OperationCompleted{ReservationID: first[1].ID, Operation: first[1].Operation, ResourceID: first[1].ResourceID})
		if err != nil {
			return err
		}
		return e.client.Complete(e.ctx, tx, first[1], done)
	})
	if err != nil {
		t.Fatal(err)
	}
	ev := e.outbox(t)
	if len(ev) != 2 || ev[0].Type != events.ThumbnailsOperationFailed || ev[1].ID != done.ID {
		t.Fatalf("outbox %+v", ev)
	}
	// The first terminal outcome wins.
	err = pgx.BeginFunc(e.ctx, e.pool, func(tx pgx.Tx) error { return e.client.Complete(e.ctx, tx, first[0], done) })
	if !errors.Is(err, ErrSettled) {
		t.Fatalf("complete after fail: %v", err)
	}
	err = pgx.BeginFunc(e.ctx, e.pool, func(tx pgx.Tx) error { return e.client.Fail(e.ctx, tx, first[1], "late") })
	if !errors.Is(err, ErrSettled) {
		t.Fatalf("fail after complete: %v", err)
	}
	err = pgx.BeginFunc(e.ctx, e.pool, func(tx pgx.Tx) error {
		return e.client.Fail(e.ctx, tx, Reservation{ID: uuid.NewString(), OrgID: e.org}, "x")
	})
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("fail unknown: %v", err)
	}

	second, err := e.client.Reserve(e.ctx, e.request("req:r1", 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range second {
		if r.ID != ReservationID(e.org, "thumbnails.variations", "req:r1", i, 1) || r.ID == first[i].ID {
			t.Fatalf("second run item %d: id %s (first %s)", i, r.ID, first[i].ID)
		}
		if got := <-e.seen; got.ReservationID != r.ID {
			t.Fatalf("billing asked for %s, want %s", got.ReservationID, r.ID)
		}
	}
}

func TestCompleteChecksTheEvent(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	rs, err := e.client.Reserve(e.ctx, e.request("idem:x", 1))
	if err != nil {
		t.Fatal(err)
	}
	for name, ev := range map[string]events.Envelope{
		"failed subject": {Type: events.ThumbnailsOperationFailed, OrgID: e.org},
		"other fact":     {Type: events.ThumbnailsThumbnailCreated, OrgID: e.org},
		"other org":      {Type: events.ThumbnailsOperationCompleted, OrgID: uuid.NewString()},
	} {
		err := pgx.BeginFunc(e.ctx, e.pool, func(tx pgx.Tx) error { return e.client.Complete(e.ctx, tx, rs[0], ev) })
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
	if s := e.state(t, rs[0].ID); s != stateReserved {
		t.Fatalf("journal %s", s)
	}
}

func TestRecover(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	// A crash during the reserve call leaves a row `reserving`.
	crashed, _, err := e.client.open(e.ctx, e.request("idem:crash", 5))
	if err != nil {
		t.Fatal(err)
	}
	work, err := e.client.Reserve(e.ctx, e.request("idem:work", 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := e.client.Reserve(e.ctx, e.request("idem:fresh", 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(e.ctx, `UPDATE credit_reservations SET updated_at = now() - interval '1 hour'
		WHERE reservation_id <> $1`, fresh[0].ID); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asked := map[string]int{}
	resolve := func(ctx context.Context, r Reservation) (Resolution, error) {
		mu.Lock()
		asked[r.ID]++
		mu.Unlock()
		switch r.Item {
		case 0:
			ev, err := events.New(ctx, events.ThumbnailsOperationCompleted, "thumbnails", r.OrgID, events.OperationCompleted{ReservationID: r.ID})
			return Resolution{Verdict: Completed, Event: ev}, err
		case 1:
			return Resolution{Verdict: Failed, Reason: "no result after restart"}, nil
		}
		return Resolution{Verdict: Running}, nil
	}
	if _, err := e.client.Recover(e.ctx, time.Second, resolve); err == nil {
		t.Fatal("a grace shorter than the reserve timeout was accepted")
	}
	n, err := e.client.Recover(e.ctx, 10*time.Minute, resolve)
	if err != nil || n != 3 {
		t.Fatalf("recover settled %d (%v), want 3", n, err)
	}
	if len(asked) != 3 || asked[work[0].ID] != 1 || asked[work[1].ID] != 1 || asked[work[2].ID] != 1 {
		t.Fatalf("resolver asked about %v; the unconfirmed and the fresh ones are not its business", asked)
	}
	for id, want := range map[string]string{
		crashed[0].ID: stateFailed, work[0].ID: stateCompleted, work[1].ID: stateFailed, work[2].ID: stateReserved, fresh[0].ID: stateReserved,
	} {
		if s := e.state(t, id); s != want {
			t.Fatalf("%s: journal %s, want %s", id, s, want)
		}
	}
	got := map[string]string{}
	for _, ev := range e.outbox(t) {
		var d events.Settlement
		if err := ev.Decode(&d); err != nil {
			t.Fatal(err)
		}
		got[d.ReservationID] = ev.Type
	}
	if len(got) != 3 || got[crashed[0].ID] != events.ThumbnailsOperationFailed || got[work[0].ID] != events.ThumbnailsOperationCompleted ||
		got[work[1].ID] != events.ThumbnailsOperationFailed {
		t.Fatalf("outbox %v", got)
	}
	// The running one was looked at just now: a second pass leaves it be.
	if n, err := e.client.Recover(e.ctx, 10*time.Minute, resolve); err != nil || n != 0 || asked[work[2].ID] != 1 {
		t.Fatalf("second pass settled %d (%v), asked %v", n, err, asked)
	}
}

// TestRefund: reservations whose work stored nothing are failed together,
// even once the request's context is gone, and a refund of one already
// completed fails them all (nothing is refunded twice or after a charge).
func TestRefund(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	rs, err := e.client.Reserve(e.ctx, e.request("idem:refund", 1, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	hungUp, cancel := context.WithCancel(e.ctx)
	cancel()
	if err := e.client.Refund(hungUp, "the engine failed", rs[0], rs[1]); err != nil {
		t.Fatal(err)
	}
	if got := e.failedFor(t); !equal(got, []string{rs[0].ID, rs[1].ID}) {
		t.Fatalf("failed events for %v", got)
	}
	if err := e.client.Refund(e.ctx, "again", rs[0]); err != nil {
		t.Fatalf("refunding a refunded reservation: %v", err)
	}

	done, err := events.New(e.ctx, events.ThumbnailsOperationCompleted, "thumbnails", e.org,
		events.OperationCompleted{ReservationID: rs[2].ID, Operation: rs[2].Operation, ResourceID: rs[2].ResourceID})
	if err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(e.ctx, e.pool, func(tx pgx.Tx) error { return e.client.Complete(e.ctx, tx, rs[2], done) }); err != nil {
		t.Fatal(err)
	}
	other, err := e.client.Reserve(e.ctx, e.request("idem:refund-2", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.client.Refund(e.ctx, "late", other[0], rs[2]); !errors.Is(err, ErrSettled) {
		t.Fatalf("refund of a completed reservation: %v", err)
	}
	if s := e.state(t, other[0].ID); s != stateReserved {
		t.Fatalf("journal %s: a failed refund failed the rest anyway", s)
	}
}

// TestRecoverOrphans: the reservations of a process that died are
// settled by the next pass of another (or the restarted) process at once,
// long before their grace, while a live process's are left alone; one
// whose work outlives its process (Running) becomes the judge's own.
func TestRecoverOrphans(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	asked := map[string]int{}
	resolve := func(ctx context.Context, r Reservation) (Resolution, error) {
		asked[r.ID]++
		if r.Item == 0 {
			ev, err := events.New(ctx, events.ThumbnailsOperationCompleted, "thumbnails", r.OrgID, events.OperationCompleted{ReservationID: r.ID})
			return Resolution{Verdict: Completed, Event: ev}, err
		}
		return Resolution{Verdict: Running}, nil
	}
	dead := e.started(t, resolve)
	e.start(t, e.client, resolve)
	crashed, _, err := dead.open(e.ctx, e.request("idem:crash", 5)) // died during the reserve call
	if err != nil {
		t.Fatal(err)
	}
	work, err := dead.Reserve(e.ctx, e.request("idem:work", 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	mine, err := e.client.Reserve(e.ctx, e.request("idem:mine", 1))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.client.Recover(e.ctx, 10*time.Minute, resolve); err != nil || n != 0 || len(asked) != 0 {
		t.Fatalf("while every owner lives: settled %d (%v), asked %v", n, err, asked)
	}

	e.kill(t, dead)
	n, err := e.client.Recover(e.ctx, 10*time.Minute, resolve)
	if err != nil || n != 2 {
		t.Fatalf("after the owner died: settled %d (%v), want 2", n, err)
	}
	if len(asked) != 2 || asked[work[0].ID] != 1 || asked[work[1].ID] != 1 {
		t.Fatalf("resolver asked about %v", asked)
	}
	for id, want := range map[string]string{
		crashed[0].ID: stateFailed, work[0].ID: stateCompleted, work[1].ID: stateReserved, mine[0].ID: stateReserved,
	} {
		if s := e.state(t, id); s != want {
			t.Fatalf("%s: journal %s, want %s", id, s, want)
		}
	}
	if owner := e.owner(t, work[1].ID); owner != e.client.owner.id.Load() {
		t.Fatalf("the running one is owned by %d, want the judge %d", owner, e.client.owner.id.Load())
	}
	// Adopted, it waits for its grace like the judge's own work.
	if n, err := e.client.Recover(e.ctx, 10*time.Minute, resolve); err != nil || n != 0 || asked[work[1].ID] != 1 {
		t.Fatalf("second pass settled %d (%v), asked %v", n, err, asked)
	}
}

// TestOwnerLockTakenAgain: a lost owner connection is replaced under the
// same number, so the process's reservations in flight stay its own.
func TestOwnerLockTakenAgain(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.start(t, e.client, failAll)
	id := e.client.owner.id.Load()
	if _, err := e.pool.Exec(e.ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND objid = $1::bigint::oid`, int64(id)); err != nil {
		t.Fatal(err)
	}
	if err := e.client.keepOwner(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.client.owner.id.Load(); got != id {
		t.Fatalf("owner %d, want %d again", got, id)
	}
	var held bool
	if err := e.pool.QueryRow(e.ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND objid = $1::bigint::oid)`,
		int64(id)).Scan(&held); err != nil || !held {
		t.Fatalf("lock held %v (%v)", held, err)
	}
}

// failAll judges every reservation failed (nothing was stored).
func failAll(context.Context, Reservation) (Resolution, error) {
	return Resolution{Verdict: Failed, Reason: "nothing was stored"}, nil
}

// start makes c an owner whose orphans resolve judges, until the test
// ends.
func (e *env) start(t *testing.T, c *Client, resolve Resolver) {
	t.Helper()
	if err := c.Start(e.ctx, resolve); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
}

// started is another process of the service, started with resolve.
func (e *env) started(t *testing.T, resolve Resolver) *Client {
	t.Helper()
	c, err := New(Config{Billing: e.bus, Pool: e.pool, Source: "thumbnails", FailedSubject: events.ThumbnailsOperationFailed, Timeout: e.client.cfg.Timeout})
	if err != nil {
		t.Fatal(err)
	}
	e.start(t, c, resolve)
	return c
}

// kill ends c's owner session, as a killed process's ends, and waits
// until Postgres has dropped its lock.
func (e *env) kill(t *testing.T, c *Client) {
	t.Helper()
	id := c.owner.id.Load()
	c.Close()
	testkit.Eventually(t, 10*time.Second, "the owner lock dropped", func() bool {
		var held bool
		if err := e.pool.QueryRow(e.ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND objid = $1::bigint::oid)`,
			int64(id)).Scan(&held); err != nil {
			t.Fatal(err)
		}
		return !held
	})
}

// settlements maps each reservation with a terminal event in the outbox
// to the types of its events, in write order.
func (e *env) settlements(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, ev := range e.outbox(t) {
		var d events.Settlement
		if err := ev.Decode(&d); err != nil {
			t.Fatal(err)
		}
		out[d.ReservationID] = append(out[d.ReservationID], ev.Type)
	}
	return out
}

func (e *env) owner(t *testing.T, id string) int32 {
	t.Helper()
	var owner int32
	if err := e.pool.QueryRow(e.ctx, `SELECT owner FROM credit_reservations WHERE reservation_id = $1`, id).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	return owner
}

// TestRetryAfterTheOwnerDied: a client retrying a request whose process
// died does not wait for a recovery pass. The retry recovers the dead
// process's reservations of the request at once, as the pass would (each
// settled once, as the resolver says), and the request runs again under
// the next generation. One whose work outlives its process (Running) is
// still in progress, and so is the request of a live process.
func TestRetryAfterTheOwnerDied(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	asked := map[string]int{}
	resolve := func(ctx context.Context, r Reservation) (Resolution, error) {
		asked[r.ID]++
		switch {
		case r.Operation == "clips.render":
			return Resolution{Verdict: Running}, nil
		case r.Item == 0:
			ev, err := events.New(ctx, events.ThumbnailsOperationCompleted, "thumbnails", r.OrgID, events.OperationCompleted{ReservationID: r.ID})
			return Resolution{Verdict: Completed, Event: ev}, err
		}
		return Resolution{Verdict: Failed, Reason: "no result after the restart"}, nil
	}
	dead, live := e.started(t, resolve), e.started(t, resolve)
	e.start(t, e.client, resolve)
	render := e.request("idem:render", 1)
	render.Operation = "clips.render"
	work, err := dead.Reserve(e.ctx, e.request("idem:work", 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	unconfirmed, _, err := dead.open(e.ctx, e.request("idem:unconfirmed", 2)) // died during the reserve call
	if err != nil {
		t.Fatal(err)
	}
	rendering, err := dead.Reserve(e.ctx, render)
	if err != nil {
		t.Fatal(err)
	}
	running, err := live.Reserve(e.ctx, e.request("idem:live", 1))
	if err != nil {
		t.Fatal(err)
	}
	// While its process lives, a request is in progress.
	_, err = e.client.Reserve(e.ctx, e.request("idem:work", 1, 1))
	wantCode(t, err, apierr.IdempotencyConflict)

	e.kill(t, dead)
	again, err := e.client.Reserve(e.ctx, e.request("idem:work", 1, 1))
	if err != nil {
		t.Fatalf("retry after the owner died: %v", err)
	}
	for i, r := range again {
		if r.ID != ReservationID(e.org, "thumbnails.variations", "idem:work", i, 1) {
			t.Fatalf("retry item %d: id %s, want generation 1", i, r.ID)
		}
	}
	if _, err := e.client.Reserve(e.ctx, e.request("idem:unconfirmed", 2)); err != nil {
		t.Fatalf("retry of the unconfirmed request: %v", err)
	}
	_, err = e.client.Reserve(e.ctx, render)
	wantCode(t, err, apierr.IdempotencyConflict)
	_, err = e.client.Reserve(e.ctx, e.request("idem:live", 1))
	wantCode(t, err, apierr.IdempotencyConflict)

	if len(asked) != 3 || asked[work[0].ID] != 1 || asked[work[1].ID] != 1 || asked[rendering[0].ID] != 1 {
		t.Fatalf("resolver asked about %v", asked)
	}
	for id, want := range map[string]string{
		work[0].ID: stateCompleted, work[1].ID: stateFailed, unconfirmed[0].ID: stateFailed,
		again[0].ID: stateReserved, again[1].ID: stateReserved, rendering[0].ID: stateReserved, running[0].ID: stateReserved,
	} {
		if s := e.state(t, id); s != want {
			t.Fatalf("%s: journal %s, want %s", id, s, want)
		}
	}
	got := e.settlements(t)
	if len(got) != 3 || !equal(got[work[0].ID], []string{events.ThumbnailsOperationCompleted}) ||
		!equal(got[work[1].ID], []string{events.ThumbnailsOperationFailed}) || !equal(got[unconfirmed[0].ID], []string{events.ThumbnailsOperationFailed}) {
		t.Fatalf("settlements %v", got)
	}
	// The render still running is the retrying process's now, and the
	// pass has nothing left to do.
	if o := e.owner(t, rendering[0].ID); o != e.client.owner.id.Load() {
		t.Fatalf("the running reservation is owned by %d, want %d", o, e.client.owner.id.Load())
	}
	if n, err := e.client.Recover(e.ctx, 10*time.Minute, resolve); err != nil || n != 0 {
		t.Fatalf("pass after the retries settled %d (%v)", n, err)
	}
}

// judge fails every reservation it is asked about, counting them; while
// it holds one (its row locked), it runs during when set.
type judge struct {
	mu     sync.Mutex
	asked  map[string]int
	during func()
}

func (j *judge) resolve(_ context.Context, r Reservation) (Resolution, error) {
	j.mu.Lock()
	if j.asked == nil {
		j.asked = map[string]int{}
	}
	j.asked[r.ID]++
	during := j.during
	j.mu.Unlock()
	if during != nil {
		during()
	}
	return Resolution{Verdict: Failed, Reason: "nothing was stored"}, nil
}

// waitLockWaiter waits until a transaction waits for the row of an
// item's last reservation (in open), which another one holds.
func (e *env) waitLockWaiter(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "a retry waiting for the reservation's row", func() bool {
		var waiting bool
		if err := e.pool.QueryRow(e.ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE '%WHERE base_id = $1%')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		return waiting
	})
}

// TestRecoveryRaces: a dead process's reservation is settled once
// whoever meets it at the same time: a retry and a pass, in either order,
// two retries, two passes. A pass skips a row another holds; a retry
// waits for it and then runs, or is the duplicate of a retry that runs.
// TestManyRetriesAfterTheOwnerDied: after a crash, more clients retry
// than the pool has connections. Each retry recovers the dead process's
// reservation in a transaction while its Resolver asks the same pool
// whether a result was stored; every retry must get through, not hold
// every connection while each resolver waits for one.
func TestManyRetriesAfterTheOwnerDied(t *testing.T) {
	e := setup(t, 2*time.Second) // MaxConns 4
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	resolve := func(ctx context.Context, r Reservation) (Resolution, error) {
		var stored bool // as a service's HasResult asks
		err := e.pool.QueryRow(ctx, `SELECT false`).Scan(&stored)
		return Resolution{Verdict: Failed, Reason: "no result after the restart"}, err
	}
	dead := e.started(t, resolve)
	e.start(t, e.client, resolve)
	const retries = 8
	for i := range retries {
		if _, err := dead.Reserve(e.ctx, e.request(fmt.Sprintf("idem:crowd-%d", i), 1)); err != nil {
			t.Fatal(err)
		}
	}
	e.kill(t, dead)
	// A deadline, so that a pool held by waiting transactions fails the
	// test instead of hanging it.
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	errs := make([]error, retries)
	var wg sync.WaitGroup
	for i := range retries {
		wg.Go(func() {
			_, errs[i] = e.client.Reserve(ctx, e.request(fmt.Sprintf("idem:crowd-%d", i), 1))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("retry %d: %v", i, err)
		}
	}
}

// A pool of one connection is refused at start: a recovery would hold it
// while its Resolver waited for another.
func TestNewRefusesAOneConnectionPool(t *testing.T) {
	cfg, err := pgxpool.ParseConfig("postgres://postgres@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg) // connects lazily
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := New(Config{Billing: noBilling{}, Pool: pool, Source: "thumbnails", FailedSubject: events.ThumbnailsOperationFailed}); err == nil ||
		!strings.Contains(err.Error(), "HOOKLINE_DB_MAX_CONNS") {
		t.Fatalf("one connection: %v", err)
	}
}

// noBilling is a Requester never asked.
type noBilling struct{}

func (noBilling) Request(context.Context, string, any, any) error { return errors.New("not asked") }

func TestRecoveryRaces(t *testing.T) {
	e := setup(t, 2*time.Second)
	e.billing(t, func(context.Context, events.ReserveRequest) []byte { return reply(events.ReserveOK, "") })
	var first, second judge
	e.start(t, e.client, first.resolve)
	other := e.started(t, second.resolve)
	orphan := func(key string) Reservation {
		t.Helper()
		dead := e.started(t, failAll)
		rs, err := dead.Reserve(e.ctx, e.request(key, 1))
		if err != nil {
			t.Fatal(err)
		}
		e.kill(t, dead)
		return rs[0]
	}
	settledOnce := func(r Reservation, by *judge) {
		t.Helper()
		if got := e.settlements(t)[r.ID]; !equal(got, []string{events.ThumbnailsOperationFailed}) {
			t.Fatalf("%s settled by %v", r.ID, got)
		}
		for _, j := range []*judge{&first, &second} {
			want := 0
			if j == by {
				want = 1
			}
			j.mu.Lock()
			n := j.asked[r.ID]
			j.mu.Unlock()
			if n != want {
				t.Fatalf("a resolver was asked about %s %d times, want %d", r.ID, n, want)
			}
		}
	}
	set := func(j *judge, during func()) {
		j.mu.Lock()
		j.during = during
		j.mu.Unlock()
	}

	// A retry recovering the reservation; a pass meanwhile skips it.
	r := orphan("idem:retry-then-pass")
	set(&first, func() {
		if n, err := other.Recover(e.ctx, 10*time.Minute, second.resolve); err != nil || n != 0 {
			t.Errorf("pass while a retry recovers: settled %d (%v)", n, err)
		}
	})
	if _, err := e.client.Reserve(e.ctx, e.request("idem:retry-then-pass", 1)); err != nil {
		t.Fatal(err)
	}
	settledOnce(r, &first)

	// A pass recovering it; a retry waits for the row, then runs.
	r = orphan("idem:pass-then-retry")
	retried := make(chan error, 2)
	set(&first, func() {
		go func() {
			_, err := other.Reserve(e.ctx, e.request("idem:pass-then-retry", 1))
			retried <- err
		}()
		e.waitLockWaiter(t)
	})
	if n, err := e.client.Recover(e.ctx, 10*time.Minute, first.resolve); err != nil || n != 1 {
		t.Fatalf("pass settled %d (%v)", n, err)
	}
	if err := <-retried; err != nil {
		t.Fatalf("retry after the pass: %v", err)
	}
	settledOnce(r, &first)

	// Two retries: one recovers and the other waits; one runs, the other
	// is its duplicate in progress.
	r = orphan("idem:two-retries")
	set(&first, func() {
		go func() {
			_, err := other.Reserve(e.ctx, e.request("idem:two-retries", 1))
			retried <- err
		}()
		e.waitLockWaiter(t)
	})
	_, err := e.client.Reserve(e.ctx, e.request("idem:two-retries", 1))
	errs := []error{err, <-retried}
	if (errs[0] == nil) == (errs[1] == nil) || !apierr.Is(errors.Join(errs...), apierr.IdempotencyConflict) {
		t.Fatalf("two retries: %v, want one to run and one 409", errs)
	}
	settledOnce(r, &first)
	var open int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM credit_reservations WHERE base_id = $1 AND state = 'reserved'`,
		ReservationID(e.org, "thumbnails.variations", "idem:two-retries", 0, 0)).Scan(&open); err != nil || open != 1 {
		t.Fatalf("%d reservations of the request reserved (%v), want 1", open, err)
	}

	// Two passes: the second skips what the first holds.
	r = orphan("idem:two-passes")
	set(&first, func() {
		if n, err := other.Recover(e.ctx, 10*time.Minute, second.resolve); err != nil || n != 0 {
			t.Errorf("second pass: settled %d (%v)", n, err)
		}
	})
	if n, err := e.client.Recover(e.ctx, 10*time.Minute, first.resolve); err != nil || n != 1 {
		t.Fatalf("first pass settled %d (%v)", n, err)
	}
	settledOnce(r, &first)
}
