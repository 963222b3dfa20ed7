package service_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
	"hookline.dev/services/webhooks/internal/postgres"
	"hookline.dev/services/webhooks/internal/service"
	"hookline.dev/services/webhooks/migrations"
)

// receiver is a webhook receiver on loopback that notes the deliveries
// it is sent (by webhook-id, in arrival order), fails the ones named in
// fail once each, and notes whether two attempts ever overlapped.
type receiver struct {
	srv *httptest.Server

	mu         sync.Mutex
	fail       map[string]bool
	got        []string
	inFlight   int
	overlapped bool
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{fail: map[string]bool{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		r.inFlight++
		r.overlapped = r.overlapped || r.inFlight > 1
		r.got = append(r.got, id)
		failing := r.fail[id]
		delete(r.fail, id)
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			r.inFlight--
			r.mu.Unlock()
		}()
		if failing {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// failOnce makes the next attempt of each delivery named fail.
func (r *receiver) failOnce(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		r.fail[id] = true
	}
}

func (r *receiver) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// dispatcher is a service on a fresh schema whose receivers may be on
// loopback, with a lease far longer than the tests wait: a delivery only
// moves on when the lease is released, never because one ran out.
type dispatcher struct {
	t     *testing.T
	svc   *service.Service
	store *postgres.Store
}

func newDispatcher(t *testing.T, disableAt int) *dispatcher {
	store := postgres.New(apptest.Database(t, "webhooks_dispatch", messaging.Migrations, migrations.FS))
	svc := &service.Service{
		Store:   store,
		Fetcher: safefetch.New(safefetch.Config{Timeout: time.Minute, AllowHosts: []string{"127.0.0.1"}, MaxRedirects: -1}),
		Policy: delivery.Policy{Base: time.Millisecond, Max: time.Millisecond, Window: 25 * time.Hour,
			DisableFailures: disableAt, DisableAfter: 0},
		MaxResponse: 1024,
		Timeout:     time.Minute,
		Workers:     4,
		Poll:        50 * time.Millisecond,
		Log:         slog.New(slog.DiscardHandler),
	}
	svc.Init()
	return &dispatcher{t: t, svc: svc, store: store}
}

func (d *dispatcher) run() { testkit.Background(d.t, "dispatcher", d.svc.Run) }

// endpoint stores an enabled endpoint of a fresh organization sending to r.
func (d *dispatcher) endpoint(r *receiver) endpoint.Endpoint {
	d.t.Helper()
	draft, err := endpoint.Draft{URL: r.srv.URL + "/hook", EventTypes: []string{endpoint.ProjectReady}}.Validate()
	if err != nil {
		d.t.Fatal(err)
	}
	e := endpoint.New(uuid.NewString(), uuid.NewString(), "whsec_dGVzdA==", draft, time.Now())
	if err := d.store.InsertEndpoint(d.t.Context(), e); err != nil {
		d.t.Fatal(err)
	}
	return e
}

// deliveries stores n deliveries to e whose events occurred in order.
func (d *dispatcher) deliveries(e endpoint.Endpoint, n int) []string {
	d.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	ids := make([]string, n)
	for i := range ids {
		m := message.Message{Type: endpoint.ProjectReady, EventID: uuid.NewString(), OccurredAt: now.Add(time.Duration(i-n) * time.Millisecond),
			Body: fmt.Appendf(nil, `{"n":%d}`, i)}
		del := delivery.New(uuid.NewString(), e, m, now)
		if err := d.store.InsertDelivery(d.t.Context(), del); err != nil {
			d.t.Fatal(err)
		}
		ids[i] = del.ID
	}
	return ids
}

// statuses counts the endpoint's deliveries by status.
func (d *dispatcher) statuses(e endpoint.Endpoint) map[delivery.Status]int {
	ds, _, err := d.store.Deliveries(context.WithoutCancel(d.t.Context()), e.OrgID, e.ID, 0, 100)
	if err != nil {
		d.t.Fatal(err)
	}
	n := map[delivery.Status]int{}
	for _, del := range ds {
		n[del.Status]++
	}
	return n
}

// The dispatcher sends an endpoint's deliveries one at a time in the
// order their events occurred, each once; one whose attempt failed is
// retried without holding back those after it.
func TestDispatcherSendsInOrderOnceEach(t *testing.T) {
	d := newDispatcher(t, 100)
	r := newReceiver(t)
	e := d.endpoint(r)
	ids := d.deliveries(e, 20)
	r.failOnce(ids[3])
	d.run()
	testkit.Eventually(t, 30*time.Second, "every delivery made", func() bool { return d.statuses(e)[delivery.Succeeded] == len(ids) })

	got := r.received()
	first := slices.Index(got, ids[3])
	retried := first + 1 + slices.Index(got[first+1:], ids[3])
	if len(got) != len(ids)+1 || first < 0 || retried == first {
		t.Fatalf("receiver got %d attempts (%v), want %d with %s twice", len(got), got, len(ids)+1, ids[3])
	}
	if firsts := slices.Delete(slices.Clone(got), retried, retried+1); !slices.Equal(firsts, ids) {
		t.Errorf("first attempts in order %v, want %v", firsts, ids)
	}
	if retried <= 4 {
		t.Errorf("the retry of %s came at %d, before the delivery after it", ids[3], retried)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.overlapped {
		t.Error("two attempts to the endpoint overlapped")
	}
}

// An endpoint disabled by a failing attempt and enabled again through the
// API gets the deliveries it held back at once, without waiting for the
// lease of the attempt that disabled it (a minute here) to run out.
func TestReenabledEndpointResumesAtOnce(t *testing.T) {
	d := newDispatcher(t, 1)
	r := newReceiver(t)
	e := d.endpoint(r)
	ids := d.deliveries(e, 3)
	r.failOnce(ids[0])
	d.run()
	testkit.Eventually(t, 30*time.Second, "endpoint disabled", func() bool {
		got, err := d.svc.Endpoint(t.Context(), e.OrgID, e.ID)
		return err == nil && !got.Enabled
	})
	if got := r.received(); !slices.Equal(got, ids[:1]) {
		t.Fatalf("before disabling the receiver got %v, want only %s", got, ids[0])
	}
	on := true
	if _, err := d.svc.UpdateEndpoint(t.Context(), e.OrgID, e.ID, endpoint.Patch{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "held-back deliveries made", func() bool { return d.statuses(e)[delivery.Succeeded] == len(ids) })
	// The failed one is due again by then, and its event came first.
	if got, want := r.received(), []string{ids[0], ids[0], ids[1], ids[2]}; !slices.Equal(got, want) {
		t.Errorf("receiver got %v, want %v", got, want)
	}
}
