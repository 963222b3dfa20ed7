package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
	"hookline.dev/services/webhooks/internal/signing"
)

// leaseMargin is what a lease outlives an attempt's timeout by: the time
// to record the attempt.
const leaseMargin = 5 * time.Second

// Run sends due deliveries until ctx ends. Each endpoint is served by one
// worker at a time, across replicas (a lease in the store), which sends
// its deliveries one after the other in the order their events occurred;
// a delivery waiting for its retry does not hold back the ones after it.
// Before each attempt the delivery's next attempt is moved past the
// attempt's timeout and committed (with the previous attempt's record):
// a crash mid-attempt leaves it due again only once that lease ran out,
// so it is never sent twice in a row without a retry being due, and
// never lost.
func (s *Service) Run(ctx context.Context) error {
	if s.wake == nil {
		return errors.New("service: Run before Init")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	done := make(chan struct{}, s.Workers)
	free := s.Workers
	poll := time.NewTicker(s.Poll)
	defer poll.Stop()
	for {
		if free > 0 {
			now := s.now()
			ids, err := s.Store.ClaimEndpoints(ctx, now, s.leaseUntil(now), free)
			if err != nil && ctx.Err() == nil {
				s.log().WarnContext(ctx, "claiming endpoints", "err", err)
			}
			for _, id := range ids {
				free--
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.drain(ctx, id)
					done <- struct{}{}
				}()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			free++
		case <-s.wake:
		case <-poll.C:
		}
	}
}

// leaseUntil is when a lease taken at now for one attempt runs out.
func (s *Service) leaseUntil(now time.Time) time.Time { return now.Add(s.Timeout + leaseMargin) }

// drain sends the endpoint's due deliveries until none is left. Each
// attempt is recorded in the transaction that leases the next delivery.
func (s *Service) drain(ctx context.Context, endpointID string) {
	now := s.now()
	d, e, ok, err := s.Store.NextDelivery(ctx, endpointID, now, s.leaseUntil(now))
	for ok && err == nil {
		a := s.attempt(ctx, d, e)
		if ctx.Err() != nil {
			return // shutting down: the lease brings it back
		}
		d, e, ok, err = s.record(context.WithoutCancel(ctx), d.ID, a)
	}
	if err != nil && ctx.Err() == nil {
		s.log().WarnContext(ctx, "sending deliveries", "endpoint", endpointID, "err", err)
	}
}

// attempt sends d to e once, signed with every secret e holds now.
func (s *Service) attempt(ctx context.Context, d delivery.Delivery, e endpoint.Endpoint) delivery.Attempt {
	start := time.Now()
	a := delivery.Attempt{At: s.now()}
	header, err := signing.Headers(e.Secrets(start), d.ID, start, d.Message.Body)
	if err != nil {
		a.Error = "signing: " + err.Error()
		return a
	}
	header = append(header, "User-Agent", "Hookline-Webhooks/1")
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	ans, err := s.Fetcher.Send(ctx, e.URL, "application/json", d.Message.Body, s.MaxResponse, header...)
	a.Latency = time.Since(start)
	a.Code, a.Response = ans.Status, strings.ReplaceAll(strings.ToValidUTF8(string(ans.Body), "\uFFFD"), "\x00", "")
	if err != nil {
		a.Error = attemptError(ctx, err)
	}
	return a
}

// attemptError is what the deliveries listing says of a failed send:
// the cause, not our internals.
func attemptError(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}

// record applies the policy to the attempt and takes the endpoint's next
// due delivery; an attempt that disabled the endpoint also publishes
// webhooks.endpoint.disabled.v1 and tells the organization's other
// endpoints subscribed to it.
func (s *Service) record(ctx context.Context, deliveryID string, a delivery.Attempt) (delivery.Delivery, endpoint.Endpoint, bool, error) {
	var woke bool
	now := s.now()
	next, e, ok, err := s.Store.Record(ctx, deliveryID, func(d delivery.Delivery, e endpoint.Endpoint, enabled Loader) (Change, error) {
		out := s.Policy.Record(d, e, a, now)
		c := Change{Delivery: out.Delivery, Attempt: out.Delivery.History[len(out.Delivery.History)-1], Endpoint: out.Endpoint}
		if !out.Disabled {
			return c, nil
		}
		s.log().WarnContext(ctx, "endpoint disabled", "endpoint", e.ID, "reason", out.Endpoint.DisabledReason)
		env, err := disabledEvent(ctx, out.Endpoint)
		if err != nil {
			return Change{}, err
		}
		m, err := message.New(endpoint.EndpointDisabled, env.ID, now, message.EndpointDisabled{
			EndpointID: e.ID, URL: e.URL, Failures: out.Endpoint.Failures, FailingSince: *out.Endpoint.FailingSince})
		if err != nil {
			return Change{}, fmt.Errorf("service: %w", err)
		}
		eps, err := enabled()
		if err != nil {
			return Change{}, err
		}
		c.Plan = Plan{Events: []events.Envelope{env}, Deliveries: fanout(eps, m, e.ID, now)}
		woke = true
		return c, nil
	}, now, s.leaseUntil(now))
	if woke && err == nil {
		s.Wake()
	}
	return next, e, ok, err
}
