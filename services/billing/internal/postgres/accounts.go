package postgres

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/messaging"
	"hookline.dev/services/billing/internal/ledger"
)

// Counters of settlements that changed nothing, for alerting.
var (
	duplicateSettlements = expvar.NewInt("billing_duplicate_settlements")
	earlySettlements     = expvar.NewInt("billing_early_settlements")
)

// ErrReservationOwner means a reservation id is already used by another
// account: ids are derived from operations, so this is a caller bug.
var ErrReservationOwner = errors.New("postgres: reservation id belongs to another account")

// Reserve holds credits for an operation. A reservation id seen before, in
// any state, succeeds without holding again. An outcome reported before the
// reservation is applied as soon as the reservation lands.
func (s *Store) Reserve(ctx context.Context, orgID string, c ledger.ReserveCommand, quotas func(tier string) ledger.Quotas) error {
	_, err := s.run(ctx, &op{orgID: orgID, reservation: c.ReservationID, optimistic: true, decide: func(a *ledger.Account, v *view) ([]ledger.Event, error) {
		if _, pending := a.Pending[c.ReservationID]; pending {
			return nil, nil
		}
		switch owner := v.owner[c.ReservationID]; owner {
		case "":
		case orgID:
			return nil, nil
		default:
			return nil, ErrReservationOwner
		}
		evs, err := a.Reserve(c, quotas(a.Tier), now())
		if err != nil {
			return nil, err
		}
		v.owner[c.ReservationID] = orgID
		if early, ok := v.early[c.ReservationID]; ok {
			delete(v.early, c.ReservationID)
			v.earlyDel = append(v.earlyDel, c.ReservationID)
			evs = append(evs, ledger.SettleOnArrival(evs[0].(ledger.CreditsReserved), early.outcome == "completed", now()))
		}
		return evs, nil
	}})
	return err
}

// Settle applies a completed or failed outcome reported by the event
// eventID to its reservation, once per (consumer, event). It is a no-op,
// logged and counted, when the reservation is already terminal, and it is
// remembered when the reservation has not arrived yet.
//
// The event names the organization, which is the reservation's account in
// every correct producer; should it name another, the group finds the real
// owner in the reservation rows and the settlement is re-run there.
func (s *Store) Settle(ctx context.Context, log *slog.Logger, consumer, eventID, orgID, reservationID string, completed bool) error {
	outcome := "failed"
	if completed {
		outcome = "completed"
	}
	for range 2 {
		var owner string
		_, err := s.run(ctx, &op{orgID: orgID, reservation: reservationID, inbox: &messaging.InboxClaim{Consumer: consumer, EventID: eventID},
			decide: func(a *ledger.Account, v *view) ([]ledger.Event, error) {
				var evs []ledger.Event
				var err error
				if completed {
					evs, err = a.Commit(reservationID, now())
				} else {
					evs, err = a.Refund(reservationID, now())
				}
				if !errors.Is(err, ledger.ErrUnknownReservation) {
					return evs, err
				}
				if o, exists := v.owner[reservationID]; exists && o != orgID {
					owner = o
					return nil, errWrongAccount
				} else if exists {
					duplicateSettlements.Add(1)
					log.Warn("second terminal event for a reservation ignored", "reservation_id", reservationID, "event_id", eventID, "outcome", outcome)
					return nil, nil
				}
				if _, waiting := v.early[reservationID]; waiting {
					duplicateSettlements.Add(1)
					return nil, nil
				}
				earlySettlements.Add(1)
				e := earlySettlement{reservation: reservationID, orgID: orgID, outcome: outcome, eventID: eventID}
				v.early[reservationID] = e
				v.earlyAdd = append(v.earlyAdd, e)
				return nil, nil
			}})
		if !errors.Is(err, errWrongAccount) {
			return err
		}
		orgID = owner
	}
	return fmt.Errorf("postgres: settlement %s: reservation moved between accounts", eventID)
}

// errWrongAccount sends a settlement to the account that owns the
// reservation. Like every refused decision it releases its inbox claim, so
// the re-run can claim the event again.
var errWrongAccount = errors.New("postgres: reservation belongs to another account")

// Open opens an account once per organization-created event.
func (s *Store) Open(ctx context.Context, consumer, eventID, orgID, tier, cycle string, grant int64) error {
	_, err := s.run(ctx, &op{orgID: orgID, inbox: &messaging.InboxClaim{Consumer: consumer, EventID: eventID},
		decide: func(a *ledger.Account, _ *view) ([]ledger.Event, error) {
			return a.Open(tier, cycle, grant, eventID, now())
		}})
	return err
}

// Grant applies an administrator's grant; the grant id makes it idempotent.
func (s *Store) Grant(ctx context.Context, consumer, eventID, orgID, grantID string, bucket ledger.Bucket, credits int64, reason string) error {
	_, err := s.run(ctx, &op{orgID: orgID, inbox: &messaging.InboxClaim{Consumer: consumer, EventID: eventID},
		decide: func(a *ledger.Account, _ *view) ([]ledger.Event, error) {
			return a.Grant(grantID, bucket, credits, reason, now())
		}})
	return err
}

// ExpireDue expires pending reservations past their TTL, up to limit
// accounts per call, and returns how many reservations it expired.
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
		evs, err := s.run(ctx, &op{orgID: org, decide: func(a *ledger.Account, _ *view) ([]ledger.Event, error) {
			return a.ExpireDue(now()), nil
		}})
		if err != nil {
			return n, err
		}
		n += len(evs)
	}
	return n, nil
}

// Balance is the credits projection of one account.
type Balance struct {
	Tier, BillingCycle      string
	Subscription, Purchased int64
}

// ErrNoAccount means the organization's account is not open (yet).
var ErrNoAccount = errors.New("postgres: no account")

// Balance reads an account's available credits.
func (s *Store) Balance(ctx context.Context, orgID string) (Balance, error) {
	var b Balance
	err := s.pool.QueryRow(ctx, `SELECT tier, billing_cycle, subscription, purchased FROM balances WHERE org_id = $1`, orgID).
		Scan(&b.Tier, &b.BillingCycle, &b.Subscription, &b.Purchased)
	if errors.Is(err, pgx.ErrNoRows) {
		return Balance{}, ErrNoAccount
	}
	return b, err
}

// Usage is one usage-history row.
type Usage struct {
	ID, Operation, Status, ResourceType, ResourceID string
	Credits                                         int64
	CreatedAt                                       time.Time
	SettledAt                                       *time.Time
}

// UsagePage lists an account's reservations newest first.
func (s *Store) UsagePage(ctx context.Context, orgID string, offset, limit int) ([]Usage, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM usage WHERE org_id = $1`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("postgres: count usage: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT reservation_id, operation, status, resource_type, resource_id, credits, created_at, settled_at
		FROM usage WHERE org_id = $1 ORDER BY created_at DESC, reservation_id DESC OFFSET $2 LIMIT $3`, orgID, offset, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: list usage: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Usage, error) {
		var u Usage
		err := r.Scan(&u.ID, &u.Operation, &u.Status, &u.ResourceType, &u.ResourceID, &u.Credits, &u.CreatedAt, &u.SettledAt)
		return u, err
	})
	return items, total, err
}
