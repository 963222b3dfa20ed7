package transcribe

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/mediatest"
)

var evalEvery = flag.Int("speech.every", 4, "BenchmarkRecognisers: every how many of Asterisk's prompts of 5 words or more are in the recording")

// BenchmarkRecognisers scores the old and the new default recogniser side
// by side on real speech: Asterisk's recorded prompts (scripts/deps.sh
// speech) of five words or more, every -speech.every-th in name order,
// joined with a second of silence into one recording, as a source would
// be. Each engine transcribes it once through its production path
// (pocketsphinx: 60 s chunks two at a time; Moonshine: voice-activity
// segments, GOMAXPROCS at a time, words aligned by pocketsphinx) and is
// reported with:
//
//   - wer: word error rate against the prompts' transcript (lower case,
//     punctuation gone, numbers spelt out on both sides);
//
//   - rtf: wall time over the recording's length (Moonshine's one-off
//     model load is reported apart, as load_s); cpu_rtf_2cores: the CPU
//     time of this process and its children (pocketsphinx) over two cores
//     and the length, the real-time factor on two otherwise idle cores —
//     what the wall time shows only on a quiet machine;
//
//   - onset_p50_ms, onset_p90_ms, onset_le150ms: for each prompt, how far
//     the first word recognised after the prompt's start is from where
//     its sound first rises 20 dB under the prompt's loudest 10 ms
//     (speechOnset), and the share of prompts within 150 ms; also for
//     Moonshine's words spread by length without the aligner (spread_*),
//     which is what the aligner is measured against;
//
//   - with -speech.silero: Moonshine on Silero VAD's segments instead of
//     the energy detector's (silero_*), the measure of which splits better;
//
//   - conf090: the share of words heard with confidence 0.9 or more
//     (moments.MinConfidence: what titles may use).
//
//     go test -run '^$' -bench Recognisers -benchtime 1x ./internal/transcribe
func BenchmarkRecognisers(b *testing.B) {
	s := requireSpeech(b)
	dir := b.TempDir()
	var set []prompt
	for i, p := range prompts(b, s.eval, 5) {
		if i%*evalEvery == 0 {
			set = append(set, p)
		}
	}
	var pcm []byte
	var ref []string
	onsets := make([]float64, len(set))
	starts := make([]float64, len(set))
	gap := make([]byte, 2*moonshineRate)
	for i, p := range set {
		_, one, err := readWAV(promptWAV(b, s.eval, dir, p.name))
		if err != nil {
			b.Fatal(err)
		}
		pcm = append(pcm, gap...)
		starts[i] = float64(len(pcm)/2) / moonshineRate
		onsets[i] = starts[i] + speechOnset(floats(one))
		pcm = append(pcm, one...)
		ref = append(ref, normalWords(p.text)...)
	}
	pcm = append(pcm, gap...)
	wav := filepath.Join(dir, "prompts.wav")
	if err := writeWAV(wav, moonshineRate, pcm); err != nil {
		b.Fatal(err)
	}
	length := float64(len(pcm)/2) / moonshineRate
	b.Logf("%d prompts, %d words, %.1f s", len(set), len(ref), length)

	moon := newTestMoonshine(b, s)
	t0 := time.Now()
	if _, err := moon.model.get(moon.Dir, moon.Library); err != nil {
		b.Fatal(err)
	}
	// ResetTimer drops reported metrics: they are reported at the end.
	metrics := map[string]float64{"load_s": time.Since(t0).Seconds()}
	spread := &Moonshine{Dir: moon.Dir, Library: moon.Library}
	spread.model = moonshineCache{model: moon.model.model}
	spread.model.once.Do(func() {})

	engines := []struct {
		name string
		eng  Engine
	}{{"sphinx", &Sphinx{}}, {"moonshine", moon}, {"spread", spread}}
	if *sileroPath != "" {
		silero := &Moonshine{Dir: moon.Dir, Library: moon.Library, Aligner: moon.Aligner, split: sileroSplit(b, *sileroPath)}
		silero.model = moonshineCache{model: moon.model.model}
		silero.model.once.Do(func() {})
		engines = append(engines, struct {
			name string
			eng  Engine
		}{"silero", silero})
	}
	for _, e := range engines {
		b.ResetTimer()
		var segs []videosite.Segment
		var took, cpu time.Duration
		for range b.N {
			t0, c0 := time.Now(), cpuTime()
			var err error
			if segs, err = e.eng.Transcribe(context.Background(), wav, nil); err != nil {
				b.Fatal(err)
			}
			took, cpu = time.Since(t0), cpuTime()-c0
		}
		b.StopTimer()
		var words []videosite.Word
		for _, seg := range segs {
			words = append(words, seg.Words...)
		}
		if e.name != "spread" {
			hyp := normalWords(text(segs))
			metrics["wer_"+e.name+"_%"] = 100 * float64(mediatest.WordEdits(ref, hyp)) / float64(len(ref))
			metrics["rtf_"+e.name] = took.Seconds() / length
			metrics["cpu_rtf_2cores_"+e.name] = cpu.Seconds() / 2 / length
			sure := 0
			for _, w := range words {
				if w.Confidence >= 0.9 {
					sure++
				}
			}
			metrics["conf090_"+e.name+"_%"] = 100 * float64(sure) / float64(max(1, len(words)))
		}
		p50, p90, within := onsetErrors(words, starts, onsets)
		metrics["onset_p50_ms_"+e.name] = p50
		metrics["onset_p90_ms_"+e.name] = p90
		metrics["onset_le150ms_"+e.name+"_%"] = within
	}
	for unit, v := range metrics {
		b.ReportMetric(v, unit)
	}
}

// cpuTime is the user and system time of this process and of its
// children that have ended.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	var d time.Duration
	for _, t := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		d += time.Duration(t.Nano())
	}
	return d
}

// onsetErrors measures, for each prompt starting at starts[i] (its
// silence before), the first word starting after that against the
// prompt's speech onset: median and 90th percentile in ms, and the share
// within 150 ms in %. A prompt with no word is counted as missed.
func onsetErrors(words []videosite.Word, starts, onsets []float64) (p50, p90, within float64) {
	errs := make([]float64, len(starts))
	ok := 0
	for i, from := range starts {
		to := math.Inf(1)
		if i+1 < len(starts) {
			to = starts[i+1]
		}
		errs[i] = math.Inf(1)
		for _, w := range words {
			if w.Start >= from-0.5 && w.Start < to-0.5 {
				errs[i] = 1000 * math.Abs(w.Start-onsets[i])
				break
			}
		}
		if errs[i] <= 150 {
			ok++
		}
	}
	slices.Sort(errs)
	return errs[len(errs)/2], errs[len(errs)*9/10], 100 * float64(ok) / float64(len(errs))
}

func TestOnsetErrors(t *testing.T) {
	words := []videosite.Word{{Start: 1.1}, {Start: 1.5}, {Start: 5.3}, {Start: 9.0}}
	p50, p90, within := onsetErrors(words, []float64{1, 5, 8.8}, []float64{1.2, 5.1, 10})
	if got := fmt.Sprintf("%.0f %.0f %.0f", p50, p90, within); got != "200 1000 33" {
		t.Errorf("onset errors %s, want 200 1000 33 (100, 200 and 1000 ms)", got)
	}
}
