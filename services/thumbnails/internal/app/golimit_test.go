package app

import "testing"

// The Go runtime's limit gives way to the C heap's growth, never below a
// quarter of the process's limit.
func TestGoLimitFor(t *testing.T) {
	const limit = 1 << 30
	for _, tc := range []struct{ grown, want int64 }{
		{0, limit - nativeMemory},
		{-5 << 20, limit - nativeMemory}, // the C heap shrank below its start
		{200 << 20, limit - nativeMemory - 200<<20},
		{limit, limit / 4},
	} {
		if got := goLimitFor(limit, tc.grown); got != tc.want {
			t.Errorf("grown %d: %d, want %d", tc.grown, got, tc.want)
		}
	}
}
