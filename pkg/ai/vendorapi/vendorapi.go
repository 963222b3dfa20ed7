// Package vendorapi is what every adapter of a hosted AI vendor's HTTP API
// shares (the image engines, the chat model, the transcriber), so that all
// of them read base URLs, error answers, Retry-After and model lookups the
// same way. Two dialects exist: OpenAI's (and every OpenAI-compatible
// server's) and Gemini's. The facts each function relies on are cited in
// the contract files of the adapters' tests.
package vendorapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Dialect is a vendor's wire format.
type Dialect string

// The dialects.
const (
	OpenAI Dialect = "openai"
	Gemini Dialect = "gemini"
)

// version is the path segment every call of a dialect starts with.
func (d Dialect) version() string {
	if d == Gemini {
		return "v1beta"
	}
	return "v1"
}

// Base checks an operator's base URL (raw; def when empty) and returns it
// without a trailing API version: "https://api.openai.com" and
// "https://api.openai.com/v1" both name the same API, as every vendor's
// documentation and every OpenAI-compatible server write it both ways.
// The URL itself stays out of the errors: a mistaken one may carry a key.
func Base(raw, def string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		if urlErr := (*url.Error)(nil); errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return nil, fmt.Errorf("base URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return nil, errors.New("base URL: want an absolute http or https URL")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, errors.New("base URL: want an origin and optional path, without credentials, query or fragment")
	}
	p := strings.TrimRight(u.Path, "/")
	for _, v := range []string{"/v1", "/v1beta"} {
		p = strings.TrimSuffix(p, v)
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}

// URL joins the dialect's API version and elem onto base (from Base).
func (d Dialect) URL(base *url.URL, elem ...string) string {
	return base.JoinPath(append([]string{d.version()}, elem...)...).String()
}

// Kind is what a failed answer means for the caller.
type Kind int

// The kinds of failure.
const (
	// Fault: the request or the configuration is wrong (400, 401, 403,
	// other 4xx); retrying will not help.
	Fault Kind = iota
	// Unavailable: the vendor could not answer now (408, 5xx, 429 of an
	// unknown kind); retrying later may work.
	Unavailable
	// RateLimited: too many requests in a short window; the same request
	// succeeds after a short wait (OpenAI rate_limit_exceeded, a Gemini
	// per-minute quota).
	RateLimited
	// QuotaExhausted: the account's quota or credit is spent (OpenAI
	// insufficient_quota, Gemini RESOURCE_EXHAUSTED of a daily or billing
	// quota); no retry within a request helps.
	QuotaExhausted
	// ModelMissing: the vendor does not know the model (retired, misspelt,
	// or not open to this key).
	ModelMissing
)

func (k Kind) String() string {
	return [...]string{"fault", "unavailable", "rate_limited", "quota_exhausted", "model_missing"}[k]
}

// Failure is a vendor's error answer, classified.
type Failure struct {
	Kind   Kind
	Status int
	// Code is the vendor's own: OpenAI's error.code (or type), Gemini's
	// error.status.
	Code    string
	Message string
	// RetryAfter is the wait the vendor asked for (Retry-After,
	// retry-after-ms, Gemini's RetryInfo.retryDelay); 0 when it gave none.
	RetryAfter time.Duration
}

func (f *Failure) Error() string {
	s := fmt.Sprintf("HTTP %d", f.Status)
	if f.Code != "" {
		s += " " + f.Code
	}
	if f.Message != "" {
		s += ": " + f.Message
	}
	return s
}

// errorBody holds both dialects' error objects: OpenAI's {message, type,
// param, code (string or null)} and Gemini's {code (the HTTP status),
// message, status, details}.
type errorBody struct {
	Error struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  string          `json:"status"`
		Details []struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
			Violations []struct {
				QuotaID string `json:"quotaId"`
			} `json:"violations"`
		} `json:"details"`
	} `json:"error"`
}

// Classify reads a non-2xx answer of dialect d.
func Classify(d Dialect, status int, header http.Header, body []byte) *Failure {
	f := &Failure{Status: status, Message: strings.TrimSpace(string(body)), RetryAfter: RetryAfter(header)}
	if len(f.Message) > 300 {
		f.Message = f.Message[:300]
	}
	var e errorBody
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		f.Message = e.Error.Message
		if d == Gemini {
			f.Code = e.Error.Status
		} else {
			var code string
			if json.Unmarshal(e.Error.Code, &code) != nil || code == "" {
				code = e.Error.Type
			}
			f.Code = code
		}
	}
	perMinute := false
	for _, det := range e.Error.Details {
		if f.RetryAfter == 0 && strings.HasSuffix(det.Type, "google.rpc.RetryInfo") {
			if dur, err := time.ParseDuration(det.RetryDelay); err == nil && dur > 0 {
				f.RetryAfter = dur
			}
		}
		for _, v := range det.Violations {
			perMinute = perMinute || strings.Contains(v.QuotaID, "PerMinute")
		}
	}
	switch {
	case status == http.StatusNotFound && (f.Code == "model_not_found" || d == Gemini && f.Code == "NOT_FOUND"):
		f.Kind = ModelMissing
	case status == http.StatusTooManyRequests && d == OpenAI && f.Code == "insufficient_quota",
		status == http.StatusTooManyRequests && d == Gemini && f.Code == "RESOURCE_EXHAUSTED" && !perMinute:
		f.Kind = QuotaExhausted
	case status == http.StatusTooManyRequests:
		f.Kind = RateLimited
	case status == http.StatusRequestTimeout || status >= 500:
		f.Kind = Unavailable
	}
	return f
}

// RetryAfter reads the wait an answer asks for: OpenAI's retry-after-ms,
// then Retry-After in seconds or as an HTTP date. 0 when none.
func RetryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// Backoff is how long to wait before attempt n (from 1) of a rate-limited
// call: what the vendor asked for, else 0.5 s doubling.
func Backoff(f *Failure, n int) time.Duration {
	if f.RetryAfter > 0 {
		return f.RetryAfter
	}
	return 500 * time.Millisecond << min(n-1, 5)
}

// Retry runs call until it succeeds, fails other than RateLimited, or the
// next wait would pass ctx's deadline; a rate limit is the one failure a
// request outlives by waiting. maxAttempts bounds the calls.
func Retry[T any](ctx context.Context, maxAttempts int, call func() (T, *Failure, error)) (T, *Failure, error) {
	for n := 1; ; n++ {
		v, f, err := call()
		if err != nil || f == nil || f.Kind != RateLimited || n >= maxAttempts {
			return v, f, err
		}
		wait := Backoff(f, n)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return v, f, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, f, err
		case <-t.C:
		}
	}
}

// ErrModelMissing: the vendor answered that the model does not exist.
var ErrModelMissing = errors.New("model not found at the vendor")

// maxLookupBytes bounds what is read of a model lookup's answer.
const maxLookupBytes = 1 << 20

// LookupModel asks the vendor whether model exists: OpenAI's
// GET /v1/models/{model}, Gemini's GET /v1beta/models/{model}, with
// header (the key). It returns nil when the vendor knows it, an error
// wrapping ErrModelMissing (and the *Failure) when it answers 404, and
// any other error for a failure that says nothing about the model
// (unreachable, 5xx, a timeout): those must not change what the caller
// believes.
func (d Dialect) LookupModel(ctx context.Context, client *http.Client, base *url.URL, model string, header http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL(base, "models", model), nil)
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLookupBytes))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 == 2 {
		return nil
	}
	f := Classify(d, resp.StatusCode, resp.Header, body)
	// A 404 counts only when it is the vendor's error about the model: a
	// server without the lookup route (vLLM, whisper.cpp) answers a bare
	// 404, which says nothing about the model.
	if f.Kind == ModelMissing || resp.StatusCode == http.StatusNotFound && strings.Contains(f.Message, model) && f.Code != "" {
		return fmt.Errorf("%w: %s: %w", ErrModelMissing, model, f)
	}
	return fmt.Errorf("model lookup: %w", f)
}
