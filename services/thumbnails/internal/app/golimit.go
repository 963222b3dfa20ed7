package app

import (
	"context"
	"runtime/debug"
	"time"
)

// goLimitEvery is how often the Go runtime's soft limit follows the C
// heap: about the time a libvips decode of a large picture takes.
const goLimitEvery = 50 * time.Millisecond

// goLimit keeps the Go runtime's soft memory limit at the process's limit
// less what lives outside the runtime: nativeMemory at rest, and what the
// C heap (libvips' pixel buffers, counted in the image budget) holds
// beyond its size at start-up, read by mallocInUse. With a fixed limit,
// the Go heap's garbage could grow into the room libvips' work is using
// and the process would pass budget plus overhead. The limit never falls
// below a quarter of the process's: the collector would then run without
// pause for little. It does nothing when the operator set GOMEMLIMIT.
func goLimit(limit int64, getenv func(string) string, mallocInUse func() int64) func(context.Context) error {
	return func(ctx context.Context) error {
		if getenv("GOMEMLIMIT") != "" {
			return nil
		}
		rest := mallocInUse()
		t := time.NewTicker(goLimitEvery)
		defer t.Stop()
		for {
			debug.SetMemoryLimit(goLimitFor(limit, mallocInUse()-rest))
			select {
			case <-ctx.Done():
				debug.SetMemoryLimit(goLimitFor(limit, 0))
				return nil
			case <-t.C:
			}
		}
	}
}

// goLimitFor is the Go runtime's limit when the C heap holds grown bytes
// more than at start-up.
func goLimitFor(limit, grown int64) int64 {
	return max(limit-nativeMemory-max(grown, 0), limit/4)
}
