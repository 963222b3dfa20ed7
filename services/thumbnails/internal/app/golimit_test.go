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
