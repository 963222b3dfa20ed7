package ledger

import (
	"fmt"
	"time"
)

// Outcome is how the owner of a reservation reports its work.
type Outcome string

// The outcomes. Completed work is charged; failed work is returned.
const (
	Completed Outcome = "completed"
	Failed    Outcome = "failed"
)

// Valid reports whether o is a known outcome.
func (o Outcome) Valid() bool { return o == Completed || o == Failed }

// Directory is what the reservation rules know beyond one account.
// Reservation ids are global (callers derive them from their operations)
// while an Account knows only its own pending holds, so keeping an id to
// one account, and settling a reservation whose outcome arrived before it,
// need this view.
//
// A store loads every entry a command can ask about before the command
// runs, so the methods answer from memory and have no errors: a load that
// fails fails the command before any rule runs. Commands record what they
// decide through it, and the store persists that with their events; later
// commands of the same transaction see it.
type Directory interface {
	// Owner returns the account that recorded the reservation id, or ""
	// when no account has.
	Owner(id string) string
	// Early returns the outcome reported for id before any account
	// recorded the reservation.
	Early(id string) (Outcome, bool)
	// Reserved records that account holds id; an early outcome of id is
	// consumed by it and forgotten.
	Reserved(id, account string)
	// ReportedEarly keeps the outcome o of id, reported by event eventID
	// and naming account, until the reservation arrives.
	ReportedEarly(id, account string, o Outcome, eventID string)
}

// Settled says what a reported outcome did.
type Settled int

// The results of Settle.
const (
	// Applied: the reservation ended with this outcome.
	Applied Settled = iota + 1
	// Duplicate: the reservation had already ended, or an earlier outcome
	// is waiting for it. The first outcome wins; this one changes nothing
	// and is worth logging and counting.
	Duplicate
	// Early: the reservation is not recorded yet; the outcome waits for it
	// (see Reserve).
	Early
)

// WrongAccountError is returned by Settle when the reservation belongs to
// another account: the settlement must run on Owner's account.
type WrongAccountError struct{ Owner string }

func (e *WrongAccountError) Error() string {
	return "ledger: the reservation belongs to account " + e.Owner
}

// Settle applies the outcome o of reservation id, reported by event
// eventID, once: the first outcome of a reservation decides, whatever comes
// after. A pending reservation ends (committed or refunded to the buckets
// its credits came from); a reservation that ended before, or whose
// earlier outcome waits for it, records nothing (Duplicate); an unknown
// one keeps the outcome in dir until it is reserved (Early). It fails with
// ErrInvalid for an empty id or an unknown outcome, and with
// *WrongAccountError when another account holds the reservation.
func (a *Account) Settle(id string, o Outcome, eventID string, dir Directory, now time.Time) ([]Event, Settled, error) {
	if id == "" || !o.Valid() {
		return nil, 0, fmt.Errorf("%w: settle needs a reservation id and an outcome", ErrInvalid)
	}
	if r, ok := a.pending[id]; ok {
		return []Event{terminal(id, r.Subscription, r.Purchased, o, now)}, Applied, nil
	}
	switch owner := dir.Owner(id); owner {
	case "":
	case a.ID:
		return nil, Duplicate, nil
	default:
		return nil, 0, &WrongAccountError{Owner: owner}
	}
	if _, waiting := dir.Early(id); waiting {
		return nil, Duplicate, nil
	}
	dir.ReportedEarly(id, a.ID, o, eventID)
	return nil, Early, nil
}

// terminal is the event that ends reservation id with outcome o; sub and
// purchased are what it took from each bucket.
func terminal(id string, sub, purchased int64, o Outcome, now time.Time) Event {
	if o == Completed {
		return ReservationCommitted{ReservationID: id, At: now}
	}
	return ReservationRefunded{ReservationID: id, Subscription: sub, Purchased: purchased, At: now}
}
