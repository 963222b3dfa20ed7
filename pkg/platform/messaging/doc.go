// Package messaging is the one messaging pattern of Hookline (ARCHITECTURE
// §4): a transactional outbox relayed to NATS JetStream, idempotent durable
// consumers, and request-reply on core NATS. Every service uses it the same
// way; none publishes to JetStream directly.
//
// # Publishing
//
// A service writes its events with WriteOutbox in the pgx transaction that
// changes its state, so an event exists if and only if the change committed.
// One Relay per schema (the others are hot standbys behind an advisory lock)
// publishes the rows in (txid, seq) order, only once their transaction is
// below the snapshot xmin, i.e. no longer in flight. A bigserial cursor is
// not enough: sequence values are taken at insert time but become visible at
// commit time, so a reader can pass over a value whose transaction commits a
// moment later. Each message carries Nats-Msg-Id = event id, so the re-publish
// after a relay crash (published, not yet deleted) is dropped by the stream's
// duplicate window; consumers deduplicate anything older with the inbox. For
// the same reason the relay's session commits its DELETEs with
// synchronous_commit off: one lost in a database crash is only a re-publish,
// and the service's own commits do not queue behind its WAL flushes.
//
// The relay is woken by LISTEN/NOTIFY (channel "outbox_" + schema), or, for
// rows queued through Relay.QueueOutbox while it leads, in-process by
// Relay.Committed with no NOTIFY at all; it re-checks after a few
// milliseconds when committed rows wait behind an older open transaction,
// and polls as a fallback. Transaction ids are cluster-wide, so
// a writing transaction left open anywhere in the cluster holds every relay
// back; after Relay.MaxHold (5 s) the relay publishes committed rows past it,
// out of txid order, rather than stall (see hookline.messaging.relay.forced).
//
// JetStream deduplicates only within its 2-minute window, and a message may
// be lost by the broker (ARCHITECTURE §4): Postgres stays the truth, and an
// event can be re-driven by inserting its envelope into the outbox again.
//
// # Consuming: the idempotency contract
//
// JetStream delivers at least once, so a Handler must be idempotent. The
// pattern every handler follows:
//
//	err := pgkit.InTx(ctx, pool, func(tx pgx.Tx) error {
//		first, err := messaging.ClaimInbox(ctx, tx, "billing-settle", e.ID)
//		if err != nil || !first {
//			return err // a repeat: the effect is already committed
//		}
//		return applyEffect(ctx, tx, e) // same transaction as the claim
//	})
//
// Consume acknowledges a message only after the handler returned nil, i.e.
// after the commit. A crash between commit and ack redelivers the message;
// the inbox row turns the repeat into a no-op. Returning Permanent(err), or
// an error wrapping events.ErrInvalid (how a service package, free of this
// one, says the event can never be applied), sends the message to the
// dead-letter subject at once; any other error is retried with backoff
// until MaxDeliver deliveries, then dead-lettered.
//
// Ordering: handlers of one consumer run concurrently (ConsumerConfig.Workers)
// and redeliveries overtake newer messages, so a handler must not rely on the
// order of events, not even within one account or entity. Where the first of
// two conflicting events must win, ConsumerConfig.OrderKey keeps the events
// of one key in delivery order within a process; billing keys settlements by
// reservation, and its ledger ignores any terminal event after the first.
//
// # Request-reply
//
// Serve and Request carry JSON over core NATS (never a stream) for the few
// synchronous calls of the system: billing's reserve and adjust, and the
// assets records a read model asks for on a miss. Every failure to get an
// answer (no responder, timeout, closed connection, handler error) is
// ErrUnavailable, which callers map to 503 without charging.
//
// # Read models
//
// A service that resolves another service's records (thumbnails the
// faces, styles, brands and collections a request names; clips the brand
// of a render) keeps a read model of them from the owner's events, so a
// request costs a local query instead of a call. A read model serves
// speed, never the truth about an id written a moment ago: it lags the
// owner by the outbox relay and the consumer, and a client that creates a
// record and uses it at once is ahead of it. The rule:
//
//   - A hit is the answer.
//   - A miss on an id the read model holds a row of (deleted, or another
//     organization's) is the answer too: a deletion is final and ids are
//     never reused.
//   - A miss on an id it has never seen asks the owner, synchronously and
//     as the caller's organization (events.AssetsRecordsRPC), before
//     anyone is told 404. The owner answers only that organization's
//     records, so another organization's id stays unknown.
//   - What the owner answers is stored in the read model like an event,
//     ordered by when the record last changed: an event of a later change
//     overwrites it, an event of an earlier one does not, and neither an
//     answer nor a late event brings a deleted record back. The request
//     then reads the read model again, so an event applied meanwhile wins.
//   - When the owner does not answer, the request fails with 503
//     `unavailable` (with Retry-After) and charges nothing: a 404 then
//     could be false, and a client that believes it gives up on a record
//     that exists.
//
// # Namespaces
//
// A Bus may carry a namespace that prefixes every subject ("ns.") and stream
// name ("NS_"), so tests and parallel environments share one NATS server
// without seeing each other's messages.
package messaging
