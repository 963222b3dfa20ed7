package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/services/billing/internal/ledger"
)

// The projection tables. Rebuild writes the same statements into shadow
// tables to compare; names are constants, never input.
const (
	balancesTable = "balances"
	usageTable    = "usage"
)

// queueUsage records the usage-history effect of one event.
func queueUsage(b *pgx.Batch, table, orgID string, e ledger.Event) {
	switch e := e.(type) {
	case ledger.CreditsReserved:
		b.Queue(`INSERT INTO `+table+` (reservation_id, org_id, operation, credits, subscription, purchased, status, resource_type, resource_id, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, 'reserved', $7, $8, $9, $10)`,
			e.ReservationID, orgID, e.Operation, e.Credits, e.FromSubscription, e.FromPurchased, e.ResourceType, e.ResourceID, e.At, e.ExpiresAt)
	case ledger.ReservationCommitted:
		queueSettle(b, table, e.ReservationID, "committed", e.At)
	case ledger.ReservationRefunded:
		queueSettle(b, table, e.ReservationID, "refunded", e.At)
	case ledger.ReservationExpired:
		queueSettle(b, table, e.ReservationID, "expired", e.At)
	}
}

func queueSettle(b *pgx.Batch, table, id, status string, at time.Time) {
	b.Queue(`UPDATE `+table+` SET status = $2, settled_at = $3 WHERE reservation_id = $1 AND status = 'reserved'`, id, status, at)
}

// queueBalance writes the account's balances as they are after its events.
func queueBalance(b *pgx.Batch, table, orgID string, a *ledger.Account) {
	if !a.Opened {
		return
	}
	b.Queue(`INSERT INTO `+table+` (org_id, tier, billing_cycle, subscription, purchased, reserved, granted, committed, version)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (org_id) DO UPDATE SET tier = excluded.tier, billing_cycle = excluded.billing_cycle,
			subscription = excluded.subscription, purchased = excluded.purchased, reserved = excluded.reserved,
			granted = excluded.granted, committed = excluded.committed, version = excluded.version`,
		orgID, a.Tier, a.Cycle, a.Subscription, a.Purchased, a.Reserved(), a.Granted, a.Committed, a.Version)
}

// Rebuild replays every stream into the projection tables, replacing their
// contents, in one transaction. It returns how many streams it replayed.
func (s *Store) Rebuild(ctx context.Context) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// SHARE mode blocks appends while the projections are replaced.
		if _, err := tx.Exec(ctx, `LOCK TABLE events IN SHARE MODE`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `TRUNCATE balances, usage`); err != nil {
			return err
		}
		var err error
		n, err = replay(ctx, tx, balancesTable, usageTable)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: rebuild: %w", err)
	}
	s.cache.clear()
	return n, nil
}

// VerifyProjections replays every stream into temporary tables and compares
// them with the live projections. It returns nil when they are equal.
func (s *Store) VerifyProjections(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE events IN SHARE MODE`); err != nil {
			return err
		}
		for _, t := range []string{balancesTable, usageTable} {
			if _, err := tx.Exec(ctx, `CREATE TEMP TABLE rebuilt_`+t+` (LIKE `+t+` INCLUDING ALL) ON COMMIT DROP`); err != nil {
				return err
			}
		}
		if _, err := replay(ctx, tx, "rebuilt_"+balancesTable, "rebuilt_"+usageTable); err != nil {
			return err
		}
		var errs []error
		for _, t := range []string{balancesTable, usageTable} {
			var diff int
			q := fmt.Sprintf(`SELECT count(*) FROM ((TABLE %[1]s EXCEPT TABLE rebuilt_%[1]s) UNION ALL (TABLE rebuilt_%[1]s EXCEPT TABLE %[1]s)) d`, t)
			if err := tx.QueryRow(ctx, q).Scan(&diff); err != nil {
				return err
			}
			if diff != 0 {
				errs = append(errs, fmt.Errorf("%s differs from a rebuild in %d rows", t, diff))
			}
		}
		return errors.Join(errs...)
	})
}

func replay(ctx context.Context, tx pgx.Tx, balances, usage string) (int, error) {
	rows, err := tx.Query(ctx, `SELECT stream, type, data FROM events ORDER BY stream, version`)
	if err != nil {
		return 0, err
	}
	type rec struct {
		stream, typ string
		data        []byte
	}
	var all []rec
	for rows.Next() {
		var r rec
		if err := rows.Scan(&r.stream, &r.typ, &r.data); err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	streams := 0
	b := &pgx.Batch{}
	var a *ledger.Account
	flush := func() {
		if a != nil {
			queueBalance(b, balances, a.ID, a)
		}
	}
	for _, r := range all {
		if a == nil || Stream(a.ID) != r.stream {
			flush()
			a = ledger.New(r.stream[len("account-"):])
			streams++
		}
		e, err := DecodeEvent(r.typ, r.data)
		if err != nil {
			return 0, err
		}
		a.Apply(e)
		queueUsage(b, usage, a.ID, e)
		if b.Len() >= 1000 {
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return 0, err
			}
			b = &pgx.Batch{}
		}
	}
	flush()
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, err
	}
	return streams, nil
}

func (c *accountCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}
