package app

import (
	"context"
	"encoding/json"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/billing/internal/meters"
)

// reserveOutcomes are the counters of the known outcomes, built once: the
// reserve path is billing's hottest.
var reserveOutcomes = func() map[string]telemetry.Counter {
	m := map[string]telemetry.Counter{}
	for _, o := range []string{events.ReserveOK, events.ReserveInsufficientCredits, events.ReserveQuotaExceeded, events.ReserveInvalid, outcomeUnavailable} {
		m[o] = meters.Reserves.With("outcome", o)
	}
	return m
}()

const outcomeUnavailable = "unavailable"

// countReserves counts the outcome of every answer of the reserve handler h.
func countReserves(h func(context.Context, []byte) ([]byte, error)) func(context.Context, []byte) ([]byte, error) {
	return func(ctx context.Context, data []byte) ([]byte, error) {
		out, err := h(ctx, data)
		outcome := outcomeUnavailable
		if err == nil {
			var reply events.ReserveReply
			if json.Unmarshal(out, &reply) == nil {
				outcome = reply.Outcome
			}
		}
		c, ok := reserveOutcomes[outcome]
		if !ok {
			c = meters.Reserves.With("outcome", outcome)
		}
		c.Add(1)
		return out, err
	}
}
