package app

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// The Go runtime's limit gives way to the native memory (at least
// nativeMemory is assumed), never below a quarter of the process's limit.
func TestGoLimitFor(t *testing.T) {
	const limit = 1 << 30
	for _, tc := range []struct{ native, want int64 }{
		{0, limit - nativeMemory - goMargin},
		{nativeMemory + 200<<20, limit - nativeMemory - 200<<20 - goMargin},
		{limit, limit / 4},
	} {
		if got := goLimitFor(limit, tc.native); got != tc.want {
			t.Errorf("native %d: %d, want %d", tc.native, got, tc.want)
		}
	}
}

// The native memory is the RSS less what the Go runtime holds.
func TestReadMemory(t *testing.T) {
	samples := make([]metrics.Sample, len(goMetrics))
	for i, name := range goMetrics {
		samples[i].Name = name
	}
	runtime.GC() // the live heap is the last collection's
	m := readMemory(samples, statmRSS)
	if m.live <= 0 || statmRSS() <= 0 {
		t.Fatalf("live heap %d, RSS %d", m.live, statmRSS())
	}
	if big := readMemory(samples, func() int64 { return statmRSS() + 300<<20 }); big.native < m.native+250<<20 {
		t.Fatalf("300 MiB more resident gave native %d, was %d", big.native, m.native)
	}
}

// What the budget granted and no reading shows yet is pending: it is set
// aside for the native side until the Go heap or the native memory shows
// it.
func TestPending(t *testing.T) {
	rest := memoryReading{live: 40 << 20, native: 160 << 20}
	for _, tc := range []struct {
		held int64
		now  memoryReading
		want int64
	}{
		{0, rest, 0},
		{300 << 20, rest, 300 << 20}, // granted, nothing allocated yet
		{300 << 20, memoryReading{live: 140 << 20, native: 160 << 20}, 200 << 20}, // 100 MiB in the Go heap
		{300 << 20, memoryReading{live: 40 << 20, native: 360 << 20}, 100 << 20},  // 200 MiB natively
		{300 << 20, memoryReading{live: 400 << 20, native: 200 << 20}, 0},         // more than granted
		{300 << 20, memoryReading{live: 20 << 20, native: 100 << 20}, 300 << 20},  // below rest counts as rest
	} {
		if got := pending(tc.held, tc.now, rest); got != tc.want {
			t.Errorf("held %d MiB, now %+v: pending %d MiB, want %d", tc.held>>20, tc.now, got>>20, tc.want>>20)
		}
	}
}
