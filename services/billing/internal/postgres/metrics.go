package postgres

import (
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/meters"
)

// The settlements this writer commits, by outcome.
var (
	committedSettlements = meters.Settlements.With("outcome", "committed")
	refundedSettlements  = meters.Settlements.With("outcome", "refunded")
	expiredSettlements   = meters.Settlements.With("outcome", "expired")
)

// countCommitted counts the settlements among events a transaction
// committed: counted after the commit, a decision that was rerun or rolled
// back is not counted twice.
func countCommitted(evs []ledger.Event) {
	for _, e := range evs {
		switch e.(type) {
		case ledger.ReservationCommitted:
			committedSettlements.Add(1)
		case ledger.ReservationRefunded:
			refundedSettlements.Add(1)
		case ledger.ReservationExpired:
			expiredSettlements.Add(1)
		}
	}
}
