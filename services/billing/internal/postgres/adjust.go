package postgres

import (
	"context"

	"hookline.dev/services/billing/internal/ledger"
)

// Adjust applies an administrator's signed correction, once per adjustment
// id, and returns the available credits after it. The ledger decides
// (ledger.ErrInsufficientCredits, ErrNotOpen, ErrInvalid); a refused
// adjustment still reports the available credits.
func (s *Store) Adjust(ctx context.Context, orgID, adjustmentID string, credits int64, reason string) (available int64, err error) {
	_, err = s.run(ctx, &op{orgID: orgID, decide: func(a *ledger.Account, _ ledger.Directory) ([]ledger.Event, error) {
		available = a.Available()
		evs, err := a.Adjust(adjustmentID, credits, reason, now())
		if len(evs) > 0 {
			available += credits
		}
		return evs, err
	}})
	return available, err
}
