package moments

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
)

// filler is ordinary talk about one subject, without hooks or emotion.
var filler = []string{
	"We put the panels on the south side of the roof.",
	"The inverter sits in the garage next to the meter.",
	"Each panel is bolted to a rail on the rafters.",
	"The cables run down the wall in a conduit.",
	"After that we checked the wiring with the electrician.",
	"The installer said the job takes about two days in total.",
	"We used the standard brackets that came with the kit.",
	"Then the inspector came by to look at the connections.",
}

// planted is one strong moment: a question hook with a number, emotion
// and a bold claim.
var planted = []string{
	"Did you know that 9 out of 10 solar roofs are installed wrong?",
	"This is the biggest mistake I have ever seen, and it cost me ten thousand dollars!",
	"I was absolutely furious, it was a total disaster!",
	"Here is the one thing you must check before anyone touches your roof.",
	"Always measure the rafter spacing yourself, never trust the quote!",
}

// transcript lays sentences out at 4 s each; the planted moment starts
// at sentence plantAt.
func transcript(n, plantAt int) []videosite.Segment {
	var segs []videosite.Segment
	t := 0.0
	for i := 0; i < n; i++ {
		s := filler[i%len(filler)]
		if k := i - plantAt; k >= 0 && k < len(planted) {
			s = planted[k]
		}
		segs = append(segs, videosite.Segment{Start: t, End: t + 4, Text: s})
		t += 4
	}
	return segs
}

func overlapping(cs []Clip) bool {
	for i := range cs {
		for j := range i {
			if cs[i].Start < cs[j].End && cs[j].Start < cs[i].End {
				return true
			}
		}
	}
	return false
}

func TestPlantedMomentRanksFirst(t *testing.T) {
	segs := transcript(120, 61) // 8 minutes, the moment at 4:04
	energy := make([]float64, 2*480)
	for i := range energy {
		energy[i] = 0.4
		if i >= 2*244 && i < 2*262 {
			energy[i] = 0.9 // the speaker gets loud
		}
	}
	for _, sig := range []*Signals{nil, {Step: 0.5, Energy: energy, Peaks: []float64{250}}} {
		res := Rank(Input{Segments: segs, Signals: sig})
		if len(res.Clips) < 3 {
			t.Fatalf("%d clips, want at least 3", len(res.Clips))
		}
		top := res.Clips[0]
		if top.Start != 244 {
			t.Errorf("signals %v: top clip %.1f–%.1f %q, want the planted moment at 244 s", sig != nil, top.Start, top.End, top.Hook)
		}
		if top.HookStrength != "high" || top.ViralScore <= res.Clips[1].ViralScore {
			t.Errorf("top clip: hook %s, score %d vs %d", top.HookStrength, top.ViralScore, res.Clips[1].ViralScore)
		}
		if overlapping(res.Clips) {
			t.Errorf("clips overlap: %+v", res.Clips)
		}
		for _, c := range res.Clips {
			if d := c.End - c.Start; d < MinSeconds || d > MaxSeconds {
				t.Errorf("clip %s lasts %.1f s", c.ID, d)
			}
			if c.Title == "" || c.Hook == "" || len(c.Keywords) == 0 || len(c.PlatformFit) == 0 || c.ViralScore < 0 || c.ViralScore > 100 {
				t.Errorf("incomplete clip %+v", c)
			}
			if len([]rune(c.Title)) > 70 {
				t.Errorf("title %q is longer than 70", c.Title)
			}
		}
		if sig != nil && (top.Features.Peaks != 1 || top.Features.Energy < 0.5) {
			t.Errorf("the top clip's audio features: %+v", top.Features)
		}
	}
}

func TestRescoreKeepsIDs(t *testing.T) {
	segs := transcript(60, 20)
	first := Rank(Input{Segments: segs})
	var keep []Window
	ids := map[string]bool{}
	for _, c := range first.Clips {
		keep = append(keep, Window{Start: c.Start, End: c.End})
		ids[c.ID] = true
	}
	// Loud at the start: the ranks may change, the ids may not.
	energy := make([]float64, 480)
	for i := range 60 {
		energy[i] = 1
	}
	again := Rank(Input{Segments: segs, Keep: keep, Signals: &Signals{Step: 0.5, Energy: energy}})
	if len(again.Clips) != len(first.Clips) {
		t.Fatalf("%d clips after rescoring, %d before", len(again.Clips), len(first.Clips))
	}
	for _, c := range again.Clips {
		if !ids[c.ID] {
			t.Errorf("rescored clip %s is new", c.ID)
		}
	}
}

func TestWordTimingsPlaceSentences(t *testing.T) {
	// One caption segment with word timings holding two sentences: the
	// second starts where its first word does, not halfway.
	seg := videosite.Segment{Start: 0, End: 20, Text: "Short one. Then a long second sentence follows here.", Words: []videosite.Word{
		{Start: 0, End: 1, Text: "Short"}, {Start: 1, End: 2, Text: "one."}, {Start: 12, End: 13, Text: "Then"}, {Start: 13, End: 14, Text: "a"}, {Start: 14, End: 15, Text: "long"}, {Start: 15, End: 16, Text: "second"}, {Start: 16, End: 18, Text: "sentence"}, {Start: 18, End: 19, Text: "follows"}, {Start: 19, End: 20, Text: "here."},
	}}
	d := prepare(Input{Segments: []videosite.Segment{seg}})
	if len(d.sents) != 2 || d.sents[1].start != 12 || d.sents[0].end != 2 {
		t.Fatalf("sentences %+v", d.sents)
	}
}

func TestShortOrEmpty(t *testing.T) {
	for _, segs := range [][]videosite.Segment{nil, {{Start: 0, End: 5, Text: "Too short to clip."}}} {
		res, err := Local{}.Rank(context.Background(), Input{Segments: segs})
		if err != nil || res.Clips == nil || len(res.Clips) != 0 || res.Analysis.SuggestedStyle == "" {
			t.Errorf("%v: %+v %v", segs, res, err)
		}
	}
}

func TestPlatformFitAndIDs(t *testing.T) {
	if got := strings.Join(PlatformFit(45), ","); !strings.Contains(got, "youtube_shorts") {
		t.Errorf("45 s fits %s", got)
	}
	if got := strings.Join(PlatformFit(80), ","); strings.Contains(got, "youtube_shorts") {
		t.Errorf("80 s fits %s", got)
	}
	a, b := Window{Start: 1, End: 20}, Window{Start: 1, End: 20}
	if ClipID(a) == ClipID(Window{Start: 1, End: 21}) || ClipID(a) != ClipID(b) {
		t.Error("clip ids are not a function of the window")
	}
}

// BenchmarkRank60Min ranks a 60-minute transcript (900 sentences).
func BenchmarkRank60Min(b *testing.B) {
	segs := transcript(900, 450)
	for i := range segs {
		segs[i].Text = fmt.Sprintf("%s Part %d of the story.", segs[i].Text, i)
	}
	b.ResetTimer()
	for b.Loop() {
		if res := Rank(Input{Segments: segs}); len(res.Clips) != MaxClips {
			b.Fatalf("%d clips", len(res.Clips))
		}
	}
}

// heard is transcript with word timings at the given confidence, except
// the words of doubtful, heard with 0.2.
func heard(segs []videosite.Segment, conf float64, doubtful map[string]bool) []videosite.Segment {
	out := make([]videosite.Segment, len(segs))
	for i, s := range segs {
		fields := strings.Fields(s.Text)
		per := (s.End - s.Start) / float64(len(fields))
		s.Words = nil
		for k, f := range fields {
			c := conf
			if doubtful[strings.ToLower(strings.Trim(f, ".,!?"))] {
				c = 0.2
			}
			s.Words = append(s.Words, videosite.Word{Start: s.Start + float64(k)*per, End: s.Start + float64(k+1)*per, Text: f, Confidence: c})
		}
		out[i] = s
	}
	return out
}

func TestDoubtfulWordsAreNotBuiltOn(t *testing.T) {
	segs := transcript(40, 12)
	// The planted moment's hook words, heard with little confidence.
	doubt := map[string]bool{"mistake": true, "biggest": true, "furious": true, "disaster": true, "solar": true, "roofs": true}
	res := Rank(Input{Segments: heard(segs, 0.95, doubt), VideoTitle: "Solar roof lessons"})
	if res.Analysis.TranscriptQuality != QualityHigh {
		t.Fatalf("quality %q, want high: most words are confident", res.Analysis.TranscriptQuality)
	}
	for _, c := range res.Clips {
		for _, s := range append([]string{c.Title, c.Hook}, c.Keywords...) {
			for _, w := range strings.Fields(strings.ToLower(s)) {
				if doubt[strings.Trim(w, ".,!?…")] {
					t.Errorf("clip %q (hook %q, keywords %v) uses the doubtful %q", c.Title, c.Hook, c.Keywords, w)
				}
			}
		}
	}
}

// A recogniser's words are lower case and bare while its segment text is
// written out (pocketsphinx's sentences are capitalised, Moonshine's
// punctuated): a doubtful word that starts a sentence is doubtful still.
func TestDoubtfulWordsAreNotBuiltOnWhateverTheirCase(t *testing.T) {
	segs := heard(transcript(40, 12), 0.95, map[string]bool{"did": true, "this": true, "i": true, "here": true, "always": true})
	for _, s := range segs {
		for k := range s.Words {
			s.Words[k].Text = strings.ToLower(strings.Trim(s.Words[k].Text, ".,!?"))
		}
	}
	res := Rank(Input{Segments: segs, VideoTitle: "Solar roof lessons"})
	if len(res.Clips) == 0 {
		t.Fatal("no clips")
	}
	for _, c := range res.Clips {
		for _, s := range append([]string{c.Title, c.Hook}, c.Keywords...) {
			for _, w := range strings.Fields(strings.ToLower(s)) {
				if w = strings.Trim(w, ".,!?…"); w == "always" || w == "here" || w == "did" {
					t.Errorf("clip %q (hook %q, keywords %v) uses the doubtful %q", c.Title, c.Hook, c.Keywords, w)
				}
			}
			// The doubtful "i" is the word, not a letter of another.
			if strings.Contains(s, "furous") {
				t.Errorf("clip %q (keywords %v): the i of furious was taken for the word", c.Title, c.Keywords)
			}
		}
	}
}

func TestLowQualityTranscriptTitlesFromWhatIsKnown(t *testing.T) {
	segs := heard(transcript(40, 12), 0.3, nil)
	res := Rank(Input{Segments: segs, VideoTitle: "Solar roof lessons"})
	if res.Analysis.TranscriptQuality != QualityLow {
		t.Fatalf("quality %q, want low", res.Analysis.TranscriptQuality)
	}
	if len(res.Clips) == 0 {
		t.Fatal("no clips")
	}
	for _, c := range res.Clips {
		want := fmt.Sprintf("Solar roof lessons (%s–%s)", clock(c.Start), clock(c.End))
		if c.Title != want || c.Hook != c.Title || len(c.Keywords) != 0 || len(c.Title) > 80 {
			t.Errorf("clip %+v, want the title %q, no keywords", c, want)
		}
	}
	// The chat model is not asked to word nonsense.
	chat := &Chat{Model: nil}
	got, err := chat.Rank(context.Background(), Input{Segments: segs, VideoTitle: "Solar roof lessons"})
	if err != nil || got.Analysis.Engine != "local (transcript quality low)" {
		t.Fatalf("chat over a low-quality transcript: %v, %q", err, got.Analysis.Engine)
	}
}

func TestContentTypeNeedsEvidence(t *testing.T) {
	one := []videosite.Segment{{Start: 0, End: 20, Text: "We watched the game. The game was long and the weather was cold all day."}}
	if got := Rank(Input{Segments: one}).Analysis.ContentType; got != "story" {
		t.Errorf("one cue said twice gives %q, want the neutral story", got)
	}
	three := []videosite.Segment{{Start: 0, End: 20, Text: "The boss fight on this level is hard. Every player needs better loot before the quest."}}
	if got := Rank(Input{Segments: three}).Analysis.ContentType; got != "gaming" {
		t.Errorf("four gaming cues give %q, want gaming", got)
	}
}

// A clip none of whose sentences was heard whole is titled by the longest
// run of confident words of its most salient sentence: a phrase that was
// said, not the plain "title: keywords (time)".
func TestTitleFromAConfidentPhrase(t *testing.T) {
	segs := []videosite.Segment{
		{Start: 0, End: 8, Text: "In this mode everything you say will be repeated back to you just as soon as it is received."},
		{Start: 8.5, End: 16, Text: "The purpose of this test is to give you an audible sense of the latency between you and the machine."},
		{Start: 16.5, End: 24, Text: "You may end the test by hanging up or by pressing the pound key."},
	}
	res := Rank(Input{Segments: heard(segs, 0.95, map[string]bool{"just": true, "latency": true, "or": true}), VideoTitle: "Echo"})
	if len(res.Clips) == 0 || res.Analysis.TranscriptQuality != QualityHigh {
		t.Fatalf("ranked %+v", res)
	}
	for _, c := range res.Clips {
		runs := []string{"In this mode everything you say will be repeated back to you", "as soon as it is received",
			"The purpose of this test is to give you an audible sense of the", "between you and the machine",
			"You may end the test by hanging up", "by pressing the pound key"}
		if !slices.ContainsFunc(runs, func(r string) bool { return strings.HasPrefix(r, strings.TrimSuffix(c.Title, "…")) }) {
			t.Errorf("title %q is not a confident phrase of the talk", c.Title)
		}
	}
}

func TestIndexFoldFindsWholeWords(t *testing.T) {
	for _, c := range []struct {
		s, word string
		want    int
	}{
		{"I was furious", "i", 0},
		{"was furious, i said", "i", 13},
		{"Furious", "furious", 0},
		{"the theme", "theme", 4},
		{"there", "the", -1},
		{"Café au lait", "café", 0},
		{"", "a", -1},
	} {
		if got := indexFold(c.s, c.word); got != c.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", c.s, c.word, got, c.want)
		}
	}
}
