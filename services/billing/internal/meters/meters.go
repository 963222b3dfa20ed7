// Package meters declares billing's OpenTelemetry instruments in one
// place, so the adapters that count the same instrument (the postgres
// writer, the NATS handlers) share one declaration.
package meters

import "hookline.dev/pkg/platform/telemetry"

const scope = "hookline.dev/services/billing"

var (
	// Reserves counts the reserve RPC's answers by outcome (ok,
	// insufficient_credits, quota_exceeded, invalid, unavailable).
	Reserves = telemetry.NewCounter(scope, "hookline.billing.reserves", "Reserve RPC answers by outcome.")
	// Settlements counts reservation settlements by outcome: committed,
	// refunded and expired as the writer commits them, duplicate and early
	// as the settlement handler sees them.
	Settlements = telemetry.NewCounter(scope, "hookline.billing.settlements", "Reservation settlements by outcome.")
	// OptimisticGroups counts reservation groups committed in one round
	// trip (committed) or rerun on the general path (rerun).
	OptimisticGroups = telemetry.NewCounter(scope, "hookline.billing.optimistic_groups", "Reservation groups committed in one round trip (committed) or rerun on the general path (rerun).")
)
