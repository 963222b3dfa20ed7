// Package ledger is the credit account aggregate. An account is a stream
// of events; its state is the fold of those events through Apply, and
// commands (Open, Grant, Reserve, Commit, Refund, ExpireDue) check the
// rules against that state and return the events that record the outcome.
// Nothing here touches storage: the caller persists the events with the
// expected version and applies them.
package ledger

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bucket is where credits live. Subscription credits are spent first.
type Bucket string

// The buckets.
const (
	Subscription Bucket = "subscription"
	Purchased    Bucket = "purchased"
)

// Valid reports whether b is a known bucket.
func (b Bucket) Valid() bool { return b == Subscription || b == Purchased }

// Errors returned by commands.
var (
	ErrNotOpen             = errors.New("ledger: account is not open")
	ErrInsufficientCredits = errors.New("ledger: insufficient credits")
	ErrUnknownReservation  = errors.New("ledger: no pending reservation with that id")
	ErrInvalid             = errors.New("ledger: invalid command")
)

// QuotaError is returned by Reserve when a tier quota refuses the request.
type QuotaError struct {
	Quota string
	Limit int
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("ledger: quota %s of %d exceeded", e.Quota, e.Limit)
}

// Event is one fact of an account's history.
type Event interface{ event() }

// AccountOpened starts an account.
type AccountOpened struct {
	Tier         string
	BillingCycle string
	At           time.Time
}

// CreditsGranted adds credits to a bucket.
type CreditsGranted struct {
	GrantID string
	Bucket  Bucket
	Credits int64
	Reason  string
	At      time.Time
}

// CreditsReserved holds credits for an operation until it settles.
type CreditsReserved struct {
	ReservationID string
	Credits       int64
	// The split across buckets, so a refund returns credits where they came from.
	FromSubscription int64
	FromPurchased    int64
	Operation        string
	ResourceType     string
	ResourceID       string
	At               time.Time
	ExpiresAt        time.Time
}

// ReservationCommitted spends held credits for good.
type ReservationCommitted struct {
	ReservationID string
	At            time.Time
}

// ReservationRefunded returns held credits to their buckets (failed work).
type ReservationRefunded struct {
	ReservationID string
	Subscription  int64
	Purchased     int64
	At            time.Time
}

// ReservationExpired returns held credits whose owner never settled them.
type ReservationExpired struct {
	ReservationID string
	Subscription  int64
	Purchased     int64
	At            time.Time
}

func (AccountOpened) event()        {}
func (CreditsGranted) event()       {}
func (CreditsReserved) event()      {}
func (ReservationCommitted) event() {}
func (ReservationRefunded) event()  {}
func (ReservationExpired) event()   {}

// Reservation is a pending hold.
type Reservation struct {
	ID           string
	Credits      int64
	Subscription int64
	Purchased    int64
	Operation    string
	ResourceType string
	ResourceID   string
	At           time.Time
	ExpiresAt    time.Time
}

// Account is the state of one organization's credits.
type Account struct {
	ID      string
	Version int64
	Opened  bool
	Tier    string
	Cycle   string
	// Available credits per bucket; pending holds are already taken out.
	Subscription int64
	Purchased    int64
	// Lifetime totals, kept for the invariant granted = available + pending + committed.
	Granted   int64
	Committed int64
	Pending   map[string]Reservation
	Grants    map[string]bool
	// Paid operations reserved on OpsDay (UTC date), for the daily quota.
	OpsDay   string
	OpsToday int
}

// New returns the empty state of an account before any event.
func New(id string) *Account {
	return &Account{ID: id, Pending: map[string]Reservation{}, Grants: map[string]bool{}}
}

// Available is the spendable total.
func (a *Account) Available() int64 { return a.Subscription + a.Purchased }

// Reserved is the total held by pending reservations.
func (a *Account) Reserved() int64 {
	var n int64
	for _, r := range a.Pending {
		n += r.Credits
	}
	return n
}

// Apply folds one event into the state. It never fails: events are facts.
func (a *Account) Apply(e Event) {
	a.Version++
	switch e := e.(type) {
	case AccountOpened:
		a.Opened, a.Tier, a.Cycle = true, e.Tier, e.BillingCycle
	case CreditsGranted:
		a.Grants[e.GrantID] = true
		a.Granted += e.Credits
		if e.Bucket == Purchased {
			a.Purchased += e.Credits
		} else {
			a.Subscription += e.Credits
		}
	case CreditsReserved:
		a.Subscription -= e.FromSubscription
		a.Purchased -= e.FromPurchased
		a.Pending[e.ReservationID] = Reservation{
			ID: e.ReservationID, Credits: e.Credits, Subscription: e.FromSubscription, Purchased: e.FromPurchased,
			Operation: e.Operation, ResourceType: e.ResourceType, ResourceID: e.ResourceID, At: e.At, ExpiresAt: e.ExpiresAt,
		}
		if day := e.At.UTC().Format(time.DateOnly); day != a.OpsDay {
			a.OpsDay, a.OpsToday = day, 0
		}
		a.OpsToday++
	case ReservationCommitted:
		a.Committed += a.Pending[e.ReservationID].Credits
		delete(a.Pending, e.ReservationID)
	case ReservationRefunded:
		a.Subscription += e.Subscription
		a.Purchased += e.Purchased
		delete(a.Pending, e.ReservationID)
	case ReservationExpired:
		a.Subscription += e.Subscription
		a.Purchased += e.Purchased
		delete(a.Pending, e.ReservationID)
	}
}

// Open starts the account with the tier's subscription grant. Opening an
// open account records nothing.
func (a *Account) Open(tier, cycle string, grant int64, grantID string, now time.Time) ([]Event, error) {
	if a.Opened {
		return nil, nil
	}
	if tier == "" || cycle == "" || grant < 0 {
		return nil, fmt.Errorf("%w: open needs a tier, a cycle and a non-negative grant", ErrInvalid)
	}
	evs := []Event{AccountOpened{Tier: tier, BillingCycle: cycle, At: now}}
	if grant > 0 {
		evs = append(evs, CreditsGranted{GrantID: grantID, Bucket: Subscription, Credits: grant, Reason: "subscription: " + tier, At: now})
	}
	return evs, nil
}

// Grant adds credits. A grant id seen before records nothing.
func (a *Account) Grant(id string, b Bucket, credits int64, reason string, now time.Time) ([]Event, error) {
	if !a.Opened {
		return nil, ErrNotOpen
	}
	if id == "" || !b.Valid() || credits <= 0 {
		return nil, fmt.Errorf("%w: grant needs an id, a bucket and positive credits", ErrInvalid)
	}
	if a.Grants[id] {
		return nil, nil
	}
	return []Event{CreditsGranted{GrantID: id, Bucket: b, Credits: credits, Reason: reason, At: now}}, nil
}

// Quotas limit a tier. Zero means unlimited.
type Quotas struct {
	PaidOpsPerDay     int
	ConcurrentRenders int
}

// RenderResource is the resource type whose pending reservations count
// against the concurrent-renders quota.
const RenderResource = "render"

// ReserveCommand asks to hold credits for an operation.
type ReserveCommand struct {
	ReservationID string
	Credits       int64
	Operation     string
	ResourceType  string
	ResourceID    string
	TTL           time.Duration
}

// Reserve holds credits, subscription first. A reservation id that is
// already pending records nothing and succeeds: retries reserve once.
func (a *Account) Reserve(c ReserveCommand, q Quotas, now time.Time) ([]Event, error) {
	if c.ReservationID == "" || c.Credits <= 0 || c.Operation == "" || c.TTL <= 0 {
		return nil, fmt.Errorf("%w: reserve needs an id, positive credits, an operation and a TTL", ErrInvalid)
	}
	if _, ok := a.Pending[c.ReservationID]; ok {
		return nil, nil
	}
	if !a.Opened {
		return nil, ErrNotOpen
	}
	today := a.OpsToday
	if a.OpsDay != now.UTC().Format(time.DateOnly) {
		today = 0
	}
	if q.PaidOpsPerDay > 0 && today >= q.PaidOpsPerDay {
		return nil, &QuotaError{Quota: "paid operations per day", Limit: q.PaidOpsPerDay}
	}
	if c.ResourceType == RenderResource && q.ConcurrentRenders > 0 && a.pendingRenders() >= q.ConcurrentRenders {
		return nil, &QuotaError{Quota: "concurrent renders", Limit: q.ConcurrentRenders}
	}
	if a.Available() < c.Credits {
		return nil, ErrInsufficientCredits
	}
	fromSub := min(a.Subscription, c.Credits)
	return []Event{CreditsReserved{
		ReservationID: c.ReservationID, Credits: c.Credits,
		FromSubscription: fromSub, FromPurchased: c.Credits - fromSub,
		Operation: c.Operation, ResourceType: c.ResourceType, ResourceID: c.ResourceID,
		At: now, ExpiresAt: now.Add(c.TTL),
	}}, nil
}

func (a *Account) pendingRenders() int {
	n := 0
	for _, r := range a.Pending {
		if r.ResourceType == RenderResource {
			n++
		}
	}
	return n
}

// Commit spends a pending reservation (the work succeeded).
func (a *Account) Commit(id string, now time.Time) ([]Event, error) {
	if _, ok := a.Pending[id]; !ok {
		return nil, ErrUnknownReservation
	}
	return []Event{ReservationCommitted{ReservationID: id, At: now}}, nil
}

// Refund returns a pending reservation to its buckets (the work failed).
func (a *Account) Refund(id string, now time.Time) ([]Event, error) {
	r, ok := a.Pending[id]
	if !ok {
		return nil, ErrUnknownReservation
	}
	return []Event{ReservationRefunded{ReservationID: id, Subscription: r.Subscription, Purchased: r.Purchased, At: now}}, nil
}

// ExpireDue expires every pending reservation whose TTL has passed.
func (a *Account) ExpireDue(now time.Time) []Event {
	var evs []Event
	for _, r := range a.Pending {
		if !now.Before(r.ExpiresAt) {
			evs = append(evs, ReservationExpired{ReservationID: r.ID, Subscription: r.Subscription, Purchased: r.Purchased, At: now})
		}
	}
	// Map order is random; a stable order keeps event streams reproducible.
	slices.SortFunc(evs, func(x, y Event) int {
		return strings.Compare(x.(ReservationExpired).ReservationID, y.(ReservationExpired).ReservationID)
	})
	return evs
}

// CheckInvariants verifies the ledger's arithmetic: no bucket is negative
// and granted = available + pending + committed.
func (a *Account) CheckInvariants() error {
	if a.Subscription < 0 || a.Purchased < 0 {
		return fmt.Errorf("ledger: negative balance: subscription %d purchased %d", a.Subscription, a.Purchased)
	}
	if got := a.Available() + a.Reserved() + a.Committed; got != a.Granted {
		return fmt.Errorf("ledger: granted %d != available+pending+committed %d", a.Granted, got)
	}
	return nil
}

// SettleOnArrival is the terminal event for a reservation whose outcome was
// reported before the reservation itself was recorded: completed work is
// charged, failed work is returned, as if the report had come second.
func SettleOnArrival(r CreditsReserved, completed bool, now time.Time) Event {
	if completed {
		return ReservationCommitted{ReservationID: r.ReservationID, At: now}
	}
	return ReservationRefunded{ReservationID: r.ReservationID, Subscription: r.FromSubscription, Purchased: r.FromPurchased, At: now}
}
