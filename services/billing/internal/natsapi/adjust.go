package natsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/billing/internal/ledger"
)

// MaxAdjustment bounds one adjustment, as the admin API bounds a grant.
const MaxAdjustment = 1_000_000

// Adjust answers billing.rpc.adjust.v1. It is synchronous because the
// admin API must refuse, with a 400, a debit that would take available
// credits below zero, and only the ledger knows the balance.
func (s *Server) Adjust(ctx context.Context, data []byte) ([]byte, error) {
	var req events.AdjustRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return json.Marshal(events.AdjustReply{Outcome: events.ReserveInvalid, Message: "malformed request"})
	}
	switch {
	case req.AdjustmentID == "" || len(req.AdjustmentID) > 200:
		return json.Marshal(events.AdjustReply{Outcome: events.ReserveInvalid, Message: "adjustmentId must have 1 to 200 characters"})
	case uuid.Validate(req.OrgID) != nil:
		return json.Marshal(events.AdjustReply{Outcome: events.ReserveInvalid, Message: "orgId must be a uuid"})
	case req.Credits == 0 || req.Credits < -MaxAdjustment || req.Credits > MaxAdjustment:
		return json.Marshal(events.AdjustReply{Outcome: events.ReserveInvalid, Message: fmt.Sprintf("credits must be non-zero, from %d to %d", -MaxAdjustment, MaxAdjustment)})
	case req.Reason == "" || utf8.RuneCountInString(req.Reason) > 500:
		return json.Marshal(events.AdjustReply{Outcome: events.ReserveInvalid, Message: "reason must have 1 to 500 characters"})
	}
	available, err := s.Store.Adjust(ctx, req.OrgID, req.AdjustmentID, req.Credits, req.Reason)
	reply := events.AdjustReply{Outcome: events.ReserveOK, Available: available}
	switch {
	case err == nil:
	case errors.Is(err, ledger.ErrInsufficientCredits):
		reply.Outcome, reply.Message = events.ReserveInsufficientCredits, fmt.Sprintf("%d credits are available", available)
	case errors.Is(err, ledger.ErrNotOpen):
		reply.Outcome, reply.Message = events.AdjustNoAccount, "the organization has no credit account yet"
	case errors.Is(err, ledger.ErrInvalid):
		reply.Outcome, reply.Message = events.ReserveInvalid, err.Error()
	default:
		return nil, err
	}
	if err == nil {
		s.Log.InfoContext(ctx, "credits adjusted", "organization_id", req.OrgID, "adjustment_id", req.AdjustmentID, "credits", req.Credits, "available", available)
	}
	return json.Marshal(reply)
}
