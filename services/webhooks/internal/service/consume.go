package service

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
)

// Durable consumers, which are also the inbox names.
const (
	ClipsConsumer   = events.DurableWebhooksClips
	BillingConsumer = events.DurableWebhooksBilling
)

// ClipsSubjects are the clips events that become messages.
var ClipsSubjects = []string{events.ClipsProjectReady, events.ClipsProjectFailed, events.ClipsRenderCompleted, events.ClipsRenderFailed}

// BillingSubjects are the billing events that move an account's
// available credits down (credits.low) or back up (re-arming it).
var BillingSubjects = []string{events.BillingCreditGranted, events.BillingCreditAdjusted, events.BillingCreditReserved,
	events.BillingCreditRefunded, events.BillingCreditExpired}

// deliveryID is the id of the delivery of an event to an endpoint:
// derived from both, so a plan computed twice makes the same rows.
func deliveryID(eventID, endpointID string) string {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(eventID+"/"+endpointID)).String()
}

// fanout makes a delivery of m, due at now, to every endpoint subscribed
// to its type but exclude.
func fanout(eps []endpoint.Endpoint, m message.Message, exclude string, now time.Time) []delivery.Delivery {
	var ds []delivery.Delivery
	for _, e := range eps {
		if e.ID != exclude && e.Subscribed(m.Type) {
			ds = append(ds, delivery.New(deliveryID(m.EventID, e.ID), e, m, now))
		}
	}
	return ds
}

// HandleClipsEvent turns a clips event into deliveries, once per event.
func (s *Service) HandleClipsEvent(ctx context.Context, env events.Envelope) error {
	m, ok, err := message.FromClips(env)
	if err != nil || !ok {
		return err
	}
	n, err := s.Store.Consume(ctx, ClipsConsumer, env.ID, env.OrgID, false, func(eps []endpoint.Endpoint) (Plan, error) {
		return Plan{Deliveries: fanout(eps, m, "", s.now())}, nil
	})
	if n > 0 {
		s.Wake()
	}
	return err
}

// HandleBillingEvent sends credits.low to the endpoints whose threshold
// the account's available credits fell under, once per fall: an endpoint
// is armed again when the balance is back at or above its threshold.
// Events older than the last one an endpoint saw (by account version)
// change nothing.
func (s *Service) HandleBillingEvent(ctx context.Context, env events.Envelope) error {
	var moved events.CreditsMoved
	if err := env.Decode(&moved); err != nil {
		return events.Invalid(err)
	}
	if moved.Available == nil {
		return nil // published before balances were carried
	}
	available := *moved.Available
	now := s.now()
	n, err := s.Store.Consume(ctx, BillingConsumer, env.ID, env.OrgID, true, func(eps []endpoint.Endpoint) (Plan, error) {
		var p Plan
		for _, e := range eps {
			if !e.Subscribed(endpoint.CreditsLow) || moved.Version <= e.CreditsVersion {
				continue
			}
			below := available < e.CreditsLow
			if below && e.CreditsLowArmed {
				m, err := message.New(endpoint.CreditsLow, env.ID, env.OccurredAt, message.CreditsLow{Available: available, Threshold: e.CreditsLow})
				if err != nil {
					return Plan{}, fmt.Errorf("service: %w", err)
				}
				p.Deliveries = append(p.Deliveries, delivery.New(deliveryID(env.ID, e.ID), e, m, now))
			}
			e.CreditsLowArmed, e.CreditsVersion = !below, moved.Version
			p.Endpoints = append(p.Endpoints, e)
		}
		return p, nil
	})
	if n > 0 {
		s.Wake()
	}
	return err
}

// OrderKey keeps one organization's events in order within a process, so
// its deliveries are created in the order the events occurred.
func OrderKey(env events.Envelope) string { return env.OrgID }
