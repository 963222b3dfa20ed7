// Package apierr defines the API's error codes and the error value that
// carries one to the client. It is deliberately free of net/http so domain
// packages can return these errors without depending on a transport.
package apierr

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, machine-readable error code from ARCHITECTURE.md §6.
type Code string

// The codes of the public API.
const (
	InvalidRequest       Code = "invalid_request"
	UnsupportedPrompt    Code = "unsupported_prompt"
	Unauthorized         Code = "unauthorized"
	InsufficientCredits  Code = "insufficient_credits"
	QuotaExceeded        Code = "quota_exceeded"
	NotFound             Code = "not_found"
	MethodNotAllowed     Code = "method_not_allowed"
	SourceNotReady       Code = "source_not_ready"
	IdempotencyConflict  Code = "idempotency_conflict"
	UnsupportedMediaType Code = "unsupported_media_type"
	RateLimited          Code = "rate_limited"
	// PreconditionFailed: If-Match names a version that is no longer the
	// resource's (someone changed it since it was read).
	PreconditionFailed Code = "precondition_failed"
	// PreconditionRequired: a conditional write sent without If-Match.
	PreconditionRequired Code = "precondition_required"
	Internal             Code = "internal"
	Unavailable          Code = "unavailable"
	// ProviderUnavailable: the operator's AI provider cannot serve the
	// request now (its quota is spent, it rate limits, it answered without
	// a result); nothing was charged.
	ProviderUnavailable Code = "provider_unavailable"
)

var statuses = map[Code]int{
	InvalidRequest:       400,
	UnsupportedPrompt:    400,
	Unauthorized:         401,
	InsufficientCredits:  402,
	QuotaExceeded:        403,
	NotFound:             404,
	MethodNotAllowed:     405,
	SourceNotReady:       409,
	IdempotencyConflict:  409,
	UnsupportedMediaType: 415,
	RateLimited:          429,
	PreconditionFailed:   412,
	PreconditionRequired: 428,
	Internal:             500,
	Unavailable:          503,
	ProviderUnavailable:  503,
}

// Status returns the HTTP status of a code; unknown codes are internal errors.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return 500
}

// Error is an error that is safe to show to a client.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	cause   error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.cause }

// New returns an error with a code and a client-facing message.
func New(code Code, msg string) *Error {
	return &Error{Code: code, Message: msg, Details: map[string]any{}}
}

// Wrap keeps cause for logs and errors.Is while showing only msg to clients.
func Wrap(code Code, msg string, cause error) *Error {
	e := New(code, msg)
	e.cause = cause
	return e
}

// With returns a copy of e with one more detail.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// Invalid is a 400 naming the offending fields: details.fields = {name: reason}.
func Invalid(msg string, fields map[string]string) *Error {
	e := New(InvalidRequest, msg)
	if len(fields) > 0 {
		e.Details["fields"] = fields
	}
	return e
}

// Field is a 400 for a single field.
func Field(name, reason string) *Error {
	return Invalid(name+": "+reason, map[string]string{name: reason})
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Fields collects per-field validation failures and turns them into one
// error, so a client sees every problem of a request at once.
type Fields map[string]string

// Add records reason for name unless the field already has one.
func (f Fields) Add(name, reason string) {
	if _, ok := f[name]; !ok {
		f[name] = reason
	}
}

// Check records reason for name when ok is false.
func (f Fields) Check(ok bool, name, reason string) {
	if !ok {
		f.Add(name, reason)
	}
}

// Err returns nil when no field failed, else an InvalidRequest error.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	msg := "invalid request"
	if len(f) == 1 {
		for k, v := range f {
			msg = k + ": " + v
		}
	}
	return Invalid(msg, f)
}

// maxDetail bounds Detail's result.
const maxDetail = 300

// Detail makes a third party's message (a provider's error body) fit for
// an error that reaches logs: one line, at most 300 characters, with
// secret (an API key some providers echo when refusing it) replaced.
func Detail(msg, secret string) string {
	if secret != "" {
		msg = strings.ReplaceAll(msg, secret, "[key]")
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > maxDetail {
		msg = string(r[:maxDetail]) + "…"
	}
	if msg == "" {
		return "no detail"
	}
	return msg
}
