package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
	"hookline.dev/services/webhooks/internal/postgres"
	"hookline.dev/services/webhooks/internal/service"
	"hookline.dev/services/webhooks/migrations"
)

// fixture is a store on a fresh schema and a clock the test moves by
// hand: the store is given every "now", so the leases are checked at the
// instants the test names.
type fixture struct {
	t     *testing.T
	store *postgres.Store
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	pool := apptest.Database(t, "webhooks_pg", messaging.Migrations, migrations.FS)
	return &fixture{t: t, store: postgres.New(pool), now: time.Now().UTC().Truncate(time.Microsecond)}
}

// endpoint stores an enabled endpoint of a fresh organization.
func (f *fixture) endpoint() endpoint.Endpoint {
	f.t.Helper()
	d, err := endpoint.Draft{URL: "https://receiver.example/hook", EventTypes: []string{endpoint.ProjectReady}}.Validate()
	if err != nil {
		f.t.Fatal(err)
	}
	e := endpoint.New(uuid.NewString(), uuid.NewString(), "whsec_dGVzdA==", d, f.now)
	if err := f.store.InsertEndpoint(f.t.Context(), e); err != nil {
		f.t.Fatal(err)
	}
	return e
}

// deliveries stores n deliveries to e, due now, whose events occurred
// one second apart in order.
func (f *fixture) deliveries(e endpoint.Endpoint, n int) []string {
	f.t.Helper()
	ids := make([]string, n)
	for i := range ids {
		m := message.Message{Type: endpoint.ProjectReady, EventID: uuid.NewString(), OccurredAt: f.now.Add(time.Duration(i-n) * time.Second),
			Body: fmt.Appendf(nil, `{"n":%d}`, i)}
		d := delivery.New(uuid.NewString(), e, m, f.now)
		if err := f.store.InsertDelivery(f.t.Context(), d); err != nil {
			f.t.Fatal(err)
		}
		ids[i] = d.ID
	}
	return ids
}

// policy is the retry rules of the tests that record attempts: an
// endpoint is disabled at its disableAt-th failure in a row.
func policy(disableAt int) delivery.Policy {
	return delivery.Policy{Base: time.Second, Max: time.Minute, Window: 25 * time.Hour, DisableFailures: disableAt, Rand: func() float64 { return 0 }}
}

// record stores attempt a of a delivery under policy(10) as the
// dispatcher does, and takes the endpoint's next due delivery at now.
func (f *fixture) record(id string, a delivery.Attempt, now, leaseUntil time.Time) (delivery.Delivery, endpoint.Endpoint, bool, error) {
	return f.recordWith(policy(10), id, a, now, leaseUntil)
}

func (f *fixture) recordWith(p delivery.Policy, id string, a delivery.Attempt, now, leaseUntil time.Time) (delivery.Delivery, endpoint.Endpoint, bool, error) {
	return f.store.Record(f.t.Context(), id, func(d delivery.Delivery, e endpoint.Endpoint, _ service.Loader) (service.Change, error) {
		out := p.Record(d, e, a, now)
		return service.Change{Delivery: out.Delivery, Attempt: out.Delivery.History[len(out.Delivery.History)-1], Endpoint: out.Endpoint}, nil
	}, now, leaseUntil)
}

// setEnabled patches the endpoint's enabled flag as the API does.
func (f *fixture) setEnabled(e endpoint.Endpoint, on bool) {
	f.t.Helper()
	_, err := f.store.UpdateEndpoint(f.t.Context(), e.OrgID, e.ID, func(e endpoint.Endpoint) (endpoint.Endpoint, error) {
		return endpoint.Patch{Enabled: &on}.Apply(e, f.now), nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// claim leases the endpoint as a dispatcher does and takes its first
// due delivery, which must be want.
func (f *fixture) claim(e endpoint.Endpoint, want string, now, leaseUntil time.Time) {
	f.t.Helper()
	if claimed, err := f.store.ClaimEndpoints(f.t.Context(), now, leaseUntil, 1); err != nil || len(claimed) != 1 || claimed[0] != e.ID {
		f.t.Fatalf("claim: %v %v", claimed, err)
	}
	if d, _, ok, err := f.store.NextDelivery(f.t.Context(), e.ID, now, leaseUntil); err != nil || !ok || d.ID != want {
		f.t.Fatalf("next: %s %v %v, want %s", d.ID, ok, err, want)
	}
}

// claimable is what a dispatcher claiming at now would get.
func (f *fixture) claimable(now time.Time) []string {
	f.t.Helper()
	ids, err := f.store.ClaimEndpoints(f.t.Context(), now, now.Add(15*time.Second), 10)
	if err != nil {
		f.t.Fatal(err)
	}
	return ids
}

// delivery reads a delivery back as the API lists it.
func (f *fixture) delivery(e endpoint.Endpoint, id string) delivery.Delivery {
	f.t.Helper()
	ds, _, err := f.store.Deliveries(f.t.Context(), e.OrgID, e.ID, 0, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, d := range ds {
		if d.ID == id {
			return d
		}
	}
	f.t.Fatalf("delivery %s not listed", id)
	return delivery.Delivery{}
}

// An endpoint is leased to one dispatcher at a time: a second claim while
// the lease runs gets nothing, and the endpoint is claimable again once
// its lease ran out.
func TestClaimEndpointsLeasesToOneDispatcher(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	f.deliveries(e, 1)
	lease := f.now.Add(15 * time.Second)

	a, err := f.store.ClaimEndpoints(t.Context(), f.now, lease, 10)
	if err != nil || len(a) != 1 || a[0] != e.ID {
		t.Fatalf("first claim: %v %v", a, err)
	}
	b, err := f.store.ClaimEndpoints(t.Context(), f.now.Add(time.Second), lease.Add(time.Second), 10)
	if err != nil || len(b) != 0 {
		t.Fatalf("claim during the lease: %v %v", b, err)
	}
	c, err := f.store.ClaimEndpoints(t.Context(), lease, lease.Add(15*time.Second), 10)
	if err != nil || len(c) != 1 {
		t.Fatalf("claim after the lease: %v %v", c, err)
	}
}

// Claims made at the same moment by several dispatchers split the
// endpoints: none is handed to two of them.
func TestConcurrentClaimsNeverShareAnEndpoint(t *testing.T) {
	f := newFixture(t)
	const endpoints, dispatchers = 12, 4
	for range endpoints {
		f.deliveries(f.endpoint(), 1)
	}
	lease := f.now.Add(15 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	claimed := map[string]int{}
	start := make(chan struct{})
	for range dispatchers {
		wg.Go(func() {
			<-start
			ids, err := f.store.ClaimEndpoints(t.Context(), f.now, lease, endpoints)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ids {
				claimed[id]++
			}
		})
	}
	close(start)
	wg.Wait()
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("endpoint %s claimed %d times", id, n)
		}
	}
	if len(claimed) != endpoints {
		t.Errorf("%d endpoints claimed of %d", len(claimed), endpoints)
	}
}

// Dispatchers taking deliveries of the same endpoint at once never take
// the same one: the row lock is skipped, not waited for, and the taken
// delivery is no longer due once its transaction committed.
func TestNextDeliveryNeverHandsOutTheSameDeliveryTwice(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	const n = 8
	ids := f.deliveries(e, n)
	lease := f.now.Add(15 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := map[string]int{}
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			d, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, f.now, lease)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				taken[d.ID]++
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	for id, k := range taken {
		if k != 1 {
			t.Errorf("delivery %s handed out %d times", id, k)
		}
	}
	if len(taken) == 0 {
		t.Fatal("no delivery handed out")
	}
	// Whatever was not taken in the race is taken afterwards, each once,
	// and then nothing is due until the leases run out.
	for {
		d, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, f.now, lease)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if taken[d.ID]++; taken[d.ID] > 1 {
			t.Fatalf("delivery %s handed out again while leased", d.ID)
		}
	}
	if len(taken) != len(ids) {
		t.Errorf("%d of %d deliveries handed out", len(taken), len(ids))
	}
}

// Deliveries are handed out in the order their events occurred, and the
// next attempt is moved to the lease's end, committed, before the
// delivery is returned: a reader outside the dispatcher's transaction
// sees it, and the endpoint is not claimable until then.
func TestNextDeliveryBumpsTheAttemptBeforeSending(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 2)
	lease := f.now.Add(15 * time.Second)
	d, got, ok, err := f.store.NextDelivery(t.Context(), e.ID, f.now, lease)
	if err != nil || !ok {
		t.Fatalf("next: %v %v", ok, err)
	}
	if d.ID != ids[0] || got.ID != e.ID || got.Secret != e.Secret {
		t.Fatalf("handed out %s of %s, want the earliest event's %s of %s", d.ID, got.ID, ids[0], e.ID)
	}
	if stored := f.delivery(e, d.ID); !stored.NextAttemptAt.Equal(lease) || stored.Status != delivery.Pending || stored.Attempts != 0 {
		t.Fatalf("stored before the attempt: next %s (want %s), %s, %d attempts", stored.NextAttemptAt, lease, stored.Status, stored.Attempts)
	}
	if ids, err := f.store.ClaimEndpoints(t.Context(), f.now.Add(time.Second), lease, 10); err != nil || len(ids) != 0 {
		t.Fatalf("endpoint claimable during its lease: %v %v", ids, err)
	}
}

// A dispatcher that dies between taking a delivery and recording its
// attempt leaves the delivery pending with no attempt: it is not due
// before the lease runs out, and then it is handed out again, first.
func TestCrashMidSendLeavesTheDeliveryDueAfterTheLease(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 2)
	lease := f.now.Add(15 * time.Second)
	f.claim(e, ids[0], f.now, lease)
	// The dispatcher is gone: no Record. Another replica polls.
	before := lease.Add(-time.Millisecond)
	if claimed := f.claimable(before); len(claimed) != 0 {
		t.Fatalf("claimed before the lease ran out: %v", claimed)
	}
	claimed, err := f.store.ClaimEndpoints(t.Context(), lease, lease.Add(15*time.Second), 10)
	if err != nil || len(claimed) != 1 || claimed[0] != e.ID {
		t.Fatalf("claim after the lease: %v %v", claimed, err)
	}
	again, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, lease, lease.Add(15*time.Second))
	if err != nil || !ok || again.ID != ids[0] || again.Attempts != 0 {
		t.Fatalf("after the lease: %s (attempts %d) %v %v, want %s again", again.ID, again.Attempts, ok, err, ids[0])
	}
}

// Recording an attempt stores it with the delivery's new state; a
// delivered message is not handed out again, and the endpoint's lease is
// released once nothing is due.
func TestRecordStoresTheAttempt(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 1)
	lease := f.now.Add(15 * time.Second)
	d, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, f.now, lease)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	at := f.now.Add(100 * time.Millisecond)
	if _, _, ok, err := f.record(d.ID, delivery.Attempt{At: at, Code: 204, Latency: 12 * time.Millisecond}, at, lease); err != nil || ok {
		t.Fatalf("record: next %v, %v", ok, err)
	}
	got := f.delivery(e, ids[0])
	if got.Status != delivery.Succeeded || got.Attempts != 1 || len(got.History) != 1 || got.History[0].Code != 204 || got.LastCode != 204 {
		t.Fatalf("recorded %+v", got)
	}
	if _, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, lease, lease.Add(time.Minute)); err != nil || ok {
		t.Fatalf("a delivered message handed out again: %v %v", ok, err)
	}
	if claimed, err := f.store.ClaimEndpoints(t.Context(), lease, lease.Add(time.Minute), 10); err != nil || len(claimed) != 0 {
		t.Fatalf("claimed with nothing due: %v %v", claimed, err)
	}
}

// Recording an attempt leases the endpoint's next delivery in the same
// commit: the next one's attempt is moved to the new lease's end before
// it is returned, so a dispatcher dying while sending it leaves it due
// only once that lease ran out, and then it is handed out again, first,
// while the recorded one is not. A failed attempt does not hold back the
// deliveries after it.
func TestRecordLeasesTheNextDeliveryInTheSameCommit(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 3)
	lease := f.now.Add(15 * time.Second)
	f.claim(e, ids[0], f.now, lease)
	at := f.now.Add(time.Second)
	second := at.Add(15 * time.Second)
	next, got, ok, err := f.record(ids[0], delivery.Attempt{At: at, Code: 500}, at, second)
	if err != nil || !ok || next.ID != ids[1] || got.ID != e.ID || got.Secret != e.Secret {
		t.Fatalf("recorded the first, handed out %s of %s (%v %v), want %s", next.ID, got.ID, ok, err, ids[1])
	}
	if stored := f.delivery(e, ids[1]); !stored.NextAttemptAt.Equal(second) || stored.Attempts != 0 {
		t.Fatalf("next one stored with next attempt %s (want %s), %d attempts", stored.NextAttemptAt, second, stored.Attempts)
	}
	first := f.delivery(e, ids[0])
	if first.Status != delivery.Pending || first.Attempts != 1 || !first.NextAttemptAt.Equal(at.Add(500*time.Millisecond)) {
		t.Fatalf("failed first delivery stored as %s, %d attempts, next at %s", first.Status, first.Attempts, first.NextAttemptAt)
	}

	// The dispatcher dies sending the second. Before its lease ran out
	// nobody claims the endpoint, even though the first is due again.
	before := second.Add(-time.Millisecond)
	if claimed := f.claimable(before); len(claimed) != 0 {
		t.Fatalf("claimed during the lease: %v", claimed)
	}
	if claimed := f.claimable(second); len(claimed) != 1 {
		t.Fatalf("claim after the lease: %v", claimed)
	}
	var order []string
	now := second
	for {
		d, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, now, now.Add(15*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		order = append(order, d.ID)
		if _, err := f.store.UpdateDelivery(t.Context(), e.OrgID, e.ID, d.ID, func(d delivery.Delivery) delivery.Delivery {
			d.Status = delivery.Succeeded
			return d
		}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{ids[0], ids[1], ids[2]}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("after the crash handed out %v, want %v", order, want)
	}
}

// An attempt that disables the endpoint releases its lease in the same
// commit, and no further delivery is handed out: enabling the endpoint
// again makes it claimable at once, not when the lease would have run
// out.
func TestReenabledEndpointIsClaimableAtOnce(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 2)
	lease := f.now.Add(15 * time.Second)
	f.claim(e, ids[0], f.now, lease)
	at := f.now.Add(time.Second)
	next, _, ok, err := f.recordWith(policy(1), ids[0], delivery.Attempt{At: at, Code: 503}, at, at.Add(15*time.Second))
	if err != nil || ok {
		t.Fatalf("the disabling attempt handed out %s (%v %v)", next.ID, ok, err)
	}
	if got, err := f.store.Endpoint(t.Context(), e.OrgID, e.ID); err != nil || got.Enabled {
		t.Fatalf("after the disabling attempt: enabled %v, %v", got.Enabled, err)
	}
	f.setEnabled(e, true)
	soon := at.Add(time.Millisecond)
	if claimed := f.claimable(soon); len(claimed) != 1 || claimed[0] != e.ID {
		t.Fatalf("claim right after enabling again: %v", claimed)
	}
	if d, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, soon, soon.Add(15*time.Second)); err != nil || !ok || d.ID != ids[1] {
		t.Fatalf("after enabling again: %s %v %v, want %s", d.ID, ok, err, ids[1])
	}
}

// An endpoint disabled through the API while a dispatcher sends to it
// keeps its lease until that attempt is recorded: enabling it again in
// the meantime does not hand it to a second dispatcher, and the first
// carries on in order. Disabled when the attempt is recorded, it is
// released then.
func TestEndpointToggledMidSendKeepsItsLeaseUntilTheAttemptIsRecorded(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 3)
	lease := f.now.Add(15 * time.Second)
	f.claim(e, ids[0], f.now, lease)
	f.setEnabled(e, false)
	f.setEnabled(e, true)
	at := f.now.Add(time.Second)
	if claimed := f.claimable(at); len(claimed) != 0 {
		t.Fatalf("claimed by a second dispatcher mid-send: %v", claimed)
	}
	next, _, ok, err := f.record(ids[0], delivery.Attempt{At: at, Code: 204}, at, at.Add(15*time.Second))
	if err != nil || !ok || next.ID != ids[1] {
		t.Fatalf("after the toggle the dispatcher got %s (%v %v), want %s", next.ID, ok, err, ids[1])
	}

	f.setEnabled(e, false)
	if next, _, ok, err := f.record(ids[1], delivery.Attempt{At: at, Code: 204}, at, at.Add(15*time.Second)); err != nil || ok {
		t.Fatalf("disabled, yet handed out %s: %v", next.ID, err)
	}
	f.setEnabled(e, true)
	if claimed := f.claimable(at); len(claimed) != 1 {
		t.Fatalf("claim after enabling again: %v", claimed)
	}
}

// An event that only adds deliveries is stored while a dispatcher is
// recording an attempt to the same endpoint (and holds its row): the
// consumer does not queue behind the dispatcher. The wait is bounded so
// that a regression fails instead of hanging.
func TestConsumeDoesNotWaitForARecordingDispatcher(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 1)
	lease := f.now.Add(15 * time.Second)
	f.claim(e, ids[0], f.now, lease)
	var consumed int
	var consumeErr error
	_, _, _, err := f.store.Record(t.Context(), ids[0], func(d delivery.Delivery, ep endpoint.Endpoint, _ service.Loader) (service.Change, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		consumed, consumeErr = f.store.Consume(ctx, "test-clips", uuid.NewString(), e.OrgID, false, func(eps []endpoint.Endpoint) (service.Plan, error) {
			m := message.Message{Type: endpoint.ProjectReady, EventID: uuid.NewString(), OccurredAt: f.now, Body: []byte(`{}`)}
			return service.Plan{Deliveries: []delivery.Delivery{delivery.New(uuid.NewString(), eps[0], m, f.now)}}, nil
		})
		out := policy(10).Record(d, ep, delivery.Attempt{At: f.now, Code: 204}, f.now)
		return service.Change{Delivery: out.Delivery, Attempt: out.Delivery.History[0], Endpoint: out.Endpoint}, nil
	}, f.now, lease)
	if err != nil {
		t.Fatal(err)
	}
	if consumeErr != nil || consumed != 1 {
		t.Fatalf("consumed %d during the record: %v", consumed, consumeErr)
	}
}

// Another organization's endpoint and deliveries are not found.
func TestStoreIsScopedByOrganization(t *testing.T) {
	f := newFixture(t)
	e := f.endpoint()
	ids := f.deliveries(e, 1)
	other := uuid.NewString()
	if _, err := f.store.Endpoint(t.Context(), other, e.ID); !errors.Is(err, endpoint.ErrNotFound) {
		t.Errorf("endpoint: %v", err)
	}
	if _, _, err := f.store.Deliveries(t.Context(), other, e.ID, 0, 10); !errors.Is(err, endpoint.ErrNotFound) {
		t.Errorf("deliveries: %v", err)
	}
	if _, err := f.store.UpdateDelivery(t.Context(), other, e.ID, ids[0], func(d delivery.Delivery) delivery.Delivery { return d }); !errors.Is(err, delivery.ErrNotFound) {
		t.Errorf("update delivery: %v", err)
	}
	if err := f.store.DeleteEndpoint(t.Context(), other, e.ID); !errors.Is(err, endpoint.ErrNotFound) {
		t.Errorf("delete: %v", err)
	}
}
