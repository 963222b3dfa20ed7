package transcribe_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/transcribe"
)

// short is spoken in about 20 seconds; later in about 20 more.
const short = "How would you install solar panels on your roof? " +
	"The weather today is sunny and warm. " +
	"My brother bought a new car last summer. " +
	"Please open the window before dinner."

const later = "We walked along the river until the evening. " +
	"The children played football in the park. " +
	"Coffee tastes better in the morning. " +
	"Our teacher explained the history of the city."

func TestSphinxShort(t *testing.T) {
	segs, spans, took := recognise(t, short)
	t.Logf("%.1f s of speech in %v", spans[len(spans)-1].End, took)
	check(t, segs, spans)
}

// TestSphinxLong recognises audio longer than a chunk (a minute), which is
// cut into chunks recognised concurrently, and reports the real-time
// factor: short, a minute of silence, then later, so the cut falls in the
// silence and each chunk holds speech. Words are found in their own
// sentences and the last segment ends near the end of the audio, so the
// second chunk's words are put back on the whole timeline. (Silence costs
// pocketsphinx next to nothing: two minutes of speech proved the same at
// three times the recognition.)
func TestSphinxLong(t *testing.T) {
	if testing.Short() {
		t.Skip("recognises a minute and a half of audio: make test runs it")
	}
	mediatest.Require(t)
	a, aSpans := mediatest.Speech(t, t.TempDir(), short, "en-us+f2", 125)
	b, bSpans := mediatest.Speech(t, t.TempDir(), later, "en-us+f2", 125)
	dir := t.TempDir()
	speech, spans := mediatest.Apart(t, dir, a, aSpans, b, bSpans, 70)
	audio := spans[len(spans)-1].End
	if audio < 90 {
		t.Fatalf("only %.0f s of audio: not long enough to be cut", audio)
	}
	segs, took := transcribeSpeech(t, dir, speech)
	t.Logf("%.1f s of audio in %v: real-time factor %.2f", audio, took, took.Seconds()/audio)
	check(t, segs, spans)
	if last := segs[len(segs)-1]; last.End < audio-10 {
		t.Errorf("the last segment ends at %.1f s of %.1f s", last.End, audio)
	}
}

// recognise speaks script and transcribes it (transcribeSpeech).
func recognise(t *testing.T, script string) ([]videosite.Segment, []mediatest.Span, time.Duration) {
	t.Helper()
	mediatest.Require(t)
	dir := t.TempDir()
	speech, spans := mediatest.Speech(t, dir, script, "en-us+f2", 125)
	segs, took := transcribeSpeech(t, dir, speech)
	return segs, spans, took
}

// transcribeSpeech converts speech with media.ExtractWAV into dir and
// transcribes it with Sphinx.
func transcribeSpeech(t *testing.T, dir, speech string) ([]videosite.Segment, time.Duration) {
	t.Helper()
	wav := filepath.Join(dir, "16k.wav")
	if err := (media.Tools{}).ExtractWAV(context.Background(), speech, wav); err != nil {
		t.Fatal(err)
	}
	eng, err := transcribe.New("pocketsphinx", "", "", "", 0, transcribe.Local{}, nil)
	if err != nil || eng.Name() != "pocketsphinx" {
		t.Fatal(eng, err)
	}
	start := time.Now()
	segs, err := eng.Transcribe(context.Background(), wav, nil)
	if err != nil {
		t.Fatal(err)
	}
	return segs, time.Since(start)
}

// check requires that at least 30 % of the script's content words are
// recognised, each inside the span of a sentence that has it (± 1 s),
// and that segments and words are well formed and in time order.
func check(t *testing.T, segs []videosite.Segment, spans []mediatest.Span) {
	t.Helper()
	type at struct{ start, end float64 }
	heard := map[string][]at{}
	prev := -1.0
	for _, s := range segs {
		if s.Text == "" || len(s.Words) == 0 || s.Start != s.Words[0].Start || s.End != s.Words[len(s.Words)-1].End {
			t.Errorf("segment %+v", s)
		}
		for _, w := range s.Words {
			if w.Start < prev || w.End < w.Start || strings.ContainsAny(w.Text, "<>[]()+") {
				t.Errorf("word %+v after %.2f", w, prev)
			}
			prev = w.Start
			heard[w.Text] = append(heard[w.Text], at{w.Start, w.End})
		}
	}
	want, got := 0, 0
	for _, sp := range spans {
		for _, word := range nlp.Tokens(sp.Text) {
			if len(word) < 3 || nlp.IsStopword(word) {
				continue
			}
			want++
			if slices.ContainsFunc(heard[word], func(a at) bool { return a.start >= sp.Start-1 && a.end <= sp.End+1 }) {
				got++
			}
		}
	}
	t.Logf("%d of %d content words recognised in their sentences", got, want)
	if float64(got) < 0.3*float64(want) {
		t.Errorf("only %d of %d content words; transcript: %v", got, want, texts(segs))
	}
}

func texts(segs []videosite.Segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text + " ")
	}
	return b.String()
}

func isUnavailable(err error) bool { return errors.Is(err, transcribe.ErrUnavailable) }

func TestSphinxMissing(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	speech, _ := mediatest.Speech(t, dir, "Hello there.", "en-us", 160)
	wav := filepath.Join(dir, "16k.wav")
	if err := (media.Tools{}).ExtractWAV(context.Background(), speech, wav); err != nil {
		t.Fatal(err)
	}
	_, err := (&transcribe.Sphinx{Bin: "/nonexistent/pocketsphinx"}).Transcribe(context.Background(), wav, nil)
	if !isUnavailable(err) {
		t.Errorf("missing binary: %v, want ErrUnavailable", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&transcribe.Sphinx{}).Transcribe(ctx, wav, nil); err == nil || isUnavailable(err) {
		t.Errorf("cancelled: %v, want the context's error", err)
	}
	if _, err := (&transcribe.Sphinx{}).Transcribe(context.Background(), speech+".missing", nil); err == nil {
		t.Error("a missing file transcribed")
	}
}
