package ledger

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

var (
	t0  = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ttl = 10 * time.Minute
)

// scenario runs one rule in given/when/then form: the account is built
// from the given events, the command runs, and its events and error are
// compared with the expected ones. The resulting state must keep the
// ledger's invariants.
type scenario struct {
	name    string
	given   []Event
	when    func(a *Account) ([]Event, error)
	then    []Event
	wantErr error
}

func (s scenario) run(t *testing.T) {
	t.Helper()
	t.Run(s.name, func(t *testing.T) {
		a := New("org")
		for _, e := range s.given {
			a.Apply(e)
		}
		got, err := s.when(a)
		if s.wantErr != nil {
			var qe, wq *QuotaError
			var we, ww *WrongAccountError
			var ok bool
			switch {
			case errors.As(s.wantErr, &wq):
				ok = errors.As(err, &qe)
			case errors.As(s.wantErr, &ww):
				ok = errors.As(err, &we) && we.Owner == ww.Owner
			default:
				ok = errors.Is(err, s.wantErr)
			}
			if !ok {
				t.Fatalf("error = %v, want %v", err, s.wantErr)
			}
		} else if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if !reflect.DeepEqual(got, s.then) {
			t.Fatalf("events:\n got %#v\nwant %#v", got, s.then)
		}
		for _, e := range got {
			a.Apply(e)
		}
		if err := a.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	})
}

func opened(sub, purchased int64) []Event {
	evs := []Event{AccountOpened{Tier: "pro", BillingCycle: "monthly", At: t0}}
	if sub > 0 {
		evs = append(evs, CreditsGranted{GrantID: "g-sub", Bucket: Subscription, Credits: sub, At: t0})
	}
	if purchased > 0 {
		evs = append(evs, CreditsGranted{GrantID: "g-buy", Bucket: Purchased, Credits: purchased, At: t0})
	}
	return evs
}

func reserved(id string, credits, sub, buy int64) CreditsReserved {
	return CreditsReserved{ReservationID: id, Credits: credits, FromSubscription: sub, FromPurchased: buy, Operation: "thumbnail.generate", ResourceType: "thumbnail", ResourceID: "t1", At: t0, ExpiresAt: t0.Add(ttl)}
}

func reserve(id string, credits int64) func(a *Account) ([]Event, error) {
	return func(a *Account) ([]Event, error) {
		return a.Reserve(ReserveCommand{ReservationID: id, Credits: credits, Operation: "thumbnail.generate", ResourceType: "thumbnail", ResourceID: "t1", TTL: ttl}, Quotas{}, newBook(), t0)
	}
}

func with(evs []Event, more ...Event) []Event { return append(append([]Event{}, evs...), more...) }

func TestOpen(t *testing.T) {
	for _, s := range []scenario{
		{
			name: "a new account opens with its subscription grant",
			when: func(a *Account) ([]Event, error) { return a.Open("pro", "monthly", 100, "g1", t0) },
			then: []Event{AccountOpened{Tier: "pro", BillingCycle: "monthly", At: t0}, CreditsGranted{GrantID: "g1", Bucket: Subscription, Credits: 100, Reason: "subscription: pro", At: t0}},
		},
		{
			name: "a free tier without a grant opens empty",
			when: func(a *Account) ([]Event, error) { return a.Open("free", "monthly", 0, "g1", t0) },
			then: []Event{AccountOpened{Tier: "free", BillingCycle: "monthly", At: t0}},
		},
		{
			name:  "opening twice records nothing",
			given: opened(10, 0),
			when:  func(a *Account) ([]Event, error) { return a.Open("pro", "monthly", 100, "g2", t0) },
		},
	} {
		s.run(t)
	}
}

func TestGrant(t *testing.T) {
	for _, s := range []scenario{
		{
			name:  "purchased credits go to the purchased bucket",
			given: opened(0, 0),
			when:  func(a *Account) ([]Event, error) { return a.Grant("g9", Purchased, 50, "top-up", t0) },
			then:  []Event{CreditsGranted{GrantID: "g9", Bucket: Purchased, Credits: 50, Reason: "top-up", At: t0}},
		},
		{
			name:  "a repeated grant id records nothing",
			given: opened(10, 0),
			when:  func(a *Account) ([]Event, error) { return a.Grant("g-sub", Subscription, 10, "again", t0) },
		},
		{
			name:    "a grant to an account that is not open fails",
			when:    func(a *Account) ([]Event, error) { return a.Grant("g1", Purchased, 5, "x", t0) },
			wantErr: ErrNotOpen,
		},
		{
			name:    "a non-positive grant is invalid",
			given:   opened(0, 0),
			when:    func(a *Account) ([]Event, error) { return a.Grant("g1", Purchased, 0, "x", t0) },
			wantErr: ErrInvalid,
		},
		{
			name:    "an unknown bucket is invalid",
			given:   opened(0, 0),
			when:    func(a *Account) ([]Event, error) { return a.Grant("g1", Bucket("gold"), 5, "x", t0) },
			wantErr: ErrInvalid,
		},
	} {
		s.run(t)
	}
}

func TestAdjust(t *testing.T) {
	adjust := func(id string, credits int64) func(a *Account) ([]Event, error) {
		return func(a *Account) ([]Event, error) { return a.Adjust(id, credits, "chargeback", t0) }
	}
	adjusted := func(id string, sub, buy int64) CreditsAdjusted {
		return CreditsAdjusted{AdjustmentID: id, Subscription: sub, Purchased: buy, Reason: "chargeback", At: t0}
	}
	for _, s := range []scenario{
		{
			name:  "a debit takes purchased credits first, then subscription",
			given: opened(10, 3),
			when:  adjust("a1", -5),
			then:  []Event{adjusted("a1", -2, -3)},
		},
		{
			name:  "a debit of exactly the available credits leaves zero",
			given: opened(10, 0),
			when:  adjust("a1", -10),
			then:  []Event{adjusted("a1", -10, 0)},
		},
		{
			name:    "a debit below zero is refused",
			given:   opened(10, 0),
			when:    adjust("a1", -11),
			wantErr: ErrInsufficientCredits,
		},
		{
			name:    "credits held by a pending reservation are not available",
			given:   with(opened(10, 0), reserved("r1", 4, 4, 0)),
			when:    adjust("a1", -7),
			wantErr: ErrInsufficientCredits,
		},
		{
			name:  "a credit goes to the purchased bucket",
			given: opened(10, 0),
			when:  adjust("a1", 4),
			then:  []Event{adjusted("a1", 0, 4)},
		},
		{
			name:  "a repeated adjustment id records nothing",
			given: with(opened(10, 0), adjusted("a1", -4, 0)),
			when:  adjust("a1", -4),
		},
		{
			name:    "a zero adjustment is invalid",
			given:   opened(10, 0),
			when:    adjust("a1", 0),
			wantErr: ErrInvalid,
		},
		{
			name:    "an adjustment without a reason is invalid",
			given:   opened(10, 0),
			when:    func(a *Account) ([]Event, error) { return a.Adjust("a1", -1, "", t0) },
			wantErr: ErrInvalid,
		},
		{
			name:    "an account that is not open cannot be adjusted",
			when:    adjust("a1", 5),
			wantErr: ErrNotOpen,
		},
	} {
		s.run(t)
	}
}

func TestReserve(t *testing.T) {
	for _, s := range []scenario{
		{
			name:  "subscription credits are spent first",
			given: opened(3, 10),
			when:  reserve("r1", 5),
			then:  []Event{reserved("r1", 5, 3, 2)},
		},
		{
			name:  "the exact balance can be reserved",
			given: opened(2, 0),
			when:  reserve("r1", 2),
			then:  []Event{reserved("r1", 2, 2, 0)},
		},
		{
			name:    "more than the balance is refused",
			given:   opened(1, 0),
			when:    reserve("r1", 2),
			wantErr: ErrInsufficientCredits,
		},
		{
			name:    "pending holds are not available",
			given:   with(opened(2, 0), reserved("r1", 2, 2, 0)),
			when:    reserve("r2", 1),
			wantErr: ErrInsufficientCredits,
		},
		{
			name:  "the same reservation id reserves once",
			given: with(opened(2, 0), reserved("r1", 2, 2, 0)),
			when:  reserve("r1", 2),
		},
		{
			name:    "an account that is not open cannot reserve",
			when:    reserve("r1", 1),
			wantErr: ErrNotOpen,
		},
		{
			name:    "zero credits is invalid",
			given:   opened(2, 0),
			when:    reserve("r1", 0),
			wantErr: ErrInvalid,
		},
		{
			name:  "the daily quota refuses the next paid operation",
			given: with(opened(10, 0), reserved("r1", 1, 1, 0), reserved("r2", 1, 1, 0)),
			when: func(a *Account) ([]Event, error) {
				return a.Reserve(ReserveCommand{ReservationID: "r3", Credits: 1, Operation: "op", TTL: ttl}, Quotas{PaidOpsPerDay: 2}, newBook(), t0)
			},
			wantErr: &QuotaError{},
		},
		{
			name:  "the daily quota resets on the next UTC day",
			given: with(opened(10, 0), reserved("r1", 1, 1, 0), reserved("r2", 1, 1, 0)),
			when: func(a *Account) ([]Event, error) {
				return a.Reserve(ReserveCommand{ReservationID: "r3", Credits: 1, Operation: "op", TTL: ttl}, Quotas{PaidOpsPerDay: 2}, newBook(), t0.Add(24*time.Hour))
			},
			then: []Event{CreditsReserved{ReservationID: "r3", Credits: 1, FromSubscription: 1, Operation: "op", At: t0.Add(24 * time.Hour), ExpiresAt: t0.Add(24*time.Hour + ttl)}},
		},
		{
			name:  "concurrent renders are capped",
			given: with(opened(10, 0), CreditsReserved{ReservationID: "r1", Credits: 2, FromSubscription: 2, Operation: "clip.render", ResourceType: RenderResource, At: t0, ExpiresAt: t0.Add(ttl)}),
			when: func(a *Account) ([]Event, error) {
				return a.Reserve(ReserveCommand{ReservationID: "r2", Credits: 2, Operation: "clip.render", ResourceType: RenderResource, TTL: ttl}, Quotas{ConcurrentRenders: 1}, newBook(), t0)
			},
			wantErr: &QuotaError{},
		},
	} {
		s.run(t)
	}
}

func TestExpire(t *testing.T) {
	pending := with(opened(3, 10), reserved("r1", 5, 3, 2))
	for _, s := range []scenario{
		{
			name:  "reservations past their TTL expire",
			given: with(pending, reserved("r2", 1, 0, 1)),
			when:  func(a *Account) ([]Event, error) { return a.ExpireDue(t0.Add(ttl)), nil },
			then: []Event{
				ReservationExpired{ReservationID: "r1", Subscription: 3, Purchased: 2, At: t0.Add(ttl)},
				ReservationExpired{ReservationID: "r2", Purchased: 1, At: t0.Add(ttl)},
			},
		},
		{
			name:  "reservations within their TTL stay",
			given: pending,
			when:  func(a *Account) ([]Event, error) { return a.ExpireDue(t0.Add(ttl - time.Second)), nil },
		},
	} {
		s.run(t)
	}
}

func TestBalancesAfterSettlement(t *testing.T) {
	a := New("org")
	for _, e := range with(opened(3, 10), reserved("r1", 5, 3, 2), ReservationRefunded{ReservationID: "r1", Subscription: 3, Purchased: 2}, reserved("r2", 4, 3, 1), ReservationCommitted{ReservationID: "r2"}) {
		a.Apply(e)
	}
	if a.Subscription != 0 || a.Purchased != 9 || a.Committed != 4 || a.Granted != 13 || len(a.PendingReservations()) != 0 {
		t.Fatalf("state %+v", a)
	}
	if err := a.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
