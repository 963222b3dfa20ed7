package testkit

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// NewTraceparent returns a random, sampled W3C traceparent and its trace
// id, for tests that follow one trace across services.
func NewTraceparent() (traceparent, traceID string) {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	traceID = hex.EncodeToString(b[:16])
	return "00-" + traceID + "-" + hex.EncodeToString(b[16:]) + "-01", traceID
}

// TraceID returns the trace id of a W3C traceparent, or "".
func TraceID(traceparent string) string {
	if parts := strings.Split(traceparent, "-"); len(parts) == 4 {
		return parts[1]
	}
	return ""
}
