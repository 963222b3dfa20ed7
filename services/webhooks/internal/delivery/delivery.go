// Package delivery holds the deliveries of messages to endpoints and the
// rules of their attempts: what counts as delivered, when the next
// attempt is due (exponential backoff with full jitter, for at least the
// retry window), when a delivery is given up, and when an endpoint that
// keeps failing is disabled.
package delivery

import (
	"errors"
	"fmt"
	"math"
	"time"

	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
)

// Status is where a delivery stands.
type Status string

const (
	// Pending: an attempt is due at NextAttemptAt.
	Pending Status = "pending"
	// Succeeded: an attempt was answered 2xx.
	Succeeded Status = "succeeded"
	// Failed: every attempt in the retry window failed; a retry request
	// makes it pending again.
	Failed Status = "failed"
)

// ErrNotFound means no such delivery of that endpoint in the
// organization.
var ErrNotFound = errors.New("webhook delivery not found")

// Delivery is one message to one endpoint.
type Delivery struct {
	ID, EndpointID, OrgID string
	Message               message.Message
	Status                Status
	Attempts              int
	NextAttemptAt         time.Time
	// WindowStart is when the retry window began: at creation, or at a
	// retry request.
	WindowStart time.Time
	// The last attempt's answer (Code 0: none) and how long it took.
	LastCode    int
	LastLatency time.Duration
	LastError   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeliveredAt *time.Time
	// History is every attempt, oldest first (filled by listings).
	History []Attempt
}

// Attempt is one try of a delivery.
type Attempt struct {
	N       int
	At      time.Time
	Code    int
	Latency time.Duration
	// Error says why the attempt failed ("" when it succeeded); Response
	// is the start of the answer's body.
	Error    string
	Response string
}

// OK reports whether the attempt delivered the message.
func (a Attempt) OK() bool { return a.Error == "" && a.Code >= 200 && a.Code <= 299 }

// New is a pending delivery of m to e, due at once.
func New(id string, e endpoint.Endpoint, m message.Message, now time.Time) Delivery {
	return Delivery{ID: id, EndpointID: e.ID, OrgID: e.OrgID, Message: m, Status: Pending,
		NextAttemptAt: now, WindowStart: now, CreatedAt: now, UpdatedAt: now}
}

// Retry makes d due again at once with a fresh retry window; a delivery
// already pending is only brought forward.
func (d Delivery) Retry(now time.Time) Delivery {
	if d.Status != Pending {
		d.WindowStart = now
	}
	d.Status, d.NextAttemptAt, d.UpdatedAt = Pending, now, now
	return d
}

// Policy is the retry and disabling rules.
type Policy struct {
	// Base is the delay after the first failed attempt; each later one
	// doubles it, up to Max. The delay drawn is uniform in [d/2, d] (half
	// jitter: receivers recovering from an outage are not hit in step).
	Base, Max time.Duration
	// Window is how long a delivery is retried before it is given up.
	Window time.Duration
	// An endpoint is disabled when an attempt fails and it has failed at
	// least DisableFailures times in a row over at least DisableAfter.
	DisableFailures int
	DisableAfter    time.Duration
	// Rand returns a number in [0, 1) for the jitter.
	Rand func() float64
}

// Validate checks the policy.
func (p Policy) Validate() error {
	var errs []error
	if p.Base <= 0 || p.Max < p.Base {
		errs = append(errs, errors.New("backoff base must be positive and at most the maximum"))
	}
	if p.Window < 24*time.Hour {
		errs = append(errs, errors.New("the retry window must be at least 24h"))
	}
	if p.DisableFailures < 1 || p.DisableAfter < 0 {
		errs = append(errs, errors.New("disabling needs at least one failure and a non-negative duration"))
	}
	return errors.Join(errs...)
}

// Backoff is the delay after the n-th consecutive failed attempt.
func (p Policy) Backoff(n int) time.Duration {
	d := float64(p.Base) * math.Pow(2, float64(max(n-1, 0)))
	d = min(d, float64(p.Max))
	j := 0.5
	if p.Rand != nil {
		j = p.Rand()
	}
	return time.Duration(d/2 + d/2*j)
}

// Outcome is what an attempt changed.
type Outcome struct {
	Delivery Delivery
	Endpoint endpoint.Endpoint
	// Disabled is true when this attempt disabled the endpoint.
	Disabled bool
}

// Record applies attempt a of d (to e) made at now.
func (p Policy) Record(d Delivery, e endpoint.Endpoint, a Attempt, now time.Time) Outcome {
	d.Attempts++
	a.N = d.Attempts
	d.LastCode, d.LastLatency, d.LastError, d.UpdatedAt = a.Code, a.Latency, a.Error, now
	d.History = append(d.History, a)
	e.UpdatedAt = now
	if a.OK() {
		d.Status, d.DeliveredAt = Succeeded, &now
		e.Failures, e.FailingSince = 0, nil
		return Outcome{Delivery: d, Endpoint: e}
	}
	if d.LastError == "" {
		d.LastError = fmt.Sprintf("answered %d", a.Code)
	}
	if next := now.Add(p.Backoff(d.Attempts)); next.Sub(d.WindowStart) <= p.Window {
		d.NextAttemptAt = next
	} else {
		d.Status = Failed
	}
	e.Failures++
	if e.FailingSince == nil {
		e.FailingSince = &now
	}
	out := Outcome{Delivery: d, Endpoint: e}
	if e.Enabled && e.Failures >= p.DisableFailures && now.Sub(*e.FailingSince) >= p.DisableAfter {
		out.Endpoint.Enabled = false
		out.Endpoint.DisabledReason = fmt.Sprintf("%d consecutive failed attempts since %s", e.Failures, e.FailingSince.UTC().Format(time.RFC3339))
		out.Disabled = true
	}
	return out
}
