// Package httpx is the HTTP edge shared by every service: handlers that
// return errors, the one function that turns an error into the API's
// envelope, strict JSON decoding, pagination and the success writers.
package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"hookline.dev/pkg/platform/apierr"
)

// HandlerFunc is an HTTP handler that reports failure by returning an error.
// Only the adapter writes error responses, so every failure has one shape.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Adapter turns HandlerFuncs into http.HandlerFuncs.
type Adapter struct {
	Log *slog.Logger
	// MapError translates domain errors into *apierr.Error values. It may
	// return its argument unchanged; anything that is not an *apierr.Error
	// after mapping is an internal error.
	MapError func(error) error
}

// Wrap adapts h.
func (a Adapter) Wrap(h HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			if a.MapError != nil {
				err = a.MapError(err)
			}
			WriteError(w, r, a.Log, err)
		}
	}
}

type envelope struct {
	Error   string         `json:"error"`
	Code    apierr.Code    `json:"code"`
	Details map[string]any `json:"details"`
}

// WriteError writes err as the error envelope. Errors that are not
// *apierr.Error are logged and shown to the client only as "internal error".
// Unless the handler set Retry-After, an error whose details.retryAfter
// is a number of seconds (int64) sends it in that header, which clients
// and proxies act on without reading the body, and any other 503 sends
// defaultRetryAfter.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			// The client went away; there is nobody to answer.
			return
		}
		if log != nil {
			log.ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path, "request_id", RequestIDFrom(r.Context()))
		}
		ae = apierr.New(apierr.Internal, "internal error")
	}
	details := ae.Details
	if details == nil {
		details = map[string]any{}
	}
	if w.Header().Get(RetryAfterHeader) == "" {
		if secs, ok := details["retryAfter"].(int64); ok && secs > 0 {
			w.Header().Set(RetryAfterHeader, strconv.FormatInt(secs, 10))
		} else if ae.Code == apierr.Unavailable {
			w.Header().Set(RetryAfterHeader, defaultRetryAfter)
		}
	}
	writeJSON(w, ae.Code.Status(), envelope{Error: ae.Message, Code: ae.Code, Details: details})
}

// RetryAfterHeader tells a client how many seconds to wait before it
// retries.
const RetryAfterHeader = "Retry-After"

// defaultRetryAfter is the Retry-After of a 503 whose handler set none.
// What answers 503 (a dependency that does not answer, a service
// restarting) passes in seconds; a client told nothing either hammers the
// service or gives up on a request that a retry would have served.
const defaultRetryAfter = "1"

type dataEnvelope struct {
	Data any `json:"data"`
}

// OK writes {data: v} with status 200.
func OK(w http.ResponseWriter, v any) error { return Data(w, http.StatusOK, v) }

// Created writes {data: v} with status 201.
func Created(w http.ResponseWriter, v any) error { return Data(w, http.StatusCreated, v) }

// Data writes {data: v} with the given status.
func Data(w http.ResponseWriter, status int, v any) error {
	writeJSON(w, status, dataEnvelope{Data: v})
	return nil
}

// OrNull is v for a DTO field that is null while unset: nil for the zero
// value.
func OrNull[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// NoContent writes 204.
func NoContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"internal error","code":"internal","details":{}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// NotFound is an http.Handler answering 404 in the envelope, for routers'
// unknown paths.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, nil, apierr.New(apierr.NotFound, "no such endpoint: "+r.Method+" "+r.URL.Path))
}

// MethodNotAllowed answers 405 method_not_allowed in the envelope, for
// routers' known paths asked with another method.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, nil, apierr.New(apierr.MethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path))
}
