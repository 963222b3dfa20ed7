// Package events defines the event envelope, the subjects and the payload
// types that cross service boundaries. The subject of an event equals its
// type, `<service>.<entity>.<fact>.v<N>`; an incompatible change adds a new
// version beside the old one rather than changing a payload.
package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/telemetry"
)

// Envelope is the JSON wrapper of every event.
type Envelope struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Source      string          `json:"source"`
	OrgID       string          `json:"orgId"`
	OccurredAt  time.Time       `json:"occurredAt"`
	Traceparent string          `json:"traceparent,omitempty"`
	Data        json.RawMessage `json:"data"`
}

// New builds an envelope with a fresh id, the current time and the trace of
// ctx. Use NewWithID when the id must be deterministic.
func New(ctx context.Context, typ, source, orgID string, data any) (Envelope, error) {
	return NewWithID(ctx, uuid.NewString(), typ, source, orgID, data)
}

// NewWithID builds an envelope with a caller-chosen id, for events whose
// identity is derived from what caused them (so a retry emits the same id
// and deduplicates downstream).
func NewWithID(ctx context.Context, id, typ, source, orgID string, data any) (Envelope, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: marshal %s: %w", typ, err)
	}
	return Envelope{
		ID:          id,
		Type:        typ,
		Source:      source,
		OrgID:       orgID,
		OccurredAt:  time.Now().UTC(),
		Traceparent: telemetry.Traceparent(ctx),
		Data:        raw,
	}, nil
}

// Decode unmarshals the payload into dst.
func (e Envelope) Decode(dst any) error {
	if err := json.Unmarshal(e.Data, dst); err != nil {
		return fmt.Errorf("events: decode %s %s: %w", e.Type, e.ID, err)
	}
	return nil
}

// Parse decodes an envelope and checks the fields every consumer relies on.
func Parse(b []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return Envelope{}, fmt.Errorf("events: parse envelope: %w", err)
	}
	if e.ID == "" || e.Type == "" {
		return Envelope{}, fmt.Errorf("events: envelope without id or type")
	}
	return e, nil
}

// ErrInvalid marks an event that no redelivery can make applicable: a
// payload that does not decode, an id in it that is not one. Consumers'
// handlers live in service packages, which know nothing of the broker, so
// they return an error wrapping it (Invalid) where an adapter would say
// messaging.Permanent; the messaging consumer dead-letters such an event
// at once instead of retrying it.
var ErrInvalid = errors.New("events: invalid event")

// Invalid marks err as the reason its event is invalid (ErrInvalid).
// Invalid(nil) is nil.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalid, err)
}
