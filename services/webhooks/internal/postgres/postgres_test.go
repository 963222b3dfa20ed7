package postgres_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

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
	pool := apptest.Database(t, "webhooks_pg", migrations.FS)
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
	if claimed, err := f.store.ClaimEndpoints(t.Context(), f.now, lease, 1); err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	d, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, f.now, lease)
	if err != nil || !ok || d.ID != ids[0] {
		t.Fatalf("next: %v %v %v", d.ID, ok, err)
	}
	// The dispatcher is gone: no Record. Another replica polls.
	before := lease.Add(-time.Millisecond)
	if claimed, err := f.store.ClaimEndpoints(t.Context(), before, before.Add(15*time.Second), 10); err != nil || len(claimed) != 0 {
		t.Fatalf("claimed before the lease ran out: %v %v", claimed, err)
	}
	claimed, err := f.store.ClaimEndpoints(t.Context(), lease, lease.Add(15*time.Second), 10)
	if err != nil || len(claimed) != 1 || claimed[0] != e.ID {
		t.Fatalf("claim after the lease: %v %v", claimed, err)
	}
	again, _, ok, err := f.store.NextDelivery(t.Context(), e.ID, lease, lease.Add(15*time.Second))
	if err != nil || !ok || again.ID != d.ID || again.Attempts != 0 {
		t.Fatalf("after the lease: %s (attempts %d) %v %v, want %s again", again.ID, again.Attempts, ok, err, d.ID)
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
	p := delivery.Policy{Base: time.Second, Max: time.Minute, Window: 25 * time.Hour, DisableFailures: 10, DisableAfter: 24 * time.Hour}
	at := f.now.Add(100 * time.Millisecond)
	a := delivery.Attempt{At: at, Code: 204, Latency: 12 * time.Millisecond}
	err = f.store.Record(t.Context(), d.ID, func(d delivery.Delivery, e endpoint.Endpoint, _ service.Loader) (service.Change, error) {
		out := p.Record(d, e, a, at)
		return service.Change{Delivery: out.Delivery, Attempt: out.Delivery.History[0], Endpoint: out.Endpoint}, nil
	})
	if err != nil {
		t.Fatal(err)
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
