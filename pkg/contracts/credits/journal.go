package credits

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
)

// Journal states (credits_0001_reservations.sql).
const (
	stateReserving = "reserving"
	stateReserved  = "reserved"
	stateRefused   = "refused"
	stateCompleted = "completed"
	stateFailed    = "failed"
)

// journalTimeout bounds the journal writes made after billing answered.
// They run detached from the request: a client that hung up must not
// leave billing's state and the journal disagreeing.
const journalTimeout = 5 * time.Second

func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
}

const reservationColumns = `reservation_id::text, org_id::text, operation, item, credits, resource_type, resource_id`

func scanReservation(row pgx.Row, extra ...any) (Reservation, error) {
	var r Reservation
	err := row.Scan(append([]any{&r.ID, &r.OrgID, &r.Operation, &r.Item, &r.Credits, &r.ResourceType, &r.ResourceID}, extra...)...)
	return r, err
}

// open journals one reservation per item, state reserving, before billing
// is asked, so that a crash during the call leaves a row for recovery.
// An item whose last reservation is still open is in progress
// (errInProgress), unless that reservation's owner is dead: then nothing
// is journaled, and open returns the ids of the open reservations of dead
// owners (orphans) for the caller to recover.
func (c *Client) open(ctx context.Context, req Request) (rs []Reservation, orphans []string, err error) {
	rs = make([]Reservation, len(req.Items))
	err = pgx.BeginFunc(ctx, c.cfg.Pool, func(tx pgx.Tx) error {
		for i, it := range req.Items {
			base := ReservationID(req.OrgID, req.Operation, req.Key, i, 0)
			gen := 0
			var last int
			var lastID, state string
			var orphan bool
			// Only an open row's owner is looked up (CASE is lazy): the
			// locks are read on a retry of a request in progress alone.
			err := tx.QueryRow(ctx, `SELECT reservation_id::text, generation, state,
				CASE WHEN state IN ('reserving', 'reserved') THEN `+orphaned+` ELSE false END
				FROM credit_reservations WHERE base_id = $1 ORDER BY generation DESC LIMIT 1 FOR UPDATE`,
				base, c.owner.id.Load()).Scan(&lastID, &last, &state, &orphan)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
			case err != nil:
				return fmt.Errorf("credits: journal: read %s: %w", base, err)
			case (state == stateReserving || state == stateReserved) && orphan:
				orphans = append(orphans, lastID)
				continue
			case state == stateReserving || state == stateReserved:
				return errInProgress
			default:
				gen = last + 1
			}
			rs[i] = Reservation{
				ID: ReservationID(req.OrgID, req.Operation, req.Key, i, gen), OrgID: req.OrgID, Operation: req.Operation,
				Item: i, Credits: it.Credits, ResourceType: it.ResourceType, ResourceID: it.ResourceID,
			}
			r := rs[i]
			if _, err := tx.Exec(ctx, `INSERT INTO credit_reservations
				(reservation_id, base_id, generation, org_id, operation, item, credits, resource_type, resource_id, state, owner)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'reserving', nullif($10, 0))`,
				r.ID, base, gen, r.OrgID, r.Operation, r.Item, r.Credits, r.ResourceType, r.ResourceID, c.owner.id.Load()); err != nil {
				if pgkit.IsUniqueViolation(err, "") {
					return errInProgress // a concurrent call of the same request
				}
				return fmt.Errorf("credits: journal: insert %s: %w", r.ID, err)
			}
		}
		if len(orphans) > 0 {
			return errOrphaned // journal nothing until they are recovered
		}
		return nil
	})
	switch {
	case errors.Is(err, errOrphaned):
		return nil, orphans, nil
	case err != nil:
		return nil, nil, err
	}
	return rs, nil, nil
}

// errOrphaned rolls back an open that met reservations of dead owners.
var errOrphaned = errors.New("credits: the request's last reservations are a dead process's")

// openRetry opens req's reservations (open). A retry of a request whose
// process died finds that process's reservations still open, and does not
// wait for the recovery pass: nothing can be working on them, so they are
// recovered here, as the pass would (with their rows locked, judged by
// the Resolver of Start), and the request runs again. One a recovery
// keeps open (Running: work that outlives its process) is in progress.
func (c *Client) openRetry(ctx context.Context, req Request) ([]Reservation, error) {
	rs, orphans, err := c.open(ctx, req)
	if err != nil || len(orphans) == 0 {
		return rs, err
	}
	resolve := c.resolver()
	if resolve == nil {
		return nil, errInProgress // a client never started leaves them to the pass
	}
	for _, id := range orphans {
		// The row lock is waited for: a pass recovering it holds it.
		if _, err := c.recoverOne(ctx, id, resolve, waitLocked, orphaned, c.owner.id.Load()); err != nil {
			return nil, err
		}
	}
	if rs, orphans, err = c.open(ctx, req); len(orphans) > 0 {
		return nil, errInProgress // an owner died again meanwhile
	}
	return rs, err
}

var errInProgress = apierr.New(apierr.IdempotencyConflict, "this request is still in progress; retry later")

// confirm records that billing holds every reservation of rs.
func (c *Client) confirm(ctx context.Context, rs []Reservation) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	tag, err := c.cfg.Pool.Exec(ctx, `UPDATE credit_reservations SET state = 'reserved', updated_at = now()
		WHERE reservation_id = ANY($1::uuid[]) AND state = 'reserving'`, ids(rs))
	if err != nil {
		return fmt.Errorf("credits: journal: confirm: %w", err)
	}
	if tag.RowsAffected() != int64(len(rs)) {
		// The recovery pass failed some of them while billing was slow.
		return fmt.Errorf("credits: journal: %d of %d reservations were no longer open", int64(len(rs))-tag.RowsAffected(), len(rs))
	}
	return nil
}

// release ends a Reserve that did not get every reservation: those in
// failed (held, or maybe held) get their failure event, the rest of all
// are marked refused, in one transaction.
func (c *Client) release(ctx context.Context, all, failed []Reservation, reason string) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, c.cfg.Pool, func(tx pgx.Tx) error {
		for _, r := range failed {
			if err := c.settle(ctx, tx, r, stateFailed, reason, events.Envelope{}, stateReserving); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE credit_reservations SET state = 'refused', updated_at = now()
			WHERE reservation_id = ANY($1::uuid[]) AND state = 'reserving'`, ids(all)); err != nil {
			return fmt.Errorf("credits: journal: refuse: %w", err)
		}
		return nil
	})
}

func ids(rs []Reservation) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// Complete records that r's work succeeded, in tx, the transaction that
// stores the work's result: env, the operation's completed event carrying
// r.ID (billing commits the reservation on it), goes to the outbox and the
// journal closes r. It returns ErrSettled when r was failed meanwhile (its
// credits are refunded: do not deliver the work as paid; roll tx back) and
// ErrUnknown for a reservation this service never made.
func (c *Client) Complete(ctx context.Context, tx pgx.Tx, r Reservation, env events.Envelope) error {
	if p := strings.Split(env.Type, "."); len(p) != 4 || p[2] != "completed" {
		return fmt.Errorf("credits: complete %s with %q, not a *.completed.v1 event", r.ID, env.Type)
	}
	if env.OrgID != r.OrgID {
		return fmt.Errorf("credits: complete %s with an event of organization %q", r.ID, env.OrgID)
	}
	return c.settle(ctx, tx, r, stateCompleted, "", env, stateReserved)
}

// Fail records that r's work failed, in tx: the operation's failed event
// goes to the outbox (billing refunds r on it) and the journal closes r.
// Failing a failed reservation does nothing; failing a completed one
// returns ErrSettled, an unknown one ErrUnknown.
func (c *Client) Fail(ctx context.Context, tx pgx.Tx, r Reservation, reason string) error {
	return c.settle(ctx, tx, r, stateFailed, reason, events.Envelope{}, stateReserved)
}

// Refund fails rs, whose work stored nothing (it failed before its result,
// or the result could not be written), in a transaction of its own: each
// one's failed event goes to the outbox and the journal closes it. Work
// whose failure is itself stored state settles in that state's
// transaction instead (Fail). Refund runs detached from ctx's
// cancellation: a client that hung up still gets its credits back. Errors
// are Fail's, for any of rs, and then none is failed; one left open is
// failed by the recovery pass.
func (c *Client) Refund(ctx context.Context, reason string, rs ...Reservation) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, c.cfg.Pool, func(tx pgx.Tx) error {
		for _, r := range rs {
			if err := c.Fail(ctx, tx, r, reason); err != nil {
				return err
			}
		}
		return nil
	})
}

// settle closes r (found in one of the states from) as to, and writes its
// terminal event: env, or for a failure the configured failed event.
func (c *Client) settle(ctx context.Context, tx pgx.Tx, r Reservation, to, reason string, env events.Envelope, from ...string) error {
	tag, err := tx.Exec(ctx, `UPDATE credit_reservations SET state = $2, updated_at = now()
		WHERE reservation_id = $1 AND state = ANY($3)`, r.ID, to, from)
	if err != nil {
		return fmt.Errorf("credits: journal: close %s: %w", r.ID, err)
	}
	if tag.RowsAffected() == 0 {
		var state string
		err := tx.QueryRow(ctx, `SELECT state FROM credit_reservations WHERE reservation_id = $1`, r.ID).Scan(&state)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("%w: %s", ErrUnknown, r.ID)
		case err != nil:
			return fmt.Errorf("credits: journal: read %s: %w", r.ID, err)
		case state == to && to == stateFailed:
			return nil // its failure event is written already
		}
		return fmt.Errorf("%w: %s is %s", ErrSettled, r.ID, state)
	}
	if to == stateFailed {
		if env, err = events.NewWithID(ctx, failedEventID(r.ID), c.cfg.FailedSubject, c.cfg.Source, r.OrgID, c.cfg.FailedPayload(r, reason)); err != nil {
			return err
		}
	}
	return messaging.WriteOutbox(ctx, tx, env)
}
