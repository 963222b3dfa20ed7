package transcribe

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/mediatest"
)

// testMoonshine is the package's one Moonshine engine: the first test
// that recognises loads its model (and its aligner's dictionary), every
// later one uses them as they are (they are read, never changed, and
// loading them again would only repeat the work); TestMain closes it.
var testMoonshine struct {
	once sync.Once
	m    *Moonshine
	err  error
}

func newTestMoonshine(t testing.TB, s speechSetup) *Moonshine {
	t.Helper()
	testMoonshine.once.Do(func() { testMoonshine.m, testMoonshine.err = NewMoonshine(s.model, s.library, &SphinxAligner{}) })
	if testMoonshine.err != nil {
		t.Fatal(testMoonshine.err)
	}
	return testMoonshine.m
}

// heardPrompts are the test engine's transcripts of whole prompts, by
// name: a prompt two tests recognise (TestMoonshineHearsRealSpeech and
// TestThresholdsOnRealSpeech share one) is recognised once.
var heardPrompts sync.Map // name → []videosite.Segment

// hearPrompt is the test engine's transcript of the prompt name, whose
// recording is wav.
func hearPrompt(t *testing.T, s speechSetup, name, wav string) []videosite.Segment {
	t.Helper()
	if segs, ok := heardPrompts.Load(name); ok {
		return segs.([]videosite.Segment)
	}
	segs, err := newTestMoonshine(t, s).Transcribe(context.Background(), wav, nil)
	if err != nil {
		t.Fatal(err)
	}
	heardPrompts.Store(name, segs)
	return segs
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testMoonshine.m != nil {
		testMoonshine.m.Close()
	}
	os.Exit(code)
}

// TestMoonshineHearsRealSpeech: recorded prompts, one of them 25 s long
// (split by the voice-activity detector), are written as their transcript
// says, within 10 % word error rate, in well-formed timed segments.
func TestMoonshineHearsRealSpeech(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the speech model over recorded prompts (a minute of CPU on two cores; TestAlignedWordsStartWhereTheirSpeechStarts runs it in -short): make test runs it")
	}
	s := requireSpeech(t)
	dir := t.TempDir()
	set := prompts(t, s.eval, 8)
	set = append(set[:6:6], prompt{"basic-pbx-ivr-main", ""})
	all := prompts(t, s.eval, 1)
	errs, words := 0, 0
	for _, p := range set {
		if p.text == "" {
			i := slices.IndexFunc(all, func(q prompt) bool { return q.name == p.name })
			p.text = all[i].text
		}
		wav := promptWAV(t, s.eval, dir, p.name)
		segs := hearPrompt(t, s, p.name, wav)
		checkTimeline(t, p.name, segs, duration(t, wav))
		ref, hyp := normalWords(p.text), normalWords(text(segs))
		d := mediatest.WordEdits(ref, hyp)
		errs, words = errs+d, words+len(ref)
		if d > 0 {
			t.Logf("%s: %d errors\n  said  %q\n  heard %q", p.name, d, p.text, text(segs))
		}
	}
	if wer := float64(errs) / float64(words); wer > 0.10 {
		t.Errorf("word error rate %.1f %% over %d words, want ≤ 10 %%", 100*wer, words)
	} else {
		t.Logf("word error rate %.1f %% over %d words", 100*wer, words)
	}
}

// TestAlignedWordsStartWhereTheirSpeechStarts: two recordings joined by
// 1.5 s of silence are recognised as one; the first word of the second
// starts within 150 ms of where its sound rises out of the silence, and
// no word of the first reaches into the silence.
func TestAlignedWordsStartWhereTheirSpeechStarts(t *testing.T) {
	s := requireSpeech(t)
	m := newTestMoonshine(t, s)
	dir := t.TempDir()
	set := prompts(t, s.eval, 6)
	a, b := set[1], set[len(set)/2]
	_, pa, err := readWAV(promptWAV(t, s.eval, dir, a.name))
	if err != nil {
		t.Fatal(err)
	}
	_, pb, err := readWAV(promptWAV(t, s.eval, dir, b.name))
	if err != nil {
		t.Fatal(err)
	}
	gap := make([]byte, 2*moonshineRate*3/2)
	joined := filepath.Join(dir, "joined.wav")
	if err := writeWAV(joined, moonshineRate, slices.Concat(pa, gap, pb)); err != nil {
		t.Fatal(err)
	}
	boundary := float64(len(pa)+len(gap)) / 2 / moonshineRate
	onset := boundary + speechOnset(floats(pb))
	segs, err := m.Transcribe(context.Background(), joined, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first *videosite.Word
	for _, seg := range segs {
		for i, w := range seg.Words {
			switch {
			case w.Start < boundary-1 && w.End > float64(len(pa))/2/moonshineRate+0.05:
				t.Errorf("%q of the first recording ends at %.2f s, in the silence after %.2f s", w.Text, w.End, float64(len(pa))/2/moonshineRate)
			case w.Start >= boundary-1 && first == nil:
				first = &seg.Words[i]
			}
		}
	}
	if first == nil {
		t.Fatalf("no word after %.2f s: %v", boundary, segs)
	}
	if d := math.Abs(first.Start - onset); d > 0.15 {
		t.Errorf("%q starts at %.3f s, its speech at %.3f s (%.0f ms off, want ≤ 150)", first.Text, first.Start, onset, 1000*d)
	} else {
		t.Logf("%q starts at %.3f s, its speech at %.3f s (%.0f ms)", first.Text, first.Start, onset, 1000*d)
	}
}

// speechOnset is where a recording's sound first rises above a tenth of
// its loudest 10 ms (20 dB under the peak), in seconds: the start of its
// first word, measured from the waveform alone.
func speechOnset(samples []float32) float64 {
	const frame = moonshineRate / 100
	rms := make([]float64, len(samples)/frame)
	peak := 0.0
	for i := range rms {
		var e float64
		for _, v := range samples[i*frame : (i+1)*frame] {
			e += float64(v) * float64(v)
		}
		rms[i] = math.Sqrt(e / frame)
		peak = max(peak, rms[i])
	}
	for i, r := range rms {
		if r > peak/10 {
			return float64(i) / 100
		}
	}
	return 0
}

func text(segs []videosite.Segment) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = s.Text
	}
	return strings.Join(parts, " ")
}

func duration(t testing.TB, wav string) float64 {
	t.Helper()
	rate, pcm, err := readWAV(wav)
	if err != nil {
		t.Fatal(err)
	}
	return float64(len(pcm)/2) / float64(rate)
}

// checkTimeline: segments and words in order, inside the audio, each word
// with a start before its end and a confidence in 0..1, each segment's
// text its words.
func checkTimeline(t *testing.T, name string, segs []videosite.Segment, length float64) {
	t.Helper()
	last := 0.0
	for _, s := range segs {
		texts := make([]string, len(s.Words))
		for i, w := range s.Words {
			texts[i] = w.Text
			if w.Start < last-1e-9 || w.End <= w.Start || w.End > length+1e-9 || w.Confidence <= 0 || w.Confidence > 1 {
				t.Errorf("%s: word %+v after %.3f s in %.3f s of audio", name, w, last, length)
			}
			last = w.End
		}
		if len(s.Words) == 0 || s.Text != strings.Join(texts, " ") || s.Start != s.Words[0].Start || s.End != s.Words[len(s.Words)-1].End {
			t.Errorf("%s: segment %+v", name, s)
		}
	}
}

func TestMoonshineRejectsAMissingModel(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewMoonshine(dir, filepath.Join(dir, "libonnxruntime.so.1"), nil); err == nil || !strings.Contains(err.Error(), moonshineEncoder) {
		t.Errorf("no model: %v", err)
	}
	for _, f := range []string{moonshineEncoder, moonshineDecoder, moonshineTokens} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("not a model"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewMoonshine(dir, filepath.Join(dir, "libonnxruntime.so.1"), nil); err == nil || !strings.Contains(err.Error(), "libonnxruntime") {
		t.Errorf("no library: %v", err)
	}
}

func TestWordsJoinPiecesBytesAndSkipSpecialTokens(t *testing.T) {
	vocab := []string{"<unk>", "<s>", "</s>", "▁caf", "<0xC3>", "<0xA9>", "▁Open", ",", "▁open", "s", "."}
	m := &moonshineModel{vocab: vocab}
	got := m.words([]token{{1, 1}, {3, 0.9}, {4, 0.8}, {5, 1}, {6, 0.5}, {9, 1}, {7, 0.1}, {40000, 0.2}, {8, 0.7}, {10, 0.3}})
	want := []spokenWord{{"café", 0.9 * 0.8}, {"Opens,", 0.5}, {"open.", 0.7}}
	if len(got) != len(want) {
		t.Fatalf("words %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].text != want[i].text || math.Abs(got[i].prob-want[i].prob) > 1e-9 {
			t.Errorf("word %d %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestBestSumsASpellingAcrossCase(t *testing.T) {
	vocab := []string{"<unk>", "<s>", "</s>", "▁my", "▁My", "▁by"}
	m := &moonshineModel{vocab: vocab, fold: foldClasses(vocab, 7)}
	l := func(p float64) float32 { return float32(math.Log(p)) }
	tok := m.best([]float32{l(0.01), l(0.01), l(0.01), l(0.45), l(0.4), l(0.1), l(0.02)}, []int64{1, 1, 7})
	if tok.id != 3 || math.Abs(tok.prob-0.85) > 1e-6 {
		t.Errorf("best %+v, want ▁my with 0.85 (▁my and ▁My)", tok)
	}
}
