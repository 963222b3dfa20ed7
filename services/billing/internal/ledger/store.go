package ledger

import (
	"context"
	"errors"
	"time"
)

// Store persists accounts. Each command loads the account, runs the rule
// of the same name on it and appends the resulting events together with
// their projections and outbox events, atomically. Commands given a
// (consumer, eventID) pair take effect once per pair: a repeated pair
// succeeds without doing anything. Besides the errors listed, every method
// may return an error of the store itself (database unreachable, store
// closed), which is worth retrying. Implementations are safe for
// concurrent use.
type Store interface {
	// Reserve runs Account.Reserve on orgID's account with the quotas of
	// its tier. It returns ErrInvalid, ErrNotOpen, ErrInsufficientCredits,
	// *QuotaError or ErrReservationOwner.
	Reserve(ctx context.Context, orgID string, c ReserveCommand, quotas func(tier string) Quotas) error
	// Settle runs Account.Settle for the event eventID and returns what
	// it did (0 for an event processed before). orgID is the account the
	// event names; should another account hold the reservation, the
	// settlement runs on that one. It returns ErrInvalid.
	Settle(ctx context.Context, consumer, eventID, orgID, reservationID string, o Outcome) (Settled, error)
	// Open runs Account.Open, with eventID as the id of the opening grant.
	// It returns ErrInvalid.
	Open(ctx context.Context, consumer, eventID, orgID, tier, cycle string, grant int64) error
	// Grant runs Account.Grant. It returns ErrInvalid and ErrNotOpen.
	Grant(ctx context.Context, consumer, eventID, orgID, grantID string, b Bucket, credits int64, reason string) error
	// Adjust runs Account.Adjust and returns the available credits after
	// it (before it, when refused). It returns ErrInvalid, ErrNotOpen and
	// ErrInsufficientCredits.
	Adjust(ctx context.Context, orgID, adjustmentID string, credits int64, reason string) (available int64, err error)
	// ExpireDue runs Account.ExpireDue on up to limit accounts that hold
	// reservations past their TTL, and returns how many it expired.
	ExpireDue(ctx context.Context, limit int) (int, error)
}

// ErrNoAccount means the organization's account is not open (yet).
var ErrNoAccount = errors.New("ledger: no account")

// Balance is an account's available credits as the projections hold them.
type Balance struct {
	Tier, BillingCycle      string
	Subscription, Purchased int64
}

// Usage is one reservation in an account's usage history.
type Usage struct {
	ID, Operation, Status, ResourceType, ResourceID string
	Credits                                         int64
	CreatedAt                                       time.Time
	SettledAt                                       *time.Time
}

// Projections reads what the events of accounts add up to.
type Projections interface {
	// Balance returns orgID's credits, or ErrNoAccount.
	Balance(ctx context.Context, orgID string) (Balance, error)
	// UsagePage returns a page of orgID's reservations, newest first, and
	// how many there are in all.
	UsagePage(ctx context.Context, orgID string, offset, limit int) ([]Usage, int, error)
}
