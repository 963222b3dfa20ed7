package delivery

import (
	"testing"
	"time"

	"hookline.dev/services/webhooks/internal/endpoint"
	"hookline.dev/services/webhooks/internal/message"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func policy(r float64) Policy {
	return Policy{Base: 5 * time.Second, Max: 2 * time.Hour, Window: 25 * time.Hour, DisableFailures: 5, DisableAfter: 24 * time.Hour,
		Rand: func() float64 { return r }}
}

func TestBackoffDoublesWithinJitterUpToTheMaximum(t *testing.T) {
	lo, hi := policy(0), policy(0.999999)
	for n, want := range map[int]time.Duration{1: 5 * time.Second, 2: 10 * time.Second, 5: 80 * time.Second, 30: 2 * time.Hour} {
		if got := lo.Backoff(n); got != want/2 {
			t.Errorf("low jitter after %d: %s, want %s", n, got, want/2)
		}
		if got := hi.Backoff(n); got > want || got < want*99/100 {
			t.Errorf("high jitter after %d: %s, want about %s", n, got, want)
		}
	}
}

// A receiver that never answers 2xx is tried for the whole window, and
// not a moment beyond it.
func TestFailingDeliveryRetriedForTheWindowThenGivenUp(t *testing.T) {
	p := policy(0.5)
	e := endpoint.Endpoint{ID: "e", Enabled: true}
	d := New("d", e, message.Message{Type: endpoint.Test}, t0)
	now := t0
	for d.Status == Pending {
		out := p.Record(d, e, Attempt{At: now, Code: 500}, now)
		d, e = out.Delivery, out.Endpoint
		e.Enabled = true // disabling is another test's matter
		if d.Status == Pending {
			if !d.NextAttemptAt.After(now) {
				t.Fatalf("attempt %d: next %s not after %s", d.Attempts, d.NextAttemptAt, now)
			}
			now = d.NextAttemptAt
		}
	}
	if d.Status != Failed || now.Sub(t0) < 24*time.Hour || now.Sub(t0) > p.Window {
		t.Fatalf("given up after %s (%d attempts): %s", now.Sub(t0), d.Attempts, d.Status)
	}
	if len(d.History) != d.Attempts || d.LastError != "answered 500" {
		t.Fatalf("history %d of %d attempts, last error %q", len(d.History), d.Attempts, d.LastError)
	}
	// A retry request opens a new window.
	r := d.Retry(now)
	if r.Status != Pending || !r.WindowStart.Equal(now) || !r.NextAttemptAt.Equal(now) {
		t.Fatalf("retried: %+v", r)
	}
}

func TestSuccessResetsTheEndpointsFailures(t *testing.T) {
	p := policy(0.5)
	since := t0.Add(-time.Hour)
	e := endpoint.Endpoint{ID: "e", Enabled: true, Failures: 3, FailingSince: &since}
	d := New("d", e, message.Message{}, t0)
	out := p.Record(d, e, Attempt{Code: 204}, t0)
	if out.Delivery.Status != Succeeded || out.Delivery.DeliveredAt == nil || out.Endpoint.Failures != 0 || out.Endpoint.FailingSince != nil {
		t.Fatalf("%+v", out)
	}
	// A timeout is a failure even without a status.
	out = p.Record(d, e, Attempt{Error: "timeout"}, t0)
	if out.Delivery.Status != Pending || out.Endpoint.Failures != 4 {
		t.Fatalf("%+v", out)
	}
}

// Disabling needs both many failures and a long streak.
func TestEndpointDisabledAfterRepeatedFailure(t *testing.T) {
	p := policy(0.5)
	since := t0.Add(-25 * time.Hour)
	cases := []struct {
		failures int
		since    time.Time
		disabled bool
	}{
		{failures: 4, since: since, disabled: true}, // the 5th failure, 25 h in
		{failures: 3, since: since},                 // only the 4th
		{failures: 40, since: t0.Add(-time.Hour)},   // many, but an hour
	}
	for _, c := range cases {
		e := endpoint.Endpoint{ID: "e", Enabled: true, Failures: c.failures, FailingSince: &c.since}
		out := p.Record(New("d", e, message.Message{}, t0), e, Attempt{Code: 503}, t0)
		if out.Disabled != c.disabled || out.Endpoint.Enabled == c.disabled {
			t.Errorf("%d failures since %s: disabled %v", c.failures, c.since, out.Disabled)
		}
		if c.disabled && out.Endpoint.DisabledReason == "" {
			t.Error("disabled without a reason")
		}
	}
}
