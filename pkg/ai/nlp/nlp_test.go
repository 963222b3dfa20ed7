package nlp

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// threeTopics reads the test captions: three topics (sourdough, a bicycle
// chain, Roman aqueducts), one segment of 4 s per line, and where topics
// two and three begin.
func threeTopics(t testing.TB) ([]Timed, []int) {
	t.Helper()
	raw, err := os.ReadFile("testdata/three_topics.txt")
	if err != nil {
		t.Fatal(err)
	}
	var segs []Timed
	var bounds []int
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.TrimSpace(line) == "":
			if len(segs) > 0 {
				bounds = append(bounds, len(segs))
			}
		default:
			s := float64(len(segs)) * 4
			segs = append(segs, Timed{Start: s, End: s + 4, Text: line})
		}
	}
	if n := len(bounds); n > 0 && bounds[n-1] == len(segs) {
		bounds = bounds[:n-1] // the blank line at the end
	}
	return segs, bounds
}

func joined(segs []Timed) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text + " ")
	}
	return b.String()
}

func TestSegmentFindsTheTopics(t *testing.T) {
	segs, bounds := threeTopics(t)
	secs := Segment(segs, 10)
	if len(secs) != 3 {
		t.Errorf("%d sections, want 3: %+v", len(secs), starts(secs))
	}
	for i, b := range bounds[:min(len(bounds), len(secs)-1)] {
		if d := secs[i+1].FirstSegment - b; d < -1 || d > 1 {
			t.Errorf("boundary %d at segment %d, true %d", i, secs[i+1].FirstSegment, b)
		}
	}
	want := []string{"starter", "chain", "aqueduct"}
	for i, s := range secs {
		if !strings.Contains(strings.ToLower(phraseText(s.Phrases)), want[i]) {
			t.Errorf("section %d phrases %v lack %q", i, s.Phrases, want[i])
		}
	}
}

func starts(secs []Section) []int {
	var out []int
	for _, s := range secs {
		out = append(out, s.FirstSegment)
	}
	return out
}

func phraseText(ps []Phrase) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text + "; ")
	}
	return b.String()
}

func TestKeyPhrasesCoverEveryTopic(t *testing.T) {
	segs, _ := threeTopics(t)
	ps := phraseText(KeyPhrases(joined(segs), 20))
	for _, w := range []string{"starter", "chain", "aqueduct"} {
		if !strings.Contains(strings.ToLower(ps), w) {
			t.Errorf("key phrases %q lack %q", ps, w)
		}
	}
	for _, p := range KeyPhrases(joined(segs), 20) {
		all := true
		for _, w := range Tokens(p.Text) {
			all = all && IsStopword(w)
		}
		if all {
			t.Errorf("stopword phrase %q", p.Text)
		}
	}
}

func TestSentences(t *testing.T) {
	for in, want := range map[string][]string{
		"Dr. Smith paid 3.5 dollars. Then he left!":           {"Dr. Smith paid 3.5 dollars.", "Then he left!"},
		"Wait... what? The U.S. team won, e.g. in 2014. Yes.": {"Wait... what?", "The U.S. team won, e.g. in 2014.", "Yes."},
		"line one\nline two":                                  {"line one", "line two"},
		"He said “go.” She went.":                             {"He said “go.”", "She went."},
	} {
		var got []string
		for _, s := range Sentences(in) {
			got = append(got, s.Text)
			if strings.TrimSpace(in[s.Start:s.End]) != s.Text {
				t.Errorf("offsets of %q", s.Text)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("Sentences(%q) = %q, want %q", in, got, want)
		}
	}
	runOn := strings.Repeat("we keep talking without any punctuation at all so the captions run on and on ", 8)
	for _, s := range Sentences(runOn) {
		if n := len(strings.Fields(s.Text)); n > runOnWords {
			t.Errorf("run-on piece of %d words", n)
		}
	}
}

func TestDetectType(t *testing.T) {
	for want, text := range map[ContentType]string{
		Tutorial:  "In this tutorial I show you how to install the shelf. First measure the wall, then make sure the drill is set up. Next step: use a level tool.",
		Review:    "My honest review: the pros are the battery and the performance, the cons are the price. Is it worth it compared to last year? Rating: eight out of ten, I recommend it.",
		Interview: "Welcome to the show, my guest today is a chef. Thanks for having me. So tell me, what made you start? Great question. What was your journey like?",
		Gaming:    "This boss fight on level nine is brutal, the game gives you no loot until the player beats the quest. Ranked match next, grab the controller.",
		List:      "Coming in at number five is the lamp. Number four, the chair. Number three is the desk. Number two the rug, and number one, the top 5 pick: the bed.",
	} {
		if got := DetectType(text); got[0].Type != want {
			t.Errorf("%s text detected as %v", want, got[:3])
		}
	}
}

func TestHook(t *testing.T) {
	strong := Hook("Did you know 90% of people get this wrong?")
	if !strong.Question || !strong.Number || !strong.Curiosity || strong.Score < 0.6 {
		t.Errorf("strong hook %+v", strong)
	}
	if weak := Hook("and then he said that it was fine"); weak.Score > 0.2 {
		t.Errorf("weak hook %+v", weak)
	}
}

func TestSummary(t *testing.T) {
	segs, _ := threeTopics(t)
	text := joined(segs)
	sum := Summary(text, 3)
	if len(sum) != 3 || sum[0].Start >= sum[1].Start || sum[1].Start >= sum[2].Start {
		t.Fatalf("summary %+v", sum)
	}
	for _, s := range sum {
		if !strings.Contains(text, s.Text) {
			t.Errorf("%q is not from the text", s.Text)
		}
	}
}

func TestStem(t *testing.T) {
	for _, g := range [][]string{{"edit", "edits", "edited", "editing"}, {"chain", "chains"}, {"story", "stories"}} {
		for _, w := range g[1:] {
			if Stem(w) != Stem(g[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q", w, Stem(w), g[0], Stem(g[0]))
			}
		}
	}
}

func FuzzSentences(f *testing.F) {
	f.Add("Dr. Who? Yes... 3.5 times! \xff\xfe end")
	f.Add("\v0 \u00a0Hi.\u2028There")
	f.Fuzz(func(t *testing.T, s string) {
		for _, x := range Sentences(s) {
			if x.Start < 0 || x.End > len(s) || x.Start > x.End || strings.TrimSpace(s[x.Start:x.End]) != x.Text {
				t.Fatalf("bad sentence %+v of %q", x, s)
			}
		}
	})
}

// BenchmarkAnalyze60Min measures the measurements of a 60-minute
// transcript (~9,000 words, ~900 segments).
func BenchmarkAnalyze60Min(b *testing.B) {
	segs, _ := threeTopics(b)
	var long []Timed
	for pass := 0; len(long) < 900; pass++ {
		for _, s := range segs {
			st := float64(len(long)) * 4
			long = append(long, Timed{Start: st, End: st + 4, Text: s.Text + " Part " + string(rune('A'+pass%26)) + "."})
		}
	}
	text := joined(long)
	b.Logf("%d words", len(strings.Fields(text)))
	for b.Loop() {
		Sentences(text)
		KeyPhrases(text, 20)
		Keywords(text, 30)
		Summary(text, 5)
		Segment(long, 10)
		DetectType(text)
	}
}

func TestEmotion(t *testing.T) {
	calm := Emotion("We measure the flour and the water and mix them in a bowl.")
	hot := Emotion("This is absolutely insane! The worst disaster I have ever seen, I was terrified!")
	if !(hot > calm+0.3) || hot > 1 || calm < 0 {
		t.Errorf("emotion calm %v hot %v", calm, hot)
	}
}
