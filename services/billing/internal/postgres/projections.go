package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
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

// DefaultRebuildBatch is the batch size of Rebuild when given none.
const DefaultRebuildBatch = 5000

// Rebuild replays every stream into the projection tables and returns how
// many streams it replayed. It streams the events in pages of batch events
// and runs one transaction per batch of streams: whole streams until the
// batch holds about batch events, so a longer stream is a batch of its
// own. The transaction takes the advisory
// locks of those accounts (the ones every ledger command takes), replaces
// their balance and usage rows from their events, and commits. Live
// commands for the accounts of the current batch wait for it; every other
// account is untouched, so billing keeps serving during a rebuild. Last,
// projection rows of accounts without events are deleted.
func (s *Store) Rebuild(ctx context.Context, batch int) (int, error) {
	if batch < 1 {
		batch = DefaultRebuildBatch
	}
	n, after := 0, ""
	for {
		streams, err := nextStreams(ctx, s.pool, after, batch)
		if err != nil {
			return n, fmt.Errorf("postgres: rebuild: %w", err)
		}
		if len(streams) == 0 {
			break
		}
		if err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			orgs := make([]string, len(streams))
			for i, st := range streams {
				orgs[i] = strings.TrimPrefix(st, "account-")
			}
			b := &pgx.Batch{}
			queueLocks(b, streams)
			b.Queue(`DELETE FROM usage WHERE org_id = ANY($1::uuid[])`, orgs)
			b.Queue(`DELETE FROM balances WHERE org_id = ANY($1::uuid[])`, orgs)
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			_, err := replay(ctx, tx, streams, batch, balancesTable, usageTable)
			return err
		}); err != nil {
			return n, fmt.Errorf("postgres: rebuild %s..%s: %w", streams[0], streams[len(streams)-1], err)
		}
		n += len(streams)
		after = streams[len(streams)-1]
	}
	for _, q := range []string{
		`DELETE FROM balances p WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.stream = 'account-' || p.org_id::text)`,
		`DELETE FROM usage p WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.stream = 'account-' || p.org_id::text)`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			return n, fmt.Errorf("postgres: rebuild: orphan projections: %w", err)
		}
	}
	s.cache.clear()
	return n, nil
}

// nextStreams returns the streams after after that hold the next batch
// events (at least one stream when any is left).
func nextStreams(ctx context.Context, q querier, after string, batch int) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT stream FROM
		(SELECT stream FROM events WHERE stream > $1 ORDER BY stream, version LIMIT $2) s ORDER BY stream`, after, batch)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// queueLocks takes the account locks of the ledger's writers, in their order.
func queueLocks(b *pgx.Batch, streams []string) {
	b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended(stream, 0)) FROM unnest($1::text[]) AS s(stream)`, streams)
}

// VerifyProjections replays every stream into temporary tables and compares
// them with the live projections. It returns nil when they are equal. It
// blocks appends while it runs: it is a check for tests and audits.
func (s *Store) VerifyProjections(ctx context.Context) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE events IN SHARE MODE`); err != nil {
			return err
		}
		for _, t := range []string{balancesTable, usageTable} {
			if _, err := tx.Exec(ctx, `CREATE TEMP TABLE rebuilt_`+t+` (LIKE `+t+` INCLUDING ALL) ON COMMIT DROP`); err != nil {
				return err
			}
		}
		if _, err := replay(ctx, tx, nil, DefaultRebuildBatch, "rebuilt_"+balancesTable, "rebuilt_"+usageTable); err != nil {
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

// replay folds the events of streams (every stream when nil) into the
// projection tables balances and usage, reading them page events at a time, so
// memory holds one page and one account's state however many events there
// are. Each page's projection writes go in one pipeline. It returns how
// many streams it replayed.
func replay(ctx context.Context, tx pgx.Tx, streams []string, page int, balances, usage string) (int, error) {
	q := `SELECT stream, version, type, data FROM events WHERE (stream, version) > ($1, $2) ORDER BY stream, version LIMIT $3`
	args := []any{"", int64(0), page}
	if streams != nil {
		q = `SELECT stream, version, type, data FROM events WHERE stream = ANY($4) AND (stream, version) > ($1, $2) ORDER BY stream, version LIMIT $3`
		args = append(args, streams)
	}
	var a *ledger.Account
	n := 0
	for {
		b := &pgx.Batch{}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		read := 0
		var stream string
		var version int64
		for rows.Next() {
			var typ string
			var data []byte
			if err := rows.Scan(&stream, &version, &typ, &data); err != nil {
				rows.Close()
				return 0, err
			}
			read++
			if a == nil || Stream(a.ID) != stream {
				if a != nil {
					queueBalance(b, balances, a.ID, a)
				}
				a = ledger.New(strings.TrimPrefix(stream, "account-"))
				n++
			}
			e, err := DecodeEvent(typ, data)
			if err != nil {
				rows.Close()
				return 0, err
			}
			a.Apply(e)
			queueUsage(b, usage, a.ID, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
		if read < page && a != nil {
			queueBalance(b, balances, a.ID, a)
		}
		if b.Len() > 0 {
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return 0, err
			}
		}
		if read < page {
			return n, nil
		}
		args[0], args[1] = stream, version
	}
}
