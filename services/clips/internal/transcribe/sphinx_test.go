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

// short is spoken in about 20 seconds; long (repeated) in about two
// minutes, so it is recognised in two chunks.
const short = "How would you install solar panels on your roof? " +
	"The weather today is sunny and warm. " +
	"My brother bought a new car last summer. " +
	"Please open the window before dinner."

const long = short + " We walked along the river until the evening. " +
	"The children played football in the park. " +
	"Coffee tastes better in the morning. " +
	"Our teacher explained the history of the city. " +
	"The train to London leaves at seven. " +
	"She wrote a long letter to her mother. " +
	"Apples and oranges grow in the garden. " +
	"The doctor said that exercise is important. " +
	"He plays the guitar every weekend. " +
	"The museum opens again next month. " +
	"Remember to water the plants. " +
	"The market sells fresh bread and cheese. " +
	"Mountains are covered with snow in winter. " +
	"The airport was busy during the holidays. " +
	"I forgot my umbrella at the office. " +
	"They built a bridge across the valley. " +
	"The kitchen smells of fresh cookies. " +
	"Birds fly south when the weather turns cold. " +
	"The library closes early on Sunday. " +
	"My grandmother grows tomatoes and potatoes. " +
	"The students finished their homework quickly. " +
	"A strong wind blew across the beach. " +
	"The restaurant serves pizza and pasta. " +
	"We painted the fence white last spring. " +
	"The hospital needs more nurses. " +
	"Her sister studies music at the university. " +
	"The baby slept through the whole night. " +
	"Farmers harvest wheat at the end of summer. " +
	"The computer stopped working this morning. " +
	"Fresh water is important for everyone."

func TestSphinxShort(t *testing.T) {
	segs, spans, took := recognise(t, short)
	t.Logf("%.1f s of speech in %v", spans[len(spans)-1].End, took)
	check(t, segs, spans)
}

// TestSphinxLong recognises two minutes of speech, which is cut into
// chunks recognised concurrently, and reports the real-time factor.
func TestSphinxLong(t *testing.T) {
	if testing.Short() {
		t.Skip("recognises minutes of speech: make test runs it")
	}
	segs, spans, took := recognise(t, long)
	audio := spans[len(spans)-1].End
	if audio < 90 {
		t.Fatalf("only %.0f s of speech: not long enough to be cut", audio)
	}
	t.Logf("%.1f s of speech in %v: real-time factor %.2f", audio, took, took.Seconds()/audio)
	check(t, segs, spans)
	if last := segs[len(segs)-1]; last.End < audio-10 {
		t.Errorf("the last segment ends at %.1f s of %.1f s", last.End, audio)
	}
}

// recognise speaks script, converts it with media.ExtractWAV and
// transcribes it with Sphinx.
func recognise(t *testing.T, script string) ([]videosite.Segment, []mediatest.Span, time.Duration) {
	t.Helper()
	mediatest.Require(t)
	dir := t.TempDir()
	speech, spans := mediatest.Speech(t, dir, script, "en-us+f2", 125)
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
	return segs, spans, time.Since(start)
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
