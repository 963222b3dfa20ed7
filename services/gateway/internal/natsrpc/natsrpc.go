// Package natsrpc holds the gateway's synchronous calls to other services
// over NATS request-reply: today billing's credit adjustment.
package natsrpc

import (
	"context"
	"fmt"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/services/gateway/internal/org"
)

// Billing implements org.Ledger over billing.rpc.adjust.v1.
type Billing struct {
	bus     *messaging.Bus
	timeout time.Duration
}

var _ org.Ledger = (*Billing)(nil)

// NewBilling returns billing's client over bus; a call waits at most
// timeout for the answer.
func NewBilling(bus *messaging.Bus, timeout time.Duration) *Billing {
	return &Billing{bus: bus, timeout: timeout}
}

// Adjust implements org.Ledger.
func (b *Billing) Adjust(ctx context.Context, a org.CreditAdjustment) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	var reply events.AdjustReply
	err := b.bus.Request(ctx, events.BillingAdjustRPC, events.AdjustRequest{
		AdjustmentID: a.ID.String(), OrgID: a.OrganizationID.String(), Credits: a.Credits, Reason: a.Reason,
	}, &reply)
	if err != nil {
		return 0, err
	}
	switch reply.Outcome {
	case events.ReserveOK:
		return reply.Available, nil
	case events.ReserveInsufficientCredits:
		return 0, &org.InsufficientCreditsError{Available: reply.Available}
	case events.AdjustNoAccount:
		return 0, org.ErrAccountNotOpen
	}
	// The gateway validates what billing does, so any other answer is a
	// disagreement between the two: an internal error, logged.
	return 0, fmt.Errorf("natsrpc: billing refused adjustment %s: %s %s", a.ID, reply.Outcome, reply.Message)
}
