package ledger

import (
	"fmt"
	"reflect"
	"testing"
)

// book is an in-memory Directory: reservation owners and early outcomes.
type book struct {
	owner map[string]string
	early map[string]Outcome
}

func newBook() *book { return &book{owner: map[string]string{}, early: map[string]Outcome{}} }

func (b *book) Owner(id string) string { return b.owner[id] }

func (b *book) Early(id string) (Outcome, bool) {
	o, ok := b.early[id]
	return o, ok
}

func (b *book) Reserved(id, account string) {
	b.owner[id] = account
	delete(b.early, id)
}

func (b *book) ReportedEarly(id, _ string, o Outcome, _ string) { b.early[id] = o }

// owned returns a book in which account holds (or held) the ids.
func owned(account string, ids ...string) *book {
	b := newBook()
	for _, id := range ids {
		b.owner[id] = account
	}
	return b
}

// reportedFirst returns a book in which outcome o of id waits for its reservation.
func reportedFirst(id string, o Outcome) *book {
	b := newBook()
	b.early[id] = o
	return b
}

// settle runs Settle against d, failing unless it reports want.
func settle(d Directory, id string, o Outcome, want Settled) func(a *Account) ([]Event, error) {
	return func(a *Account) ([]Event, error) {
		evs, got, err := a.Settle(id, o, "event-"+id, d, t0)
		if err == nil && got != want {
			return evs, fmt.Errorf("settled %d, want %d", got, want)
		}
		return evs, err
	}
}

func reserveIn(d Directory, id string, credits int64) func(a *Account) ([]Event, error) {
	return func(a *Account) ([]Event, error) {
		return a.Reserve(ReserveCommand{ReservationID: id, Credits: credits, Operation: "thumbnail.generate", ResourceType: "thumbnail", ResourceID: "t1", TTL: ttl}, Quotas{}, d, t0)
	}
}

func TestSettleOnce(t *testing.T) {
	pending := with(opened(3, 10), reserved("r1", 5, 3, 2))
	committed := with(pending, ReservationCommitted{ReservationID: "r1", At: t0})
	for _, s := range []scenario{
		{
			name:  "completed work commits the reservation",
			given: pending,
			when:  settle(owned("org", "r1"), "r1", Completed, Applied),
			then:  []Event{ReservationCommitted{ReservationID: "r1", At: t0}},
		},
		{
			name:  "failed work refunds to the buckets the credits came from",
			given: pending,
			when:  settle(owned("org", "r1"), "r1", Failed, Applied),
			then:  []Event{ReservationRefunded{ReservationID: "r1", Subscription: 3, Purchased: 2, At: t0}},
		},
		{
			name:  "the first outcome wins: failed after completed records nothing",
			given: committed,
			when:  settle(owned("org", "r1"), "r1", Failed, Duplicate),
		},
		{
			name:  "the same outcome twice records nothing",
			given: committed,
			when:  settle(owned("org", "r1"), "r1", Completed, Duplicate),
		},
		{
			name:  "an outcome after expiry records nothing",
			given: with(pending, ReservationExpired{ReservationID: "r1", Subscription: 3, Purchased: 2, At: t0}),
			when:  settle(owned("org", "r1"), "r1", Completed, Duplicate),
		},
		{
			name:  "an outcome before its reservation waits for it",
			given: opened(3, 0),
			when:  settle(newBook(), "r9", Completed, Early),
		},
		{
			name:  "a second outcome before the reservation loses to the first",
			given: opened(3, 0),
			when:  settle(reportedFirst("r9", Completed), "r9", Failed, Duplicate),
		},
		{
			name:    "a reservation of another account is settled there",
			given:   opened(3, 0),
			when:    settle(owned("other", "r9"), "r9", Completed, 0),
			wantErr: &WrongAccountError{Owner: "other"},
		},
		{
			name:    "an unknown outcome is invalid",
			given:   pending,
			when:    settle(owned("org", "r1"), "r1", Outcome("maybe"), 0),
			wantErr: ErrInvalid,
		},
	} {
		s.run(t)
	}
}

func TestReserveOnce(t *testing.T) {
	for _, s := range []scenario{
		{
			name:  "an id this account held before reserves nothing again",
			given: with(opened(10, 0), reserved("r1", 2, 2, 0), ReservationCommitted{ReservationID: "r1", At: t0}),
			when:  reserveIn(owned("org", "r1"), "r1", 2),
		},
		{
			name:    "an id of another account is refused",
			given:   opened(10, 0),
			when:    reserveIn(owned("other", "r1"), "r1", 2),
			wantErr: ErrReservationOwner,
		},
		{
			name:  "a completed outcome that came first commits on arrival",
			given: opened(10, 0),
			when:  reserveIn(reportedFirst("r1", Completed), "r1", 2),
			then:  []Event{reserved("r1", 2, 2, 0), ReservationCommitted{ReservationID: "r1", At: t0}},
		},
		{
			name:  "a failed outcome that came first refunds on arrival",
			given: opened(1, 5),
			when:  reserveIn(reportedFirst("r1", Failed), "r1", 2),
			then:  []Event{reserved("r1", 2, 1, 1), ReservationRefunded{ReservationID: "r1", Subscription: 1, Purchased: 1, At: t0}},
		},
	} {
		s.run(t)
	}
}

// TestEarlyOutcomeThroughDirectory follows an early outcome through the
// directory: recorded by Settle, consumed by Reserve, and a conflicting
// outcome after it changes nothing.
func TestEarlyOutcomeThroughDirectory(t *testing.T) {
	a, d := New("org"), newBook()
	for _, e := range opened(10, 0) {
		a.Apply(e)
	}
	if _, res, err := a.Settle("r1", Completed, "e1", d, t0); err != nil || res != Early {
		t.Fatalf("early completed: %v %v", res, err)
	}
	if _, res, err := a.Settle("r1", Failed, "e2", d, t0); err != nil || res != Duplicate {
		t.Fatalf("early failed after early completed: %v %v", res, err)
	}
	evs, err := a.Reserve(ReserveCommand{ReservationID: "r1", Credits: 4, Operation: "op", TTL: ttl}, Quotas{}, d, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{CreditsReserved{ReservationID: "r1", Credits: 4, FromSubscription: 4, Operation: "op", At: t0, ExpiresAt: t0.Add(ttl)}, ReservationCommitted{ReservationID: "r1", At: t0}}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("reserve after early completed:\n got %#v\nwant %#v", evs, want)
	}
	for _, e := range evs {
		a.Apply(e)
	}
	if _, ok := d.Early("r1"); ok || d.Owner("r1") != "org" {
		t.Fatalf("directory after reserve: owner %q, early kept %v", d.Owner("r1"), ok)
	}
	if evs, res, err := a.Settle("r1", Failed, "e3", d, t0); err != nil || res != Duplicate || evs != nil {
		t.Fatalf("failed after the reservation committed: %v %v %v", evs, res, err)
	}
	if a.Committed != 4 || a.Available() != 6 {
		t.Fatalf("state %+v", a)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	a := New("org")
	for _, e := range with(opened(3, 10), reserved("r2", 1, 1, 0), reserved("r1", 5, 2, 3)) {
		a.Apply(e)
	}
	s := a.Snapshot()
	if len(s.Pending) != 2 || s.Pending[0].ID != "r1" || !reflect.DeepEqual(s.Grants, []string{"g-buy", "g-sub"}) {
		t.Fatalf("snapshot %+v", s)
	}
	if b := Restore(s); !reflect.DeepEqual(a, b) {
		t.Fatalf("restored %+v\nwant %+v", b, a)
	}
	// The snapshot is a copy: changing it leaves the account alone.
	s.Pending[0].Credits = 99
	if r, _ := a.Pending("r1"); r.Credits != 5 {
		t.Fatalf("account changed through its snapshot: %+v", r)
	}
}
