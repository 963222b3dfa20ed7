// Package hookline is the Go client of the Hookline API: typed requests
// and responses for every operation of the OpenAPI document, an
// Idempotency-Key on every POST, retries that honour Retry-After, page
// iterators, waiting for long work, and the webhook-signature check.
package hookline
