package credits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/events"
)

// Verdict is what a Resolver found about a reservation's work.
type Verdict int

// Verdicts.
const (
	// Running: the work is still going (a long render); look again later.
	Running Verdict = iota
	// Completed: the work's result exists; Resolution.Event is its
	// completed event.
	Completed
	// Failed: the work did not finish and will not.
	Failed
)

// Resolution is a Resolver's answer.
type Resolution struct {
	Verdict Verdict
	Event   events.Envelope // for Completed
	Reason  string          // for Failed
}

// Resolver decides the fate of a reservation whose work ran but was never
// settled: the service's rule over what its store holds for r. Recover
// calls it with r's journal row locked, and the work settles through that
// same row (Complete, Fail), so whichever of the two comes second finds r
// closed: a result still uncommitted when the resolver looks gets
// ErrSettled when it tries to settle, and is not delivered. The resolver
// therefore reads committed state through the service's ports and needs
// no transaction; the one that records its verdict is Recover's. It may
// take a connection from the client's own pool: recoveries hold at most
// half of it at once (New refuses a pool of one).
type Resolver func(ctx context.Context, r Reservation) (Resolution, error)

// recoverBatch bounds the reservations one pass looks at.
const recoverBatch = 500

// due is the condition of an open journal row the pass ends: untouched
// for the grace ($3 seconds), or orphaned ($2 is this process's owner
// number).
var due = `(updated_at < now() - make_interval(secs => $3) OR ` + orphaned + `)`

// Recover is the recovery pass of ARCHITECTURE §3: every reservation of
// this service still open is ended once nothing can be working on it:
// at once when the process that made it is dead (its owner lock is gone,
// owner.go), else when it was untouched for grace. grace must exceed the
// reserve timeout, and for reserved rows the time the work may take
// without the Resolver being asked; it is the last resort for work a live
// process lost, before billing's TTL. (A retry of a dead owner's request
// does not wait for the pass: Reserve recovers the request's
// reservations the same way, one by one.)
//   - reserving (the call to billing was under way): the work never
//     started, so it is failed; billing refunds the reservation if it
//     landed, or remembers the refund if it lands later;
//   - reserved (the work started and was never settled): resolve decides,
//     with the row locked; Running (work that outlives its process, a
//     queued render) makes this process the row's owner and leaves it for
//     another grace period.
//
// Each reservation is handled in its own transaction with its row locked,
// so replicas running the pass at once do not collide, and one failure
// does not hold back the rest. It returns how many reservations it settled
// and the errors met.
func (c *Client) Recover(ctx context.Context, grace time.Duration, resolve Resolver) (int, error) {
	if grace <= c.cfg.Timeout {
		// A younger `reserving` row may still have its call in flight.
		return 0, fmt.Errorf("credits: recovery grace %s must exceed the reserve timeout %s", grace, c.cfg.Timeout)
	}
	rows, err := c.cfg.Pool.Query(ctx, `SELECT reservation_id::text FROM credit_reservations
		WHERE state IN ('reserving', 'reserved') AND `+due+`
		ORDER BY updated_at LIMIT $1`, recoverBatch, c.owner.id.Load(), grace.Seconds())
	if err != nil {
		return 0, fmt.Errorf("credits: recover: list: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("credits: recover: list: %w", err)
	}
	var n int
	var errs []error
	for _, id := range ids {
		done, err := c.recoverOne(ctx, id, resolve, skipLocked, due, c.owner.id.Load(), grace.Seconds())
		if err != nil {
			errs = append(errs, err)
		}
		if done {
			n++
		}
	}
	return n, errors.Join(errs...)
}

// Row locks of recoverOne.
const (
	// skipLocked: the pass leaves a reservation another process is
	// recovering (or settling) to it.
	skipLocked = "FOR UPDATE SKIP LOCKED"
	// waitLocked: a retry waits for that process, then finds the
	// reservation settled.
	waitLocked = "FOR UPDATE"
)

// recoverOne ends reservation id if it is still open and meets cond, an
// SQL condition over its journal row with arguments args from $2 on, with
// its row locked (lock); the Resolver decides a reserved one. It reports
// whether it settled the reservation: not when it was settled meanwhile
// (by its work, or by another recovery), met cond no more, or is Running.
func (c *Client) recoverOne(ctx context.Context, id string, resolve Resolver, lock, cond string, args ...any) (settled bool, err error) {
	select {
	case c.recovering <- struct{}{}:
		defer func() { <-c.recovering }()
	case <-ctx.Done():
		return false, ctx.Err()
	}
	var outcome Outcome
	var r Reservation
	err = pgx.BeginFunc(ctx, c.cfg.Pool, func(tx pgx.Tx) error {
		var state string
		var err error
		r, err = scanReservation(tx.QueryRow(ctx, `SELECT `+reservationColumns+`, state FROM credit_reservations
			WHERE reservation_id = $1 AND state IN ('reserving', 'reserved') AND `+cond+` `+lock,
			append([]any{id}, args...)...), &state)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // settled meanwhile, or another process has it
		}
		if err != nil {
			return fmt.Errorf("credits: recover %s: %w", id, err)
		}
		res := Resolution{Verdict: Failed, Reason: "the reservation was never confirmed (the service stopped during the call)"}
		if state == stateReserved {
			if res, err = resolve(ctx, r); err != nil {
				return fmt.Errorf("credits: recover %s: resolve: %w", id, err)
			}
		}
		switch res.Verdict {
		case Running:
			_, err := tx.Exec(ctx, `UPDATE credit_reservations SET updated_at = now(), owner = nullif($2, 0) WHERE reservation_id = $1`,
				id, c.owner.id.Load())
			return err
		case Completed:
			outcome = RecoveredCompleted
			if err := c.Complete(ctx, tx, r, res.Event); err != nil {
				return fmt.Errorf("credits: recover %s: %w", id, err)
			}
			return nil
		case Failed:
			outcome = RecoveredFailed
			if res.Reason == "" {
				res.Reason = "the work was interrupted"
			}
			return c.settle(ctx, tx, r, stateFailed, res.Reason, events.Envelope{}, state)
		}
		return fmt.Errorf("credits: recover %s: unknown verdict %d", id, res.Verdict)
	})
	if err != nil || outcome == "" {
		return false, err
	}
	c.observe(r.Operation, outcome)
	c.cfg.Log.InfoContext(ctx, "recovered reservation", "reservation_id", id, "operation", r.Operation, "outcome", outcome)
	return true, nil
}

// RecoveryWorker runs Recover, with the Resolver given to Start, at
// start and then every interval until ctx ends, logging failures, and
// keeps the owner lock of Start; it fits platform.Serve's workers.
func (c *Client) RecoveryWorker(interval, grace time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		resolve := c.resolver()
		if resolve == nil {
			return errors.New("credits: recovery worker of a client never started")
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if err := c.keepOwner(ctx); err != nil && ctx.Err() == nil {
				c.cfg.Log.WarnContext(ctx, "reservation owner lock", "err", err)
			}
			n, err := c.Recover(ctx, grace, resolve)
			switch {
			case err != nil && ctx.Err() == nil:
				c.cfg.Log.WarnContext(ctx, "reservation recovery", "settled", n, "err", err)
			case n == recoverBatch:
				continue // more may be due
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	}
}
