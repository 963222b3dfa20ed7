package app_test

import (
	"testing"
)

// BenchmarkGenerate measures one POST /thumbnails end to end in-process:
// reserve with the real billing, compose with the local engine, S3 put,
// the transaction with its events.
func BenchmarkGenerate(b *testing.B) {
	h := newHarness(b)
	org := h.openAccount("pro")
	body := map[string]any{"prompt": "I tested every budget phone of 2026"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// 30 credits: a new account every 25 generations keeps billing
		// from refusing.
		if i > 0 && i%25 == 0 {
			b.StopTimer()
			org = h.openAccount("pro")
			b.StartTimer()
		}
		if r := h.Do("POST", "/thumbnails", org, body); r.Status != 201 {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
}
