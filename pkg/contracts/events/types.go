package events

// Gateway events.

// OrganizationCreated is gateway.organization.created.v1.
type OrganizationCreated struct {
	OrganizationID string `json:"organizationId"`
	Name           string `json:"name"`
	Tier           string `json:"tier"`
}

// CreditsGranted is gateway.credits.granted.v1: an administrator granted
// credits. GrantID makes the grant idempotent in billing.
type CreditsGranted struct {
	GrantID        string `json:"grantId"`
	OrganizationID string `json:"organizationId"`
	Credits        int64  `json:"credits"`
	Kind           string `json:"kind"` // subscription | purchased
	Reason         string `json:"reason"`
}

// ReserveRequest is the body of billing.rpc.reserve.v1. ReservationID is
// derived from the operation by the caller so a retried call reserves once.
type ReserveRequest struct {
	ReservationID string `json:"reservationId"`
	OrgID         string `json:"orgId"`
	Credits       int64  `json:"credits"`
	Operation     string `json:"operation"`
	ResourceType  string `json:"resourceType"`
	ResourceID    string `json:"resourceId"`
}

// Reserve outcomes.
const (
	ReserveOK                  = "ok"
	ReserveInsufficientCredits = "insufficient_credits"
	ReserveQuotaExceeded       = "quota_exceeded"
	ReserveInvalid             = "invalid"
)

// ReserveReply answers a ReserveRequest.
type ReserveReply struct {
	Outcome string `json:"outcome"`
	// Message explains a refusal (which quota, how many credits are left).
	Message string `json:"message,omitempty"`
}

// AdjustRequest is the body of billing.rpc.adjust.v1: an administrator's
// signed correction. AdjustmentID makes it idempotent.
type AdjustRequest struct {
	AdjustmentID string `json:"adjustmentId"`
	OrgID        string `json:"orgId"`
	Credits      int64  `json:"credits"`
	Reason       string `json:"reason"`
}

// Adjust outcomes besides the reserve outcomes ok, insufficient_credits
// (the adjustment would take available credits below zero) and invalid.
const AdjustNoAccount = "no_account"

// AdjustReply answers an AdjustRequest. Available is the account's
// available credits after the adjustment (or, refused, as they are).
type AdjustReply struct {
	Outcome   string `json:"outcome"`
	Available int64  `json:"available"`
	Message   string `json:"message,omitempty"`
}

// Settlement is the part of every *.completed.v1 and *.failed.v1 payload
// that billing reads: the reservation the outcome settles.
type Settlement struct {
	ReservationID string `json:"reservationId"`
}

// CreditsMoved is the payload of the billing.credit.* events: what moved,
// from which buckets, for which reservation, grant or adjustment. The
// amounts of billing.credit.adjusted.v1 are signed (negative: a debit).
// Available is the account's available credits once the event applied, at
// Version (absent from events published before it was added).
type CreditsMoved struct {
	AccountID     string `json:"accountId"`
	ReservationID string `json:"reservationId,omitempty"`
	GrantID       string `json:"grantId,omitempty"`
	AdjustmentID  string `json:"adjustmentId,omitempty"`
	Credits       int64  `json:"credits"`
	Subscription  int64  `json:"subscription"`
	Purchased     int64  `json:"purchased"`
	Operation     string `json:"operation,omitempty"`
	ResourceType  string `json:"resourceType,omitempty"`
	ResourceID    string `json:"resourceId,omitempty"`
	Version       int64  `json:"version"`
	Available     *int64 `json:"available,omitempty"`
}
