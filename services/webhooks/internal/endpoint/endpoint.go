// Package endpoint holds an organization's webhook endpoints: where
// events go, which ones, and the secrets their deliveries are signed with.
// A secret is shown once, when it is made; rotating it keeps the old one
// valid for an overlap so receivers can switch without losing a message.
package endpoint

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"hookline.dev/pkg/platform/apierr"
)

// Event types an endpoint may subscribe to (the `type` of a message).
const (
	ProjectReady     = "clips.project.ready"
	ProjectFailed    = "clips.project.failed"
	RenderCompleted  = "clips.render.completed"
	RenderFailed     = "clips.render.failed"
	CreditsLow       = "credits.low"
	EndpointDisabled = "webhooks.endpoint.disabled"
	// Test is the type of POST /webhooks/{id}/test: sent whatever the
	// endpoint subscribes to.
	Test = "webhooks.test"
)

// Types are the event types an endpoint may subscribe to, in the order
// the documentation lists them.
var Types = []string{ProjectReady, ProjectFailed, RenderCompleted, RenderFailed, CreditsLow, EndpointDisabled}

// Limits of an endpoint's fields.
const (
	MaxURL         = 2048
	MaxDescription = 500
	// DefaultCreditsLow is the threshold of credits.low when the endpoint
	// sets none.
	DefaultCreditsLow = 10
	MaxCreditsLow     = 1_000_000_000
)

// ErrNotFound means no endpoint with that id exists in the organization.
var ErrNotFound = errors.New("webhook endpoint not found")

// Endpoint is where an organization's events are delivered.
type Endpoint struct {
	ID, OrgID   string
	URL         string
	Description string
	EventTypes  []string
	Enabled     bool
	// CreditsLow is the balance under which credits.low is sent.
	CreditsLow int64
	// CreditsLowArmed is true while the balance is at or above CreditsLow
	// (or not yet known): credits.low is sent when the balance falls
	// under it from there, once, until it rises again.
	CreditsLowArmed bool
	// CreditsVersion is the account version of the last billing event
	// the endpoint's credits.low state reflects; older ones are ignored.
	CreditsVersion int64
	Secret         string
	// PreviousSecret stays valid until PreviousSecretExpiresAt.
	PreviousSecret          string
	PreviousSecretExpiresAt time.Time
	// Failures counts consecutive failed attempts since FailingSince;
	// a success resets both.
	Failures       int
	FailingSince   *time.Time
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Secrets are the secrets a delivery made at now is signed with: the
// current one, and the previous one during its overlap.
func (e Endpoint) Secrets(now time.Time) []string {
	s := []string{e.Secret}
	if e.PreviousSecret != "" && now.Before(e.PreviousSecretExpiresAt) {
		s = append(s, e.PreviousSecret)
	}
	return s
}

// Subscribed reports whether e wants events of type t.
func (e Endpoint) Subscribed(t string) bool { return e.Enabled && slices.Contains(e.EventTypes, t) }

// Rotate replaces the secret with fresh, keeping the current one valid
// for overlap.
func (e Endpoint) Rotate(fresh string, now time.Time, overlap time.Duration) Endpoint {
	e.PreviousSecret, e.PreviousSecretExpiresAt = e.Secret, now.Add(overlap)
	e.Secret, e.UpdatedAt = fresh, now
	return e
}

// Draft is a request to create an endpoint.
type Draft struct {
	URL         string
	Description string
	EventTypes  []string
	Enabled     *bool
	CreditsLow  *int64
}

// Validate returns d normalized, or an InvalidRequest naming the failing
// fields. Whether the URL's host may be reached is the fetcher's check,
// made by the caller.
func (d Draft) Validate() (Draft, error) {
	f := apierr.Fields{}
	d.URL = checkURL(f, d.URL)
	d.Description = checkDescription(f, d.Description)
	d.EventTypes = checkTypes(f, d.EventTypes)
	checkThreshold(f, d.CreditsLow)
	return d, f.Err()
}

// Patch changes some fields; nil fields stay.
type Patch struct {
	URL         *string
	Description *string
	EventTypes  *[]string
	Enabled     *bool
	CreditsLow  *int64
}

// Validate applies Draft's rules to the fields present and requires one.
func (p Patch) Validate() (Patch, error) {
	f := apierr.Fields{}
	if p == (Patch{}) {
		return p, apierr.Invalid("nothing to change", map[string]string{"body": "must set url, description, eventTypes, enabled or creditsLowThreshold"})
	}
	if p.URL != nil {
		u := checkURL(f, *p.URL)
		p.URL = &u
	}
	if p.Description != nil {
		d := checkDescription(f, *p.Description)
		p.Description = &d
	}
	if p.EventTypes != nil {
		t := checkTypes(f, *p.EventTypes)
		p.EventTypes = &t
	}
	checkThreshold(f, p.CreditsLow)
	return p, f.Err()
}

// Apply returns e changed by p at now. Enabling a disabled endpoint
// forgets its failures, so it is not disabled again by the first one.
func (p Patch) Apply(e Endpoint, now time.Time) Endpoint {
	if p.URL != nil {
		e.URL = *p.URL
	}
	if p.Description != nil {
		e.Description = *p.Description
	}
	if p.EventTypes != nil {
		e.EventTypes = *p.EventTypes
	}
	if p.CreditsLow != nil {
		e.CreditsLow, e.CreditsLowArmed = *p.CreditsLow, true
	}
	if p.Enabled != nil {
		if *p.Enabled && !e.Enabled {
			e.Failures, e.FailingSince, e.DisabledReason = 0, nil, ""
		}
		e.Enabled = *p.Enabled
	}
	e.UpdatedAt = now
	return e
}

// New makes the endpoint of a validated draft.
func New(id, orgID, secret string, d Draft, now time.Time) Endpoint {
	e := Endpoint{ID: id, OrgID: orgID, URL: d.URL, Description: d.Description, EventTypes: d.EventTypes,
		Enabled: true, CreditsLow: DefaultCreditsLow, CreditsLowArmed: true, Secret: secret, CreatedAt: now, UpdatedAt: now}
	if d.Enabled != nil {
		e.Enabled = *d.Enabled
	}
	if d.CreditsLow != nil {
		e.CreditsLow = *d.CreditsLow
	}
	return e
}

func checkURL(f apierr.Fields, raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		f.Add("url", "is required")
	case len(raw) > MaxURL:
		f.Add("url", fmt.Sprintf("must be at most %d characters", MaxURL))
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		f.Add("url", "must be an absolute http(s) URL")
	case u.User != nil:
		f.Add("url", "must not carry credentials")
	case u.Fragment != "":
		f.Add("url", "must not have a fragment")
	}
	return raw
}

func checkDescription(f apierr.Fields, s string) string {
	s = strings.TrimSpace(s)
	f.Check(len([]rune(s)) <= MaxDescription, "description", fmt.Sprintf("must be at most %d characters", MaxDescription))
	return s
}

// checkTypes requires known types, at least one, and returns them
// deduplicated in the catalogue's order.
func checkTypes(f apierr.Fields, types []string) []string {
	if len(types) == 0 {
		f.Add("eventTypes", "must name at least one event type: "+strings.Join(Types, ", "))
		return nil
	}
	var out []string
	for _, t := range Types {
		if slices.Contains(types, t) {
			out = append(out, t)
		}
	}
	for _, t := range types {
		if !slices.Contains(Types, t) {
			f.Add("eventTypes", fmt.Sprintf("%q is not one of %s", t, strings.Join(Types, ", ")))
			break
		}
	}
	return out
}

func checkThreshold(f apierr.Fields, n *int64) {
	if n != nil {
		f.Check(*n >= 1 && *n <= MaxCreditsLow, "creditsLowThreshold", fmt.Sprintf("must be an integer from 1 to %d", MaxCreditsLow))
	}
}
