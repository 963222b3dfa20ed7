package app

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"hookline.dev/pkg/media/membudget"
)

// watchEvery is how often the process's memory is measured: about the
// time a libvips decode of a large picture takes.
const watchEvery = 50 * time.Millisecond

// goMargin is kept free below the process's limit: the Go runtime's
// limit is soft, and the native side grows between two measures (a dlib
// or Tesseract pass on a large picture allocates its copy at once). With
// 32 MiB the probe's peak passed the limit by 32 MiB (bench/RESULTS.md).
const goMargin = 96 << 20

// The runtime's measures: the Go heap the last collection found live, and
// what the runtime has mapped and not given back (its share of the RSS).
var goMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/total:bytes", "/memory/classes/heap/released:bytes"}

// memoryReading is one measure of the process.
type memoryReading struct {
	live   int64 // the Go heap live at the last collection
	native int64 // the resident memory outside the Go runtime
}

// readMemory measures the process: the runtime's figures, and its RSS
// (/proc/self/statm) less what the runtime holds, which is libvips',
// dlib's and Tesseract's memory, the binary and the threads' stacks.
func readMemory(samples []metrics.Sample, rss func() int64) memoryReading {
	metrics.Read(samples)
	var v [3]int64 // goMetrics' order
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64()) //nolint:gosec // G115: memory sizes fit an int64
		}
	}
	return memoryReading{live: v[0], native: max(rss()-(v[1]-v[2]), 0)}
}

// statmRSS is the process's resident set in bytes; 0 when unknown.
func statmRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// watchMemory measures the process every watchEvery, and at once when the
// budget grants memory, and keeps it within limit, the image budget plus
// processOverhead:
//   - the Go runtime's soft limit is limit less the native memory and
//     goMargin (goLimitFor), unless the operator set GOMEMLIMIT. The
//     native memory counted is what is resident outside the runtime and
//     what the budget has granted that no reading shows yet (pending):
//     work about to decode with libvips allocates it on the native side
//     all at once, and a Go heap whose garbage had grown into that room
//     could not give it back in time (the probe's peak passed the limit
//     by 183 MiB with only the resident native memory set aside);
//   - what the image work holds, the live Go heap and the native memory
//     beyond their size at start-up, less the budget's acquisitions, is
//     charged to the budget (membudget.Budget.SetOutside): an estimate
//     short of what its work holds, or memory no acquisition names, then
//     holds back new work instead of adding to the process's peak.
func watchMemory(limit int64, getenv func(string) string, budget *membudget.Budget, rss func() int64) func(context.Context) error {
	return func(ctx context.Context) error {
		fixed := getenv("GOMEMLIMIT") != ""
		samples := make([]metrics.Sample, len(goMetrics))
		for i, name := range goMetrics {
			samples[i].Name = name
		}
		rest := readMemory(samples, rss)
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			now := readMemory(samples, rss)
			held := budget.InUse()
			grown := now.live - rest.live + now.native - rest.native
			budget.SetOutside(grown - held)
			if !fixed {
				debug.SetMemoryLimit(goLimitFor(limit, now.native+pending(held, now, rest)))
			}
			select {
			case <-ctx.Done():
				budget.SetOutside(0)
				return nil
			case <-t.C:
			case <-budget.Acquired():
			}
		}
	}
}

// pending is what of held, the budget's acquisitions, the reading now
// does not show beyond the process at rest: memory the work may still
// allocate, on the native side for all one knows. The live Go heap is the
// last collection's, so Go memory allocated since counts as pending until
// the next one, which the lower limit brings forward.
func pending(held int64, now, rest memoryReading) int64 {
	return max(held-max(now.live-rest.live, 0)-max(now.native-rest.native, 0), 0)
}

// goLimitFor is the Go runtime's limit when native bytes are resident
// outside it: the process's limit less them and goMargin, never below a
// quarter of the process's limit (the collector would then run without
// pause for little).
func goLimitFor(limit, native int64) int64 {
	return max(limit-max(native, nativeMemory)-goMargin, limit/4)
}
