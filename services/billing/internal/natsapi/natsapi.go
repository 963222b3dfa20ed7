// Package natsapi serves billing over NATS: the reserve RPC and the event
// consumers that open accounts, apply grants and settle reservations.
package natsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/services/billing/internal/ledger"
	"hookline.dev/services/billing/internal/meters"
)

// Policy is what billing needs to know about tiers and reservation lifetimes.
type Policy struct {
	Tiers *tiers.Table
	// TTL is how long a synchronous operation's reservation may stay
	// pending; RenderTTL is the same for renders, which run for minutes.
	TTL, RenderTTL time.Duration
}

// Quotas returns the quotas of a tier. An account whose tier was retired
// from the table gets the quotas of the table's fallback tier, as its keys
// get that tier's rate limit at the gateway.
func (p Policy) Quotas(tier string) ledger.Quotas {
	q := p.Tiers.Resolve(tier).Quotas
	return ledger.Quotas{PaidOpsPerDay: q.PaidOpsPerDay, ConcurrentRenders: q.ConcurrentRenders}
}

// Server holds billing's NATS handlers.
type Server struct {
	Store  ledger.Store
	Policy Policy
	Log    *slog.Logger
}

// Counters of settlements that changed nothing, for alerting.
var (
	duplicateSettlements = meters.Settlements.With("outcome", "duplicate")
	earlySettlements     = meters.Settlements.With("outcome", "early")
)

// Reserve answers billing.rpc.reserve.v1.
func (s *Server) Reserve(ctx context.Context, data []byte) ([]byte, error) {
	var req events.ReserveRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return json.Marshal(events.ReserveReply{Outcome: events.ReserveInvalid, Message: "malformed request"})
	}
	if msg := validate(req); msg != "" {
		return json.Marshal(events.ReserveReply{Outcome: events.ReserveInvalid, Message: msg})
	}
	ttl := s.Policy.TTL
	if req.ResourceType == ledger.RenderResource {
		ttl = s.Policy.RenderTTL
	}
	err := s.Store.Reserve(ctx, req.OrgID, ledger.ReserveCommand{
		ReservationID: req.ReservationID, Credits: req.Credits, Operation: req.Operation,
		ResourceType: req.ResourceType, ResourceID: req.ResourceID, TTL: ttl,
	}, s.Policy.Quotas)
	reply := events.ReserveReply{Outcome: events.ReserveOK}
	var qe *ledger.QuotaError
	switch {
	case err == nil:
	case errors.Is(err, ledger.ErrInsufficientCredits):
		reply = events.ReserveReply{Outcome: events.ReserveInsufficientCredits, Message: fmt.Sprintf("%d credits required", req.Credits)}
	case errors.Is(err, ledger.ErrNotOpen):
		reply = events.ReserveReply{Outcome: events.ReserveInsufficientCredits, Message: "the organization has no credit account yet"}
	case errors.As(err, &qe):
		reply = events.ReserveReply{Outcome: events.ReserveQuotaExceeded, Message: fmt.Sprintf("quota exceeded: %s (limit %d)", qe.Quota, qe.Limit)}
	case errors.Is(err, ledger.ErrReservationOwner), errors.Is(err, ledger.ErrInvalid):
		reply = events.ReserveReply{Outcome: events.ReserveInvalid, Message: err.Error()}
	default:
		return nil, err
	}
	return json.Marshal(reply)
}

func validate(r events.ReserveRequest) string {
	switch {
	case r.ReservationID == "" || len(r.ReservationID) > 200:
		return "reservationId must have 1 to 200 characters"
	case uuid.Validate(r.OrgID) != nil:
		return "orgId must be a uuid"
	case r.Credits < 1 || r.Credits > 10_000:
		return "credits must be from 1 to 10000"
	case r.Operation == "" || len(r.Operation) > 100:
		return "operation must have 1 to 100 characters"
	case len(r.ResourceType) > 100 || len(r.ResourceID) > 200:
		return "resourceType or resourceId is too long"
	}
	return ""
}

// Consumer names; they are durable and also key the inbox.
const (
	GatewayConsumer    = events.DurableBillingGateway
	SettlementConsumer = "billing-settlements"
)

// Gateway handles organization and grant events from the gateway.
func (s *Server) Gateway(ctx context.Context, e events.Envelope) error {
	switch e.Type {
	case events.GatewayOrganizationCreated:
		var d events.OrganizationCreated
		if err := e.Decode(&d); err != nil {
			return messaging.Permanent(err)
		}
		if uuid.Validate(d.OrganizationID) != nil {
			return messaging.Permanent(fmt.Errorf("organization id %q is not a uuid", d.OrganizationID))
		}
		tier, ok := s.Policy.Tiers.Lookup(d.Tier)
		if !ok {
			// The gateway accepts only tiers of the shared table, so this
			// is a deployment whose two services read different tables
			// (mid-rollout, or misconfigured). Retrying, then the dead
			// letter, keeps the event until the tables agree: opening the
			// account with a guessed grant could not be undone.
			return fmt.Errorf("organization %s has tier %q, which this billing's tier table does not list", d.OrganizationID, d.Tier)
		}
		return s.Store.Open(ctx, GatewayConsumer, e.ID, d.OrganizationID, tier.Name, tier.BillingCycle, tier.MonthlyCredits)
	case events.GatewayCreditsGranted:
		var d events.CreditsGranted
		if err := e.Decode(&d); err != nil {
			return messaging.Permanent(err)
		}
		if uuid.Validate(d.OrganizationID) != nil {
			return messaging.Permanent(fmt.Errorf("organization id %q is not a uuid", d.OrganizationID))
		}
		err := s.Store.Grant(ctx, GatewayConsumer, e.ID, d.OrganizationID, d.GrantID, ledger.Bucket(d.Kind), d.Credits, d.Reason)
		if errors.Is(err, ledger.ErrInvalid) {
			return messaging.Permanent(err)
		}
		// ErrNotOpen is retried: the organization's creation may still be in flight.
		return err
	}
	return nil
}

// Settlement handles <service>.*.completed.v1 and .failed.v1 events.
func (s *Server) Settlement(ctx context.Context, e events.Envelope) error {
	var d events.Settlement
	if err := e.Decode(&d); err != nil {
		return messaging.Permanent(err)
	}
	if d.ReservationID == "" {
		return nil // an outcome of free work: nothing to settle
	}
	o, ok := outcome(e.Type)
	if !ok {
		return nil
	}
	if uuid.Validate(e.OrgID) != nil {
		return messaging.Permanent(fmt.Errorf("event %s has no organization", e.ID))
	}
	res, err := s.Store.Settle(ctx, SettlementConsumer, e.ID, e.OrgID, d.ReservationID, o)
	switch {
	case errors.Is(err, ledger.ErrInvalid):
		return messaging.Permanent(err)
	case err != nil:
		return err
	case res == ledger.Duplicate:
		duplicateSettlements.Add(1)
		s.Log.WarnContext(ctx, "second terminal event for a reservation ignored", "reservation_id", d.ReservationID, "event_id", e.ID, "outcome", string(o))
	case res == ledger.Early:
		earlySettlements.Add(1)
	}
	return nil
}

// SettlementOrder is the order key of settlement events: the outcomes of
// one reservation are handled one at a time, in the order they were
// published, so that of two conflicting outcomes sent one after the other
// the first always wins.
func SettlementOrder(e events.Envelope) string {
	var d events.Settlement
	if e.Decode(&d) != nil {
		return ""
	}
	return d.ReservationID
}

// outcome reads completed/failed from a subject `<svc>.<entity>.<fact>.vN`.
func outcome(typ string) (ledger.Outcome, bool) {
	parts := strings.Split(typ, ".")
	if len(parts) != 4 {
		return "", false
	}
	switch o := ledger.Outcome(parts[2]); o {
	case ledger.Completed, ledger.Failed:
		return o, true
	}
	return "", false
}
