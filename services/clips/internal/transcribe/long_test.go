package transcribe

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// longTalk writes a WAV of real speech lasting about seconds: Asterisk's
// prompts of five words or more, each after a second and a half of
// silence, over and over, written a prompt at a time.
func longTalk(t testing.TB, s speechSetup, dir string, seconds float64) string {
	t.Helper()
	var voice [][]byte
	for i, p := range prompts(t, s.eval, 5) {
		if i%6 != 0 {
			continue
		}
		_, pcm, err := readWAV(promptWAV(t, s.eval, dir, p.name))
		if err != nil {
			t.Fatal(err)
		}
		voice = append(voice, pcm)
	}
	path := filepath.Join(dir, "long.wav")
	f, err := os.Create(path) //nolint:gosec // G304: the test's own directory
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	total := int(seconds * moonshineRate * 2)
	if _, err := w.Write(wavHeader(moonshineRate, total)); err != nil {
		t.Fatal(err)
	}
	gap := make([]byte, 3*moonshineRate)
	written := 0
	for i := 0; written < total; i++ {
		for _, b := range [][]byte{gap, voice[i%len(voice)]} {
			n, err := w.Write(b[:min(len(b), total-written)])
			if err != nil {
				t.Fatal(err)
			}
			written += n
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// memoryPeak runs do and returns the peak of the Go heap's live bytes
// (as each garbage collection measured them; collections forced every
// 50 ms so none is missed) above what was live before, and the process's
// peak resident set over the run (VmHWM, reset before it: Linux's
// clear_refs 5).
func memoryPeak(t *testing.T, do func()) (heap, rss uint64) {
	t.Helper()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := live()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak resident set: %v", err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.GC()
			peak = max(peak, live())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	do()
	close(stop)
	wg.Wait()
	return peak - min(peak, base), vmHWM(t)
}

// vmHWM is the process's peak resident set, in bytes.
func vmHWM(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(b) {
		if v, ok := strings.CutPrefix(string(line), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// TestLongSourceMemoryDoesNotGrow: ten minutes of real speech take no
// more memory to transcribe than two. The Go heap's live peak may grow
// by the transcript's own words and the split's one number a frame (well
// under 8 MB for ten minutes); a reader holding the recording would add
// 19 MB (and its float copy 38 MB more). The process's peak resident set
// (ONNX Runtime's arenas; pocketsphinx runs apart) is logged beside it.
// Progress reports rise to 1.
func TestLongSourceMemoryDoesNotGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("twelve minutes of speech recognition")
	}
	s := requireSpeech(t)
	m := newTestMoonshine(t, s)
	dir := t.TempDir()
	type run struct {
		heap, rss uint64
		words     int
		reports   []float64
	}
	// The model loads outside the measured runs.
	if _, err := m.Transcribe(context.Background(), promptWAV(t, s.eval, dir, prompts(t, s.eval, 5)[0].name), nil); err != nil {
		t.Fatal(err)
	}
	measure := func(minutes float64) run {
		wav := longTalk(t, s, dir, minutes*60)
		var r run
		r.heap, r.rss = memoryPeak(t, func() {
			segs, err := m.Transcribe(context.Background(), wav, func(done float64) { r.reports = append(r.reports, done) })
			if err != nil {
				t.Fatal(err)
			}
			checkTimeline(t, "long", segs, minutes*60)
			for _, s := range segs {
				r.words += len(s.Words)
			}
		})
		t.Logf("%.0f min: %d words, Go heap live peak +%.1f MiB, VmHWM %.0f MiB, %d progress reports",
			minutes, r.words, float64(r.heap)/(1<<20), float64(r.rss)/(1<<20), len(r.reports))
		return r
	}
	short, long := measure(2), measure(10)
	if long.heap > short.heap+8<<20 {
		// The heap is the process's: what another test left running can
		// add to a peak, never take from it. Measured again, the lower
		// peaks count.
		short2, long2 := measure(2), measure(10)
		short.heap, long.heap = min(short.heap, short2.heap), min(long.heap, long2.heap)
	}
	if long.words < 4*short.words {
		t.Errorf("10 min gave %d words, 2 min %d: not the whole recording heard", long.words, short.words)
	}
	if long.heap > short.heap+8<<20 {
		t.Errorf("Go heap peak %.1f MiB for 10 min against %.1f MiB for 2 min: memory grows with the length",
			float64(long.heap)/(1<<20), float64(short.heap)/(1<<20))
	}
	for i, d := range long.reports {
		if d <= 0 || d > 1 || i > 0 && d < long.reports[i-1] {
			t.Fatalf("progress reports %v do not rise within (0, 1]", long.reports)
		}
	}
	if n := len(long.reports); n < 10 || long.reports[n-1] != 1 {
		t.Errorf("%d progress reports ending at %v, want many ending at 1", n, long.reports[n-1:])
	}
}
