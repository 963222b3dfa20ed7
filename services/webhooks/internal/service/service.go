// Package service holds the webhooks service's use cases: managing an
// organization's endpoints, turning the events other services publish
// into deliveries (consume.go), and sending them (dispatch.go). It depends
// on ports: the store and the fetcher that reaches receivers.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/services/webhooks/internal/delivery"
	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
	"hookline.dev/services/webhooks/internal/signing"
)

// Source is the source of the events this service publishes.
const Source = "webhooks"

// Plan is what handling an event or an attempt writes besides the row it
// changed, all in one transaction: new deliveries, endpoints whose state
// moved, and events for the outbox.
type Plan struct {
	Deliveries []delivery.Delivery
	Endpoints  []endpoint.Endpoint
	Events     []events.Envelope
}

// Change is what one attempt of a delivery changed.
type Change struct {
	Delivery delivery.Delivery
	Attempt  delivery.Attempt
	Endpoint endpoint.Endpoint
	Plan     Plan
}

// Store is the service's storage. Every read and write of the API is
// scoped by organization: another organization's endpoint is
// endpoint.ErrNotFound.
type Store interface {
	InsertEndpoint(ctx context.Context, e endpoint.Endpoint) error
	// Endpoint errors: endpoint.ErrNotFound.
	Endpoint(ctx context.Context, orgID, id string) (endpoint.Endpoint, error)
	// Endpoints returns a page, newest first, and the total.
	Endpoints(ctx context.Context, orgID string, offset, limit int) ([]endpoint.Endpoint, int, error)
	// UpdateEndpoint changes an endpoint under a row lock. Errors:
	// endpoint.ErrNotFound, or change's.
	UpdateEndpoint(ctx context.Context, orgID, id string, change func(endpoint.Endpoint) (endpoint.Endpoint, error)) (endpoint.Endpoint, error)
	// DeleteEndpoint removes an endpoint and its deliveries. Errors:
	// endpoint.ErrNotFound.
	DeleteEndpoint(ctx context.Context, orgID, id string) error

	// Consume records eventID in consumer's inbox and, the first time,
	// calls plan with the organization's enabled endpoints and stores
	// what it returns, in the same transaction. It returns the number of
	// deliveries stored (0 for a repeat). With lock, the endpoints stay
	// locked until then (a plan that changes them); without, a plan that
	// only adds deliveries waits for no dispatcher recording an attempt.
	Consume(ctx context.Context, consumer, eventID, orgID string, lock bool, plan func([]endpoint.Endpoint) (Plan, error)) (int, error)
	// InsertDelivery stores one delivery of an endpoint of the
	// organization. Errors: endpoint.ErrNotFound.
	InsertDelivery(ctx context.Context, d delivery.Delivery) error
	// Deliveries returns a page of an endpoint's deliveries with their
	// attempts, newest first. Errors: endpoint.ErrNotFound.
	Deliveries(ctx context.Context, orgID, endpointID string, offset, limit int) ([]delivery.Delivery, int, error)
	// UpdateDelivery changes one delivery under a row lock. Errors:
	// delivery.ErrNotFound.
	UpdateDelivery(ctx context.Context, orgID, endpointID, id string, change func(delivery.Delivery) delivery.Delivery) (delivery.Delivery, error)

	// ClaimEndpoints leases up to limit enabled endpoints that have a
	// delivery due at now and no lease running, until leaseUntil, and
	// returns their ids.
	ClaimEndpoints(ctx context.Context, now, leaseUntil time.Time, limit int) ([]string, error)
	// NextDelivery takes the endpoint's earliest due delivery (in the
	// order its events occurred), moves its next attempt and the
	// endpoint's lease to leaseUntil, commits, and returns it with the
	// endpoint; ok is false when none is due or the endpoint is disabled
	// (the lease is then released) or gone, and d and e are then zero.
	NextDelivery(ctx context.Context, endpointID string, now, leaseUntil time.Time) (d delivery.Delivery, e endpoint.Endpoint, ok bool, err error)
	// Record stores the change decide makes of a delivery and its
	// endpoint (both locked), the attempt and decide's plan, and takes
	// the endpoint's next due delivery as NextDelivery does, all in one
	// transaction; decide may load the organization's enabled endpoints.
	// Errors: delivery.ErrNotFound (deleted meanwhile), or decide's.
	Record(ctx context.Context, deliveryID string, decide func(d delivery.Delivery, e endpoint.Endpoint, enabled Loader) (Change, error),
		now, leaseUntil time.Time) (next delivery.Delivery, e endpoint.Endpoint, ok bool, err error)
}

// Loader loads the enabled endpoints of the organization being handled.
type Loader func() ([]endpoint.Endpoint, error)

// Fetcher reaches receivers (*safefetch.Fetcher): Check at creation and
// Send at every attempt both refuse loopback, private and other
// non-public addresses unless the operator's allow-list names them.
type Fetcher interface {
	Check(ctx context.Context, rawURL string) error
	Send(ctx context.Context, rawURL, contentType string, body []byte, maxRead int64, header ...string) (safefetch.Answer, error)
}

// Service is the webhooks service.
type Service struct {
	Store   Store
	Fetcher Fetcher
	Policy  delivery.Policy
	// SecretOverlap is how long a rotated-out secret stays valid.
	SecretOverlap time.Duration
	// MaxResponse is how much of a receiver's answer is read and kept.
	MaxResponse int64
	// Timeout bounds one attempt; a lease outlives it by a margin.
	Timeout time.Duration
	// Workers is how many endpoints are sent to at once.
	Workers int
	// Poll is how often the dispatcher looks for due deliveries when
	// nothing woke it (retries, other replicas' events).
	Poll time.Duration
	Log  *slog.Logger
	Now  func() time.Time

	wake chan struct{}
}

// Init prepares the service for use; call it once before Run.
func (s *Service) Init() { s.wake = make(chan struct{}, 1) }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Truncate(time.Microsecond)
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// Wake tells the dispatcher that deliveries may be due.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// checkURL refuses a URL the fetcher would refuse, as a 400 naming url.
func (s *Service) checkURL(ctx context.Context, raw string) error {
	err := s.Fetcher.Check(ctx, raw)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, safefetch.ErrForbiddenAddress):
		return apierr.Field("url", "must be a public address (loopback, private and link-local addresses are refused)")
	case errors.Is(err, safefetch.ErrScheme), errors.Is(err, safefetch.ErrInvalidURL):
		return apierr.Field("url", "must be an http(s) URL whose host resolves")
	}
	return err
}

// CreateEndpoint makes an endpoint with a fresh secret; the returned
// endpoint carries the secret, which is never shown again.
func (s *Service) CreateEndpoint(ctx context.Context, orgID string, d endpoint.Draft) (endpoint.Endpoint, error) {
	d, err := d.Validate()
	if err != nil {
		return endpoint.Endpoint{}, err
	}
	if err := s.checkURL(ctx, d.URL); err != nil {
		return endpoint.Endpoint{}, err
	}
	secret, err := signing.NewSecret()
	if err != nil {
		return endpoint.Endpoint{}, err
	}
	e := endpoint.New(uuid.NewString(), orgID, secret, d, s.now())
	return e, s.Store.InsertEndpoint(ctx, e)
}

// Endpoint returns an endpoint of the organization.
func (s *Service) Endpoint(ctx context.Context, orgID, id string) (endpoint.Endpoint, error) {
	return s.Store.Endpoint(ctx, orgID, id)
}

// Endpoints returns a page of the organization's endpoints.
func (s *Service) Endpoints(ctx context.Context, orgID string, offset, limit int) ([]endpoint.Endpoint, int, error) {
	return s.Store.Endpoints(ctx, orgID, offset, limit)
}

// UpdateEndpoint applies a patch; a new URL is checked like a new
// endpoint's.
func (s *Service) UpdateEndpoint(ctx context.Context, orgID, id string, p endpoint.Patch) (endpoint.Endpoint, error) {
	p, err := p.Validate()
	if err != nil {
		return endpoint.Endpoint{}, err
	}
	if p.URL != nil {
		if err := s.checkURL(ctx, *p.URL); err != nil {
			return endpoint.Endpoint{}, err
		}
	}
	e, err := s.Store.UpdateEndpoint(ctx, orgID, id, func(e endpoint.Endpoint) (endpoint.Endpoint, error) {
		return p.Apply(e, s.now()), nil
	})
	if err == nil && e.Enabled {
		s.Wake() // deliveries held while it was disabled are due
	}
	return e, err
}

// DeleteEndpoint removes an endpoint; its pending deliveries go with it.
func (s *Service) DeleteEndpoint(ctx context.Context, orgID, id string) error {
	return s.Store.DeleteEndpoint(ctx, orgID, id)
}

// RotateSecret gives the endpoint a fresh secret, returned once; the old
// one signs deliveries too for SecretOverlap.
func (s *Service) RotateSecret(ctx context.Context, orgID, id string) (endpoint.Endpoint, error) {
	fresh, err := signing.NewSecret()
	if err != nil {
		return endpoint.Endpoint{}, err
	}
	return s.Store.UpdateEndpoint(ctx, orgID, id, func(e endpoint.Endpoint) (endpoint.Endpoint, error) {
		return e.Rotate(fresh, s.now(), s.SecretOverlap), nil
	})
}

// Test queues a webhooks.test message to the endpoint, whatever it
// subscribes to, and returns its delivery.
func (s *Service) Test(ctx context.Context, orgID, id string) (delivery.Delivery, error) {
	e, err := s.Store.Endpoint(ctx, orgID, id)
	if err != nil {
		return delivery.Delivery{}, err
	}
	now := s.now()
	did := uuid.NewString()
	m, err := message.New(endpoint.Test, "test-"+did, now, message.Test{EndpointID: e.ID, Message: "This is a test delivery from Hookline."})
	if err != nil {
		return delivery.Delivery{}, err
	}
	d := delivery.New(did, e, m, now)
	if err := s.Store.InsertDelivery(ctx, d); err != nil {
		return delivery.Delivery{}, err
	}
	s.Wake()
	return d, nil
}

// Deliveries returns a page of an endpoint's deliveries.
func (s *Service) Deliveries(ctx context.Context, orgID, endpointID string, offset, limit int) ([]delivery.Delivery, int, error) {
	return s.Store.Deliveries(ctx, orgID, endpointID, offset, limit)
}

// Retry makes a delivery due now, with a fresh retry window when it had
// been given up.
func (s *Service) Retry(ctx context.Context, orgID, endpointID, id string) (delivery.Delivery, error) {
	d, err := s.Store.UpdateDelivery(ctx, orgID, endpointID, id, func(d delivery.Delivery) delivery.Delivery {
		return d.Retry(s.now())
	})
	if err == nil {
		s.Wake()
	}
	return d, err
}

// disabledEvent is webhooks.endpoint.disabled.v1 for e.
func disabledEvent(ctx context.Context, e endpoint.Endpoint) (events.Envelope, error) {
	since := ""
	if e.FailingSince != nil {
		since = e.FailingSince.UTC().Format(time.RFC3339)
	}
	env, err := events.New(ctx, events.WebhooksEndpointDisabled, Source, e.OrgID, events.EndpointDisabled{
		EndpointID: e.ID, URL: e.URL, Failures: e.Failures, FailingSince: since, Reason: e.DisabledReason})
	if err != nil {
		return events.Envelope{}, fmt.Errorf("service: %w", err)
	}
	return env, nil
}
