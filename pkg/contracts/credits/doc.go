// Package credits is the one way a service pays for an operation: the
// service side of the credit saga of ARCHITECTURE §3. A Client asks billing
// to reserve credits (events.BillingReserveRPC), journals every reservation
// in the service's own schema, settles it with the operation's completed
// or failed event through the transactional outbox, and recovers
// reservations a crash left open.
//
// # Reserving
//
//	rs, err := client.Reserve(ctx, credits.Request{
//		OrgID: p.OrgID, Operation: "thumbnails.variations",
//		Key:   credits.KeyOf(p), // Idempotency-Key, else request id
//		Items: []credits.Item{{Credits: 1, ResourceType: "thumbnail", ResourceID: id}, ...},
//	})
//	if err != nil {
//		return err // an *apierr.Error: 402, 403, 409 or 503, or internal
//	}
//
// Outcomes map to the API as: ok → proceed; insufficient_credits → 402
// insufficient_credits; quota_exceeded → 403 quota_exceeded; no responder,
// timeout or an unreadable answer → 503 unavailable. A request of several
// items (variations, clips of a render) is all or nothing: when one item is
// refused, the reservations already made are released with a failed event
// each, and the refusal is returned.
//
// # Deterministic ids
//
// Reservation ids are UUIDv5 over (organization, operation, request key,
// item index, generation). The request key is the client's Idempotency-Key,
// which the gateway signs into the principal, or else the request id, so a
// repeated call reserves the same ids and billing holds them once. While a
// request's reservations are open and their process lives, calling
// Reserve again answers 409 idempotency_conflict instead of running the
// work twice on one charge; when their process is dead, Reserve first
// recovers them (see Owners).
// Once they are terminal, the next call takes the next generation: billing
// treats a known id as reserved already, so reusing one would run the work
// for free.
//
// # Lost answers
//
// A reserve call that times out may have been applied by billing after the
// caller gave up. The client then writes the operation's *.failed.v1 event
// for that id (with a deterministic event id) through the outbox. Billing
// refunds the reservation if it landed, and remembers a settlement that
// arrives before its reservation, applying it on arrival; either way
// nothing stays charged. A call that reached no responder cannot have been
// applied and writes nothing.
//
// # Settling and recovery
//
// The work's transaction calls Complete (with the completed event) or Fail;
// both close the journal row, so the first terminal outcome wins locally as
// it does in billing (Complete returns ErrSettled when the reservation was
// failed meanwhile). Work that stored nothing is refunded with Refund, in a
// transaction of its own. Recover, run at start-up and periodically
// (RecoveryWorker), finds the reservations nothing can still be working
// on: those of a process that is gone, at once, and any open longer than
// a grace period. Those whose reserve call never finished are failed; for
// the others a service Resolver decides completed, failed or still
// running. Billing's TTL is the last resort behind both.
//
// # Owners
//
// Start, called before the service serves, makes the process the owner
// of the reservations it journals: it holds a Postgres advisory lock of a
// number of its own for as long as it lives, and each journal row records
// that number. A killed process's session ends with it, and so does its
// lock; the next pass of any replica, the first of which is the restarted
// process's start-up, then settles its open reservations from what was
// stored, without waiting for the grace, which only a live owner's work
// (a long generation, a queued render) still needs (owner.go). A client
// retrying one of the dead process's requests does not wait for that
// pass either: Reserve, meeting the request's reservations open under a
// dead owner, recovers them as the pass would (the Resolver given to
// Start decides, with each row locked, so the pass, other retries and
// the retry settle each reservation once), then runs the request again,
// or answers 409 when the Resolver says its work is still Running.
//
// # Wiring a service
//
// Every paid service wires the saga one way (thumbnails and clips do), and
// a new one copies it:
//
//   - The service package declares a Credits port, which *Client
//     implements: Reserve before the work, and Refund for reservations
//     whose work stored nothing (the engine failed, the result could not
//     be written, the request was never queued).
//   - The service's store port settles a reservation atomically with the
//     result: its methods take the Reservation with the completed event
//     the service built (thumbnails' Save and SaveCritique, clips'
//     CompleteRender), or with the reason when the failure is stored
//     state too (clips' FailRender), and return ErrSettled when the
//     reservation was failed meanwhile; the service then does not deliver
//     the work as paid.
//   - The postgres adapter implementing that port is built with the
//     *Client (postgres.New(pool, client)) and calls Complete or Fail in
//     the transaction that writes the result: it is the one that writes
//     billing's outbox rows, through this package.
//   - The service owns the Resolver, ResolveReservation: what an orphan
//     reservation means is its rule, over what its store holds, read
//     through its ports. The process that reserves calls
//     client.Start(ctx, svc.ResolveReservation) before serving and Close
//     after, and runs client.RecoveryWorker(interval, grace) beside the
//     HTTP server, on every replica; the journal's row locks keep them
//     apart.
//
// Why this way: the rules (what is paid for, when a result counts as
// delivered, what an orphan means) stay in the service, and the
// transaction stays with the adapter and this package, so the service
// package names no pgx type, holds no *Client, and can be tested with
// fakes of its ports. Clips once handed its store the *Client and judged
// orphans inside the recovery's pgx.Tx: its service chose transactions,
// although only the adapter can keep the promise that a result and its
// terminal event commit together. Thumbnails once judged orphans in its
// postgres adapter: a business rule in an adapter. The resolver needs no
// transaction (see Resolver), which is what lets both follow this split.
//
// The journal table ships as Migrations (credits_0001_reservations.sql);
// services pass it in platform.Options.SharedMigrations.
package credits
