package messaging

import (
	"fmt"

	"github.com/jackc/pgx/v5"
)

// InboxClaim names one (consumer, event) claim; it is comparable, so it can
// key the result map of QueueClaimInbox.
type InboxClaim struct {
	Consumer string
	EventID  string
}

// QueueClaimInbox queues on b one statement claiming every claim at once,
// for handlers that batch many events into one transaction. When the batch
// runs (in the transaction of the effects), claimed[c] is set to true for
// each claim this transaction made first; a claim left unset was processed
// before, and its effect must be skipped. Repeated claims in one call are
// claimed once. With no claims nothing is queued.
func QueueClaimInbox(b *pgx.Batch, claims []InboxClaim, claimed map[InboxClaim]bool) {
	if len(claims) == 0 {
		return
	}
	consumers := make([]string, 0, len(claims))
	ids := make([]string, 0, len(claims))
	seen := make(map[InboxClaim]bool, len(claims))
	for _, c := range claims {
		if seen[c] {
			continue
		}
		seen[c] = true
		consumers = append(consumers, c.Consumer)
		ids = append(ids, c.EventID)
	}
	b.Queue(`INSERT INTO inbox (consumer, event_id)
		SELECT * FROM unnest($1::text[], $2::text[])
		ON CONFLICT DO NOTHING
		RETURNING consumer, event_id`, consumers, ids).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var c InboxClaim
			if err := rows.Scan(&c.Consumer, &c.EventID); err != nil {
				return fmt.Errorf("messaging: inbox: read claims: %w", err)
			}
			claimed[c] = true
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("messaging: inbox: claim %d events: %w", len(ids), err)
		}
		return nil
	})
}

// QueueReleaseInbox queues on b the removal of claims made earlier in the
// same transaction whose effect was refused, so a redelivery of the event
// is processed instead of being taken for a duplicate.
func QueueReleaseInbox(b *pgx.Batch, claims []InboxClaim) {
	if len(claims) == 0 {
		return
	}
	consumers := make([]string, len(claims))
	ids := make([]string, len(claims))
	for i, c := range claims {
		consumers[i], ids[i] = c.Consumer, c.EventID
	}
	b.Queue(`DELETE FROM inbox WHERE (consumer, event_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, consumers, ids)
}
