package hookline

import (
	"math/rand/v2"
	"net/http"
	"time"
)

// RetryPolicy says which failed calls are sent again and when.
//
// A 429 (rate limited) is always retried: the gateway refused the call
// before doing anything. A 5xx or a broken connection is retried only for
// idempotent calls: GET and HEAD, and POST with an Idempotency-Key (the
// default), since the gateway replays a finished call with the same key
// instead of doing it twice. A PATCH or DELETE that failed that way is
// not sent again. While the first attempt of a keyed POST is still running
// a retry gets 409 idempotency_conflict; that too is waited out.
//
// The wait is the answer's Retry-After when it has one, else an
// exponential backoff with jitter.
type RetryPolicy struct {
	// MaxRetries is how many times a call is sent again (0: never).
	MaxRetries int
	// MinBackoff is the first backoff; each further one doubles, up to
	// MaxBackoff, and a random part of up to half of it is added.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps the Retry-After the client waits: a longer one
	// ends the call with the *APIError (its RetryAfter says how long).
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy retries three times, from 250 ms up to 8 s apart,
// and waits at most a minute for a Retry-After.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, MinBackoff: 250 * time.Millisecond, MaxBackoff: 8 * time.Second, MaxRetryAfter: time.Minute}

// NoRetries sends every call once.
var NoRetries = RetryPolicy{}

// next says whether the call is sent again after attempt (0-based) failed
// with apiErr (nil for a transport failure), and after what wait.
func (p RetryPolicy) next(attempt int, idempotent bool, apiErr *APIError) (time.Duration, bool) {
	if attempt >= p.MaxRetries {
		return 0, false
	}
	switch {
	case apiErr == nil:
		if !idempotent {
			return 0, false
		}
	case apiErr.StatusCode == http.StatusTooManyRequests:
	case apiErr.StatusCode >= 500:
		if !idempotent {
			return 0, false
		}
	case apiErr.StatusCode == http.StatusConflict && apiErr.Code == "idempotency_conflict" && idempotent && attempt > 0:
		// Our own first attempt, whose answer was lost, is still running.
	default:
		return 0, false
	}
	if apiErr != nil && apiErr.RetryAfter > 0 {
		if p.MaxRetryAfter > 0 && apiErr.RetryAfter > p.MaxRetryAfter {
			return 0, false
		}
		return apiErr.RetryAfter, true
	}
	return p.backoff(attempt), true
}

func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.MinBackoff
	for range attempt {
		d *= 2
		if p.MaxBackoff > 0 && d >= p.MaxBackoff {
			d = p.MaxBackoff
			break
		}
	}
	if d <= 0 {
		return 0
	}
	return d + rand.N(d/2+1) //nolint:gosec // G404: jitter, not a secret
}
