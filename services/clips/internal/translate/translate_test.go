package translate

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/services/clips/internal/captions"
)

// timed are words 0.3 s long, 0.05 s apart, with a pause of gap seconds
// after the words whose index is in pauses.
func timed(text string, pauses map[int]float64) []captions.Word {
	var out []captions.Word
	at := 0.0
	for i, w := range strings.Fields(text) {
		out = append(out, captions.Word{Start: at, End: at + 0.3, Text: w})
		at += 0.35 + pauses[i]
	}
	return out
}

func TestSentencesByPunctuationPauseAndLength(t *testing.T) {
	ws := timed("Pay yourself first. Then save ten percent! what about rent", nil)
	got := Sentences(ws)
	want := []string{"Pay yourself first.", "Then save ten percent!", "what about rent"}
	if len(got) != len(want) {
		t.Fatalf("sentences %+v", got)
	}
	for i, s := range got {
		if s.Text != want[i] || s.Start != ws[s.First].Start || s.End != ws[s.Last].End {
			t.Errorf("sentence %d: %+v, want %q over its words", i, s, want[i])
		}
	}
	// No punctuation (a sidecar's captions): the pauses end sentences.
	ws = timed("we opened the box and found nothing the courier was late", map[int]float64{6: 0.4})
	if got := Sentences(ws); len(got) != 2 || got[0].Text != "we opened the box and found nothing" || got[1].First != 7 {
		t.Errorf("by pause: %+v", got)
	}
	// A pause shorter than PauseSeconds does not.
	ws = timed("one two three four", map[int]float64{1: PauseSeconds - 0.1})
	if got := Sentences(ws); len(got) != 1 {
		t.Errorf("a short pause split: %+v", got)
	}
	ws = timed(strings.Repeat("word ", MaxWords*2+3), nil)
	got = Sentences(ws)
	if len(got) != 3 || got[0].Last-got[0].First+1 != MaxWords || got[2].Last != len(ws)-1 {
		t.Errorf("long run: %d sentences %+v", len(got), got)
	}
}

func TestProtectedNumbersAndNames(t *testing.T) {
	got := Protected(strings.Fields(`Maria said 25 people, not "Apple" — I met Juan in 2024. Then we left`))
	want := []string{"25", "Apple", "Juan", "2024"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("protected %q, want %q (the first word of each sentence and I are no names)", got, want)
	}
}

func TestRetimeSpreadsBySentenceLength(t *testing.T) {
	s := Sentence{Start: 10, End: 14}
	got := Retime(s, "Paga tú primero")
	// "Paga "=5, "tú "=3, "primero "=8 of 16.
	want := []captions.Word{{Start: 10, End: 11.25, Text: "Paga"}, {Start: 11.25, End: 12, Text: "tú"}, {Start: 12, End: 14, Text: "primero", Break: true}}
	for i := range want {
		if math.Abs(got[i].Start-want[i].Start) > 1e-9 || math.Abs(got[i].End-want[i].End) > 1e-9 || got[i].Text != want[i].Text || got[i].Break != want[i].Break {
			t.Errorf("word %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Two sentences without punctuation, 0.1 s apart: two caption lines.
	two := append(Retime(Sentence{Start: 0, End: 1}, "uno dos"), Retime(Sentence{Start: 1.1, End: 2}, "tres cuatro")...)
	if lines := captions.Lines(two, 3); len(lines) != 2 || len(lines[0]) != 2 {
		t.Errorf("lines %+v", lines)
	}
	if Retime(s, "  ") != nil {
		t.Error("an empty translation has words")
	}
}

func TestUnstarKeepsTheSourceWord(t *testing.T) {
	for in, want := range map[string]string{
		"El *render toma 2 minutos":  "El render toma 2 minutos",
		"*payday, *render.":          "payday, render.",
		"(*Hlq0z) #vinieron @rápido": "(Hlq0z) vinieron rápido",
		"5 * 3 = 15":                 "5 * 3 = 15",
	} {
		if got := Unstar(in); got != want {
			t.Errorf("Unstar(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskAndUnmask(t *testing.T) {
	s := Sentence{Text: "Maria met Apple, in 2024 and Apple.", Keep: []string{"Apple", "2024"}}
	ph := func(k int) string { return "Q" + string(rune('0'+k)) + "z" }
	if got := Mask(s, ph); got != "Maria met Q0z, in Q1z and Q0z." {
		t.Fatalf("mask %q", got)
	}
	if got := Unmask("Maria cumplió Q0z, en Q1z y Q0z.", s, ph); got != "Maria cumplió Apple, en 2024 y Apple." {
		t.Errorf("unmask %q", got)
	}
}

// engine is a test engine: upper-cases, or fails.
type engine struct {
	name    string
	targets []string
	err     error
	calls   int
}

func (e *engine) Name() string                 { return e.name }
func (e *engine) Quality() string              { return Draft }
func (e *engine) Targets(from string) []string { return e.targets }
func (e *engine) Translate(_ context.Context, _, _ string, ss []Sentence) ([]string, error) {
	e.calls++
	if e.err != nil {
		return nil, e.err
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s.Text)
	}
	return out, nil
}

func TestCaptionsBySentenceWithFallback(t *testing.T) {
	broken := &engine{name: "provider", targets: []string{"es", "fr"}, err: errors.New("unavailable")}
	offline := &engine{name: "apertium", targets: []string{"es", "ca"}}
	ts := Translators{broken, offline}
	if got := ts.Supported("en"); !reflect.DeepEqual(got, []string{"ca", "en", "es", "fr"}) {
		t.Errorf("supported %v", got)
	}
	ws := timed("Pay yourself first. Move ten percent", nil)
	res, err := ts.Captions(context.Background(), "en", "es", ws, "Pay yourself first")
	if err != nil {
		t.Fatal(err)
	}
	if res.Engine != "apertium" || res.Language != "es" || res.Quality != Draft || !strings.Contains(res.Fallback, "provider: unavailable") {
		t.Errorf("translation %+v", res)
	}
	if res.Hook != "PAY YOURSELF FIRST" || len(res.Words) != 6 || res.Words[3].Start != ws[3].Start || res.Words[5].End != ws[5].End {
		t.Errorf("result %+v", res)
	}
	if _, err := ts.Captions(context.Background(), "en", "de", ws, ""); !errors.Is(err, ErrUnsupported) {
		t.Errorf("en→de: %v", err)
	}
	same, err := ts.Captions(context.Background(), "en", "en", ws, "")
	if err != nil || !reflect.DeepEqual(same.Words, ws) || same.Engine != "" {
		t.Errorf("en→en: %+v %v", same, err)
	}
	if _, err := ts.Captions(context.Background(), "en", "fr", ws, ""); err == nil || !strings.Contains(err.Error(), "every engine failed") {
		t.Errorf("only the broken engine: %v", err)
	}
}
