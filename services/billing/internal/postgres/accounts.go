package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/services/billing/internal/ledger"
)

var _ ledger.Store = (*Store)(nil)

// Reserve implements ledger.Store.
func (s *Store) Reserve(ctx context.Context, orgID string, c ledger.ReserveCommand, quotas func(tier string) ledger.Quotas) error {
	_, err := s.run(ctx, &op{orgID: orgID, reservation: c.ReservationID, optimistic: true, decide: func(a *ledger.Account, d ledger.Directory) ([]ledger.Event, error) {
		return a.Reserve(c, quotas(a.Tier), d, now())
	}})
	return err
}

// Settle implements ledger.Store. A settlement that names another account
// than the reservation's releases its inbox claim (as every refused
// decision does) and is run again on the owner's account.
func (s *Store) Settle(ctx context.Context, consumer, eventID, orgID, reservationID string, o ledger.Outcome) (ledger.Settled, error) {
	for range 2 {
		var res ledger.Settled
		_, err := s.run(ctx, &op{orgID: orgID, reservation: reservationID, inbox: &messaging.InboxClaim{Consumer: consumer, EventID: eventID},
			decide: func(a *ledger.Account, d ledger.Directory) ([]ledger.Event, error) {
				evs, r, err := a.Settle(reservationID, o, eventID, d, now())
				res = r
				return evs, err
			}})
		if wrong, ok := errors.AsType[*ledger.WrongAccountError](err); ok {
			orgID = wrong.Owner
			continue
		}
		return res, err
	}
	return 0, fmt.Errorf("postgres: settlement %s: reservation moved between accounts", eventID)
}

// Open implements ledger.Store.
func (s *Store) Open(ctx context.Context, consumer, eventID, orgID, tier, cycle string, grant int64) error {
	_, err := s.run(ctx, &op{orgID: orgID, inbox: &messaging.InboxClaim{Consumer: consumer, EventID: eventID},
		decide: func(a *ledger.Account, _ ledger.Directory) ([]ledger.Event, error) {
			return a.Open(tier, cycle, grant, eventID, now())
		}})
	return err
}

// Grant implements ledger.Store.
func (s *Store) Grant(ctx context.Context, consumer, eventID, orgID, grantID string, bucket ledger.Bucket, credits int64, reason string) error {
	_, err := s.run(ctx, &op{orgID: orgID, inbox: &messaging.InboxClaim{Consumer: consumer, EventID: eventID},
		decide: func(a *ledger.Account, _ ledger.Directory) ([]ledger.Event, error) {
			return a.Grant(grantID, bucket, credits, reason, now())
		}})
	return err
}

// ExpireDue implements ledger.Store.
func (s *Store) ExpireDue(ctx context.Context, limit int) (int, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT org_id::text FROM usage WHERE status = 'reserved' AND expires_at <= now() LIMIT $1`, limit)
	if err != nil {
		return 0, fmt.Errorf("postgres: due reservations: %w", err)
	}
	orgs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, err
	}
	n := 0
	for _, org := range orgs {
		evs, err := s.run(ctx, &op{orgID: org, decide: func(a *ledger.Account, _ ledger.Directory) ([]ledger.Event, error) {
			return a.ExpireDue(now()), nil
		}})
		if err != nil {
			return n, err
		}
		n += len(evs)
	}
	return n, nil
}

var _ ledger.Projections = (*Store)(nil)

// Balance implements ledger.Projections.
func (s *Store) Balance(ctx context.Context, orgID string) (ledger.Balance, error) {
	var b ledger.Balance
	err := s.pool.QueryRow(ctx, `SELECT tier, billing_cycle, subscription, purchased FROM balances WHERE org_id = $1`, orgID).
		Scan(&b.Tier, &b.BillingCycle, &b.Subscription, &b.Purchased)
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.Balance{}, ledger.ErrNoAccount
	}
	return b, err
}

// UsagePage implements ledger.Projections.
func (s *Store) UsagePage(ctx context.Context, orgID string, offset, limit int) ([]ledger.Usage, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM usage WHERE org_id = $1`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("postgres: count usage: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT reservation_id, operation, status, resource_type, resource_id, credits, created_at, settled_at
		FROM usage WHERE org_id = $1 ORDER BY created_at DESC, reservation_id DESC OFFSET $2 LIMIT $3`, orgID, offset, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: list usage: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ledger.Usage, error) {
		var u ledger.Usage
		err := r.Scan(&u.ID, &u.Operation, &u.Status, &u.ResourceType, &u.ResourceID, &u.Credits, &u.CreatedAt, &u.SettledAt)
		return u, err
	})
	return items, total, err
}
