package messaging

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"hookline.dev/pkg/contracts/events"
)

// Migrations holds the outbox and inbox schema. Services apply it into their
// own schema before their own migrations:
//
//	pgkit.Migrate(ctx, pool, messaging.Migrations)
//
//go:embed *.sql
var Migrations embed.FS

// Queryer is what OutboxPending needs: a pool, a connection or a transaction.
type Queryer interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Execer is what PruneInbox needs: a pool, a connection or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// insertOutbox writes any number of envelopes in one statement, so one round
// trip carries a whole batch (billing writes one row per reservation, a
// group of them per transaction). WITH ORDINALITY keeps seq in argument
// order, which is the publish order within a transaction. A repeated id is
// the same event written again (ids are deterministic where retries
// happen), so it is skipped rather than failing the caller's transaction.
const insertOutbox = `
INSERT INTO outbox (id, subject, payload, traceparent)
SELECT e.id::uuid, e.subject, e.payload::jsonb, NULLIF(e.traceparent, '')
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
	WITH ORDINALITY AS e(id, subject, payload, traceparent, ord)
ORDER BY e.ord
ON CONFLICT (id) DO NOTHING`

// WriteOutbox records envs for publication in tx, the transaction of the
// state change they announce: they are published if and only if tx commits.
// Each envelope's Type is its subject (without namespace; the relay's bus
// adds it). It returns an error for an envelope without a uuid id or type.
func WriteOutbox(ctx context.Context, tx pgx.Tx, envs ...events.Envelope) error {
	args, err := outboxArgs(envs)
	if err != nil || args == nil {
		return err
	}
	if _, err := tx.Exec(ctx, insertOutbox, args...); err != nil {
		return fmt.Errorf("messaging: outbox: insert %d events: %w", len(envs), err)
	}
	return nil
}

// QueueOutbox is WriteOutbox for a pipelined transaction: the insert is
// queued on b, which must run inside the transaction of the state change
// (between its BEGIN and COMMIT), and its error surfaces with the batch's.
func QueueOutbox(b *pgx.Batch, envs ...events.Envelope) error {
	args, err := outboxArgs(envs)
	if err != nil || args == nil {
		return err
	}
	b.Queue(insertOutbox, args...)
	return nil
}

// outboxArgs validates and encodes envs as the arguments of insertOutbox;
// nil when there is nothing to insert.
func outboxArgs(envs []events.Envelope) ([]any, error) {
	if len(envs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(envs))
	subjects := make([]string, len(envs))
	payloads := make([]string, len(envs))
	tps := make([]string, len(envs))
	for i, e := range envs {
		if _, err := uuid.Parse(e.ID); err != nil {
			return nil, fmt.Errorf("messaging: outbox: event id %q is not a uuid: %w", e.ID, err)
		}
		if e.Type == "" {
			return nil, fmt.Errorf("messaging: outbox: event %s has no type", e.ID)
		}
		raw, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("messaging: outbox: marshal %s %s: %w", e.Type, e.ID, err)
		}
		ids[i], subjects[i], payloads[i], tps[i] = e.ID, e.Type, string(raw), e.Traceparent
	}
	return []any{ids, subjects, payloads, tps}, nil
}

// OutboxPending counts the outbox rows not yet published (committed ones,
// as seen by q). Tests wait for 0; readiness may alert on growth.
func OutboxPending(ctx context.Context, q Queryer) (int, error) {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n); err != nil {
		return 0, fmt.Errorf("messaging: count outbox: %w", err)
	}
	return n, nil
}

// ClaimInbox records that consumer has processed eventID, in tx, the
// transaction of the effect. It returns first=false when the event was
// already claimed (its effect is committed): the handler must then do
// nothing and return nil so the message is acked. Concurrent claims of one
// id serialize on the primary key; the loser sees false once the winner
// commits.
func ClaimInbox(ctx context.Context, tx pgx.Tx, consumer, eventID string) (first bool, err error) {
	if consumer == "" || eventID == "" {
		return false, errors.New("messaging: inbox: empty consumer or event id")
	}
	tag, err := tx.Exec(ctx,
		`INSERT INTO inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		consumer, eventID)
	if err != nil {
		return false, fmt.Errorf("messaging: inbox: claim %s for %s: %w", eventID, consumer, err)
	}
	return tag.RowsAffected() == 1, nil
}

// InboxRetention is how long inbox rows are kept: longer than the event
// streams keep messages by default, so no redelivery can outlive its row.
// A stream given a longer max_age outlives this guarantee.
const InboxRetention = events.EventMaxAge + 24*time.Hour

// PruneInbox deletes inbox rows processed before cutoff (normally now minus
// InboxRetention).
func PruneInbox(ctx context.Context, db Execer, cutoff time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM inbox WHERE processed_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("messaging: inbox: prune: %w", err)
	}
	return tag.RowsAffected(), nil
}
