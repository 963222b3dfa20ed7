package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/org"
)

// errInvalidAPIKey is the single answer to every failed API key: missing,
// malformed, unknown, revoked and expired keys must be indistinguishable,
// or the gateway would confirm to a guesser which keys once existed.
var errInvalidAPIKey = apierr.New(apierr.Unauthorized, "invalid API key")

var errInvalidAdminToken = apierr.New(apierr.Unauthorized, "invalid admin token")

// MapError is the one translation of domain errors into API errors.
// Anything it does not recognise stays as is; the adapter turns non-API
// errors into a logged 500.
func MapError(err error) error {
	switch {
	case errors.Is(err, org.ErrInvalidKey), errors.Is(err, org.ErrMalformedKey):
		return errInvalidAPIKey
	case errors.Is(err, org.ErrOrganizationNotFound):
		return apierr.New(apierr.NotFound, "organization not found")
	case errors.Is(err, org.ErrKeyNotFound):
		return apierr.New(apierr.NotFound, "API key not found")
	case errors.Is(err, org.ErrAccountNotOpen):
		return apierr.New(apierr.Unavailable, "the organization's credit account is being opened; retry shortly")
	case errors.Is(err, messaging.ErrUnavailable):
		return apierr.New(apierr.Unavailable, "the billing service is unavailable; retry later")
	case errors.Is(err, idempotency.ErrInvalidKey):
		return apierr.Field(idempotency.Header, "must be 1 to 255 printable ASCII characters")
	case errors.Is(err, idempotency.ErrInFlight):
		return apierr.New(apierr.IdempotencyConflict, "a request with this Idempotency-Key is still in progress; retry later")
	case errors.Is(err, idempotency.ErrMismatch):
		return apierr.New(apierr.IdempotencyConflict, "this Idempotency-Key was already used with different request parameters")
	}
	return pgkit.MapUnavailable(err)
}

// bodyTooLarge is the 400 for a request body over the cap.
func bodyTooLarge(limit int64) error {
	return apierr.New(apierr.InvalidRequest, "request body exceeds "+strconv.FormatInt(limit, 10)+" bytes").With("maxBytes", limit)
}

// tooLargeFrom returns the 400 for an error of an http.MaxBytesReader,
// or nil for any other error.
func tooLargeFrom(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return bodyTooLarge(mbe.Limit)
	}
	return nil
}
