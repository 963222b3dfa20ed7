// Package ledger is the credit account aggregate. An account is a stream
// of events; its state is the fold of those events through Apply, and
// commands (Open, Grant, Adjust, Reserve, Settle, ExpireDue) check the
// rules against that state and return the events that record the outcome.
// Nothing here touches storage: the caller persists the events with the
// expected version and applies them. Store, Projections and Directory name
// what the service needs from storage.
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
	ErrInvalid             = errors.New("ledger: invalid command")
	// ErrReservationOwner: the reservation id is another account's. Ids
	// are derived from operations, so this is a caller bug.
	ErrReservationOwner = errors.New("ledger: reservation id belongs to another account")
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

// CreditsAdjusted is an administrator's correction of an account (a
// mistake put right, a chargeback): signed amounts per bucket.
type CreditsAdjusted struct {
	AdjustmentID string
	Subscription int64
	Purchased    int64
	Reason       string
	At           time.Time
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
func (CreditsAdjusted) event()      {}
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

// Account is the state of one organization's credits. Its pending
// reservations and grant ids are read through methods: only Apply changes
// them.
type Account struct {
	ID      string
	Version int64
	Opened  bool
	Tier    string
	Cycle   string
	// Available credits per bucket; pending holds are already taken out.
	Subscription int64
	Purchased    int64
	// Lifetime totals, kept for the invariant granted = available + pending
	// + committed. Granted is net of adjustments.
	Granted   int64
	Committed int64
	// Paid operations reserved on OpsDay (UTC date), for the daily quota.
	OpsDay   string
	OpsToday int

	pending map[string]Reservation
	// grants holds the ids of the grants and adjustments applied, which
	// make both idempotent.
	grants map[string]bool
}

// New returns the empty state of an account before any event.
func New(id string) *Account {
	return &Account{ID: id, pending: map[string]Reservation{}, grants: map[string]bool{}}
}

// Available is the spendable total.
func (a *Account) Available() int64 { return a.Subscription + a.Purchased }

// Reserved is the total held by pending reservations.
func (a *Account) Reserved() int64 {
	var n int64
	for _, r := range a.pending {
		n += r.Credits
	}
	return n
}

// Pending returns the pending reservation with that id, if there is one.
func (a *Account) Pending(id string) (Reservation, bool) {
	r, ok := a.pending[id]
	return r, ok
}

// PendingReservations returns the pending reservations ordered by id.
func (a *Account) PendingReservations() []Reservation {
	rs := make([]Reservation, 0, len(a.pending))
	for _, r := range a.pending {
		rs = append(rs, r)
	}
	// Map order is random; a stable order keeps event streams and
	// snapshots reproducible.
	slices.SortFunc(rs, func(x, y Reservation) int { return strings.Compare(x.ID, y.ID) })
	return rs
}

// HasGrant reports whether the grant id was applied.
func (a *Account) HasGrant(id string) bool { return a.grants[id] }

// Snapshot is an account's state at a version, for stores that save it
// instead of replaying a whole stream.
type Snapshot struct {
	ID                      string
	Version                 int64
	Opened                  bool
	Tier, Cycle             string
	Subscription, Purchased int64
	Granted, Committed      int64
	OpsDay                  string
	OpsToday                int
	Pending                 []Reservation
	Grants                  []string
}

// Snapshot returns a copy of the state, its lists sorted by id.
func (a *Account) Snapshot() Snapshot {
	s := Snapshot{ID: a.ID, Version: a.Version, Opened: a.Opened, Tier: a.Tier, Cycle: a.Cycle,
		Subscription: a.Subscription, Purchased: a.Purchased, Granted: a.Granted, Committed: a.Committed,
		OpsDay: a.OpsDay, OpsToday: a.OpsToday, Pending: a.PendingReservations()}
	for g := range a.grants {
		s.Grants = append(s.Grants, g)
	}
	slices.Sort(s.Grants)
	return s
}

// Restore returns the account a snapshot describes.
func Restore(s Snapshot) *Account {
	a := New(s.ID)
	a.Version, a.Opened, a.Tier, a.Cycle = s.Version, s.Opened, s.Tier, s.Cycle
	a.Subscription, a.Purchased, a.Granted, a.Committed = s.Subscription, s.Purchased, s.Granted, s.Committed
	a.OpsDay, a.OpsToday = s.OpsDay, s.OpsToday
	for _, r := range s.Pending {
		a.pending[r.ID] = r
	}
	for _, g := range s.Grants {
		a.grants[g] = true
	}
	return a
}

// Apply folds one event into the state. It never fails: events are facts.
func (a *Account) Apply(e Event) {
	a.Version++
	switch e := e.(type) {
	case AccountOpened:
		a.Opened, a.Tier, a.Cycle = true, e.Tier, e.BillingCycle
	case CreditsGranted:
		a.grants[e.GrantID] = true
		a.Granted += e.Credits
		if e.Bucket == Purchased {
			a.Purchased += e.Credits
		} else {
			a.Subscription += e.Credits
		}
	case CreditsAdjusted:
		a.grants[e.AdjustmentID] = true
		a.Granted += e.Subscription + e.Purchased
		a.Subscription += e.Subscription
		a.Purchased += e.Purchased
	case CreditsReserved:
		a.Subscription -= e.FromSubscription
		a.Purchased -= e.FromPurchased
		a.pending[e.ReservationID] = Reservation{
			ID: e.ReservationID, Credits: e.Credits, Subscription: e.FromSubscription, Purchased: e.FromPurchased,
			Operation: e.Operation, ResourceType: e.ResourceType, ResourceID: e.ResourceID, At: e.At, ExpiresAt: e.ExpiresAt,
		}
		if day := e.At.UTC().Format(time.DateOnly); day != a.OpsDay {
			a.OpsDay, a.OpsToday = day, 0
		}
		a.OpsToday++
	case ReservationCommitted:
		a.Committed += a.pending[e.ReservationID].Credits
		delete(a.pending, e.ReservationID)
	case ReservationRefunded:
		a.Subscription += e.Subscription
		a.Purchased += e.Purchased
		delete(a.pending, e.ReservationID)
	case ReservationExpired:
		a.Subscription += e.Subscription
		a.Purchased += e.Purchased
		delete(a.pending, e.ReservationID)
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
	if a.grants[id] {
		return nil, nil
	}
	return []Event{CreditsGranted{GrantID: id, Bucket: b, Credits: credits, Reason: reason, At: now}}, nil
}

// Adjust corrects the available credits by a signed, non-zero amount. A
// credit goes to the purchased bucket; a debit takes purchased credits
// first (a chargeback reverses a purchase), then subscription credits. It
// never takes available credits below zero: ErrInsufficientCredits, and
// credits held by pending reservations are not available. An id seen
// before records nothing.
func (a *Account) Adjust(id string, credits int64, reason string, now time.Time) ([]Event, error) {
	if !a.Opened {
		return nil, ErrNotOpen
	}
	if id == "" || credits == 0 || reason == "" {
		return nil, fmt.Errorf("%w: adjust needs an id, non-zero credits and a reason", ErrInvalid)
	}
	if a.grants[id] {
		return nil, nil
	}
	e := CreditsAdjusted{AdjustmentID: id, Reason: reason, At: now}
	switch {
	case credits > 0:
		e.Purchased = credits
	case a.Available()+credits < 0:
		return nil, ErrInsufficientCredits
	default:
		e.Purchased = -min(a.Purchased, -credits)
		e.Subscription = credits - e.Purchased
	}
	return []Event{e}, nil
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

// Reserve holds credits, subscription first. A reservation id is used
// once, by one account: an id this account holds or held before records
// nothing and succeeds (retries reserve once), and an id another account
// recorded fails with ErrReservationOwner. When an outcome of the
// reservation was reported before it (see Settle), the reservation settles
// with it at once. Reserve records the id in dir.
func (a *Account) Reserve(c ReserveCommand, q Quotas, dir Directory, now time.Time) ([]Event, error) {
	if c.ReservationID == "" || c.Credits <= 0 || c.Operation == "" || c.TTL <= 0 {
		return nil, fmt.Errorf("%w: reserve needs an id, positive credits, an operation and a TTL", ErrInvalid)
	}
	if _, ok := a.pending[c.ReservationID]; ok {
		return nil, nil
	}
	switch owner := dir.Owner(c.ReservationID); owner {
	case "":
	case a.ID:
		return nil, nil
	default:
		return nil, ErrReservationOwner
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
	r := CreditsReserved{
		ReservationID: c.ReservationID, Credits: c.Credits,
		FromSubscription: fromSub, FromPurchased: c.Credits - fromSub,
		Operation: c.Operation, ResourceType: c.ResourceType, ResourceID: c.ResourceID,
		At: now, ExpiresAt: now.Add(c.TTL),
	}
	evs := []Event{r}
	if o, ok := dir.Early(c.ReservationID); ok {
		// The outcome came first: apply it as if it had come second.
		evs = append(evs, terminal(c.ReservationID, r.FromSubscription, r.FromPurchased, o, now))
	}
	dir.Reserved(c.ReservationID, a.ID)
	return evs, nil
}

func (a *Account) pendingRenders() int {
	n := 0
	for _, r := range a.pending {
		if r.ResourceType == RenderResource {
			n++
		}
	}
	return n
}

// ExpireDue expires every pending reservation whose TTL has passed.
func (a *Account) ExpireDue(now time.Time) []Event {
	var evs []Event
	for _, r := range a.PendingReservations() {
		if !now.Before(r.ExpiresAt) {
			evs = append(evs, ReservationExpired{ReservationID: r.ID, Subscription: r.Subscription, Purchased: r.Purchased, At: now})
		}
	}
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
