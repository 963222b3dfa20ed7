package hookline

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is a non-2xx answer: the error envelope
// {"error": message, "code": code, "details": {...}} with the status and
// the request id.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the envelope's code (invalid_request, insufficient_credits,
	// not_found, rate_limited, …); empty when the answer was not an
	// envelope (a proxy's page, say).
	Code string
	// Message is the envelope's error, for people.
	Message string
	// Details is the envelope's details object.
	Details map[string]any
	// RequestID is the answer's X-Request-ID: quote it when asking why.
	RequestID string
	// RetryAfter is the answer's Retry-After (429, some 503s).
	RetryAfter time.Duration
}

// Error words the failure as the message, then the code and status.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	b.WriteString(" (")
	if e.Code != "" {
		b.WriteString(e.Code)
		b.WriteString(", ")
	}
	b.WriteString("HTTP ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.RequestID != "" {
		b.WriteString(", request ")
		b.WriteString(e.RequestID)
	}
	b.WriteString(")")
	return b.String()
}

// Fields are the validation failures of a 400: field name → reason.
func (e *APIError) Fields() map[string]string {
	raw, _ := e.Details["fields"].(map[string]any)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// ErrorCode is the envelope code of err when it is (or wraps) an
// *APIError, else "".
func ErrorCode(err error) string {
	var e *APIError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func newAPIError(status int, header http.Header, body []byte) *APIError {
	e := &APIError{StatusCode: status, RequestID: header.Get("X-Request-ID"), RetryAfter: retryAfter(header.Get("Retry-After"))}
	var env struct {
		Error   string         `json:"error"`
		Code    string         `json:"code"`
		Details map[string]any `json:"details"`
	}
	if json.Unmarshal(body, &env) == nil && env.Code != "" {
		e.Code, e.Message, e.Details = env.Code, env.Error, env.Details
		return e
	}
	e.Message = http.StatusText(status)
	if text := strings.TrimSpace(string(body)); text != "" {
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		e.Message += ": " + text
	}
	return e
}

// retryAfter reads Retry-After: delay-seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
