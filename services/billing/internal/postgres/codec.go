package postgres

import (
	"encoding/json"
	"fmt"
	"time"

	"hookline.dev/services/billing/internal/ledger"
)

// Stored event names. They are part of the database format: never rename.
const (
	typeOpened    = "AccountOpened"
	typeGranted   = "CreditsGranted"
	typeAdjusted  = "CreditsAdjusted"
	typeReserved  = "CreditsReserved"
	typeCommitted = "ReservationCommitted"
	typeRefunded  = "ReservationRefunded"
	typeExpired   = "ReservationExpired"
)

// storedEvent is the JSON form of every ledger event; each type uses the
// fields it needs. One flat struct keeps the format easy to read in SQL.
type storedEvent struct {
	Tier          string    `json:"tier,omitempty"`
	BillingCycle  string    `json:"billingCycle,omitempty"`
	GrantID       string    `json:"grantId,omitempty"`
	AdjustmentID  string    `json:"adjustmentId,omitempty"`
	Bucket        string    `json:"bucket,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	ReservationID string    `json:"reservationId,omitempty"`
	Credits       int64     `json:"credits,omitempty"`
	Subscription  int64     `json:"subscription,omitempty"`
	Purchased     int64     `json:"purchased,omitempty"`
	Operation     string    `json:"operation,omitempty"`
	ResourceType  string    `json:"resourceType,omitempty"`
	ResourceID    string    `json:"resourceId,omitempty"`
	At            time.Time `json:"at"`
	ExpiresAt     time.Time `json:"expiresAt,omitzero"`
}

func encodeEvent(e ledger.Event) (string, []byte, error) {
	var typ string
	var s storedEvent
	switch e := e.(type) {
	case ledger.AccountOpened:
		typ, s = typeOpened, storedEvent{Tier: e.Tier, BillingCycle: e.BillingCycle, At: e.At}
	case ledger.CreditsGranted:
		typ, s = typeGranted, storedEvent{GrantID: e.GrantID, Bucket: string(e.Bucket), Credits: e.Credits, Reason: e.Reason, At: e.At}
	case ledger.CreditsAdjusted:
		typ, s = typeAdjusted, storedEvent{AdjustmentID: e.AdjustmentID, Subscription: e.Subscription, Purchased: e.Purchased, Reason: e.Reason, At: e.At}
	case ledger.CreditsReserved:
		typ, s = typeReserved, storedEvent{ReservationID: e.ReservationID, Credits: e.Credits, Subscription: e.FromSubscription, Purchased: e.FromPurchased,
			Operation: e.Operation, ResourceType: e.ResourceType, ResourceID: e.ResourceID, At: e.At, ExpiresAt: e.ExpiresAt}
	case ledger.ReservationCommitted:
		typ, s = typeCommitted, storedEvent{ReservationID: e.ReservationID, At: e.At}
	case ledger.ReservationRefunded:
		typ, s = typeRefunded, storedEvent{ReservationID: e.ReservationID, Subscription: e.Subscription, Purchased: e.Purchased, At: e.At}
	case ledger.ReservationExpired:
		typ, s = typeExpired, storedEvent{ReservationID: e.ReservationID, Subscription: e.Subscription, Purchased: e.Purchased, At: e.At}
	default:
		return "", nil, fmt.Errorf("postgres: unknown ledger event %T", e)
	}
	b, err := json.Marshal(s)
	return typ, b, err
}

// DecodeEvent reads a stored event (used by tools that audit the store).
func DecodeEvent(typ string, data []byte) (ledger.Event, error) {
	var s storedEvent
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("postgres: decode %s: %w", typ, err)
	}
	switch typ {
	case typeOpened:
		return ledger.AccountOpened{Tier: s.Tier, BillingCycle: s.BillingCycle, At: s.At}, nil
	case typeGranted:
		return ledger.CreditsGranted{GrantID: s.GrantID, Bucket: ledger.Bucket(s.Bucket), Credits: s.Credits, Reason: s.Reason, At: s.At}, nil
	case typeAdjusted:
		return ledger.CreditsAdjusted{AdjustmentID: s.AdjustmentID, Subscription: s.Subscription, Purchased: s.Purchased, Reason: s.Reason, At: s.At}, nil
	case typeReserved:
		return ledger.CreditsReserved{ReservationID: s.ReservationID, Credits: s.Credits, FromSubscription: s.Subscription, FromPurchased: s.Purchased,
			Operation: s.Operation, ResourceType: s.ResourceType, ResourceID: s.ResourceID, At: s.At, ExpiresAt: s.ExpiresAt}, nil
	case typeCommitted:
		return ledger.ReservationCommitted{ReservationID: s.ReservationID, At: s.At}, nil
	case typeRefunded:
		return ledger.ReservationRefunded{ReservationID: s.ReservationID, Subscription: s.Subscription, Purchased: s.Purchased, At: s.At}, nil
	case typeExpired:
		return ledger.ReservationExpired{ReservationID: s.ReservationID, Subscription: s.Subscription, Purchased: s.Purchased, At: s.At}, nil
	default:
		return nil, fmt.Errorf("postgres: unknown stored event type %q", typ)
	}
}

// snapshot is the JSON form of an account's state.
type snapshot struct {
	Opened       bool                   `json:"opened"`
	Tier         string                 `json:"tier"`
	Cycle        string                 `json:"cycle"`
	Subscription int64                  `json:"subscription"`
	Purchased    int64                  `json:"purchased"`
	Granted      int64                  `json:"granted"`
	Committed    int64                  `json:"committed"`
	Pending      map[string]storedEvent `json:"pending"`
	Grants       []string               `json:"grants"`
	OpsDay       string                 `json:"opsDay"`
	OpsToday     int                    `json:"opsToday"`
}

func encodeSnapshot(a *ledger.Account) ([]byte, error) {
	st := a.Snapshot()
	s := snapshot{Opened: st.Opened, Tier: st.Tier, Cycle: st.Cycle, Subscription: st.Subscription, Purchased: st.Purchased,
		Granted: st.Granted, Committed: st.Committed, Pending: make(map[string]storedEvent, len(st.Pending)), Grants: st.Grants,
		OpsDay: st.OpsDay, OpsToday: st.OpsToday}
	for _, r := range st.Pending {
		s.Pending[r.ID] = storedEvent{ReservationID: r.ID, Credits: r.Credits, Subscription: r.Subscription, Purchased: r.Purchased,
			Operation: r.Operation, ResourceType: r.ResourceType, ResourceID: r.ResourceID, At: r.At, ExpiresAt: r.ExpiresAt}
	}
	return json.Marshal(s)
}

func decodeSnapshot(id string, version int64, data []byte) (*ledger.Account, error) {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("postgres: decode snapshot of %s: %w", id, err)
	}
	st := ledger.Snapshot{ID: id, Version: version, Opened: s.Opened, Tier: s.Tier, Cycle: s.Cycle,
		Subscription: s.Subscription, Purchased: s.Purchased, Granted: s.Granted, Committed: s.Committed,
		OpsDay: s.OpsDay, OpsToday: s.OpsToday, Grants: s.Grants}
	for _, r := range s.Pending {
		st.Pending = append(st.Pending, ledger.Reservation{ID: r.ReservationID, Credits: r.Credits, Subscription: r.Subscription, Purchased: r.Purchased,
			Operation: r.Operation, ResourceType: r.ResourceType, ResourceID: r.ResourceID, At: r.At, ExpiresAt: r.ExpiresAt})
	}
	return ledger.Restore(st), nil
}
