package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/billing/internal/ledger"
)

// Source names billing in event envelopes.
const Source = "billing"

// SnapshotEvery is how many events pass between snapshots of a stream.
const SnapshotEvery = 100

// snapshotDue reports whether a stream that moved from version from to to
// passed one of its snapshot points: every SnapshotEvery versions, offset
// by a hash of the stream. Without the offset, accounts that are opened
// together and used evenly all reach version 100, 200... in the same
// group: billing's benchmark saw every account's snapshot (each holding its
// pending reservations) written in one group, and every reservation queued
// behind that group stalled.
func snapshotDue(stream string, from, to int64) bool {
	off := int64(crc32.ChecksumIEEE([]byte(stream)) % SnapshotEvery)
	return (to+off)/SnapshotEvery > (from+off)/SnapshotEvery
}

// eventNamespace derives deterministic envelope ids from (stream, version),
// so an event re-sent after a crash carries the id it had the first time.
var eventNamespace = uuid.MustParse("6c1f1b0e-6a4f-4c4e-9a8e-0b9b7b1c2d3e")

// Stream is the stream name of an organization's account.
func Stream(orgID string) string { return "account-" + orgID }

func load(ctx context.Context, c querier, orgID, stream string) (*ledger.Account, error) {
	a := ledger.New(orgID)
	var version int64
	var state []byte
	err := c.QueryRow(ctx, `SELECT version, state FROM snapshots WHERE stream = $1`, stream).Scan(&version, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("postgres: snapshot of %s: %w", stream, err)
	default:
		if a, err = decodeSnapshot(orgID, version, state); err != nil {
			return nil, err
		}
	}
	rows, err := c.Query(ctx, `SELECT type, data FROM events WHERE stream = $1 AND version > $2 ORDER BY version`, stream, a.Version)
	if err != nil {
		return nil, fmt.Errorf("postgres: events of %s: %w", stream, err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var data []byte
		if err := rows.Scan(&typ, &data); err != nil {
			return nil, err
		}
		e, err := DecodeEvent(typ, data)
		if err != nil {
			return nil, err
		}
		a.Apply(e)
	}
	return a, rows.Err()
}

// envelope maps a ledger event to its public billing.credit.* event;
// available is the account's available credits once e applied.
func envelope(ctx context.Context, orgID, stream string, version, available int64, e ledger.Event) (events.Envelope, bool, error) {
	m := events.CreditsMoved{AccountID: orgID, Version: version, Available: &available}
	var typ string
	switch e := e.(type) {
	case ledger.CreditsGranted:
		typ, m.GrantID, m.Credits = events.BillingCreditGranted, e.GrantID, e.Credits
		if e.Bucket == ledger.Purchased {
			m.Purchased = e.Credits
		} else {
			m.Subscription = e.Credits
		}
	case ledger.CreditsAdjusted:
		typ, m.AdjustmentID, m.Subscription, m.Purchased, m.Credits = events.BillingCreditAdjusted, e.AdjustmentID, e.Subscription, e.Purchased, e.Subscription+e.Purchased
	case ledger.CreditsReserved:
		typ, m.ReservationID, m.Credits, m.Subscription, m.Purchased = events.BillingCreditReserved, e.ReservationID, e.Credits, e.FromSubscription, e.FromPurchased
		m.Operation, m.ResourceType, m.ResourceID = e.Operation, e.ResourceType, e.ResourceID
	case ledger.ReservationCommitted:
		typ, m.ReservationID = events.BillingCreditCommitted, e.ReservationID
	case ledger.ReservationRefunded:
		typ, m.ReservationID, m.Subscription, m.Purchased, m.Credits = events.BillingCreditRefunded, e.ReservationID, e.Subscription, e.Purchased, e.Subscription+e.Purchased
	case ledger.ReservationExpired:
		typ, m.ReservationID, m.Subscription, m.Purchased, m.Credits = events.BillingCreditExpired, e.ReservationID, e.Subscription, e.Purchased, e.Subscription+e.Purchased
	default:
		return events.Envelope{}, false, nil
	}
	id := uuid.NewSHA1(eventNamespace, fmt.Appendf(nil, "%s:%d", stream, version)).String()
	env, err := events.NewWithID(ctx, id, typ, Source, orgID, m)
	return env, err == nil, err
}

// now is the store's clock, in UTC and truncated to microseconds so values
// survive a round trip through timestamptz unchanged.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
