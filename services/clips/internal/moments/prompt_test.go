package moments_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/wordnet"
)

var (
	wnOnce sync.Once
	wnDB   *wordnet.DB
	wnErr  error
)

// lexicon is the real WordNet database (scripts/deps.sh unit-tools
// installs Debian's wordnet-base).
func lexicon(t testing.TB) *wordnet.DB {
	t.Helper()
	wnOnce.Do(func() {
		dir := os.Getenv("HOOKLINE_WORDNET_DIR")
		if dir == "" {
			dir = wordnet.DefaultDir
		}
		wnDB, wnErr = wordnet.Open(dir)
	})
	if wnErr != nil {
		t.Fatalf("WordNet: %v (scripts/deps.sh unit-tools installs wordnet-base)", wnErr)
	}
	return wnDB
}

// The three topics of a talk. Cars is said plainly; the other two open
// with hooks and feeling, so that without a prompt they rank first.
var (
	sleepTopic = []string{
		"Why do we wake up tired after eight hours in bed?",
		"I was shocked when I learned the answer, honestly it changed my life!",
		"Your body cycles through light and deep sleep every ninety minutes.",
		"Waking in the middle of a deep phase is what leaves you groggy.",
		"So set your alarm to the end of a cycle, not the middle of one.",
		"A dark, cool bedroom makes the deep phases longer.",
		"Never look at your phone in bed, the light keeps you awake!",
		"That one change gave me the best mornings I have ever had.",
	}
	carsTopic = []string{
		"Next we drove the car to the garage for its service.",
		"The mechanic checked the car's brakes and the tyres.",
		"He changed the oil in the car and replaced the filter.",
		"The car also needed new wiper blades for the winter.",
		"We parked the car outside while the paperwork was done.",
		"The car was ready by the afternoon and we drove home.",
		"The service of the car took about four hours in total.",
		"After that the car went back into the driveway.",
	}
	cookingTopic = []string{
		"What is the secret of a perfect omelette?",
		"I am absolutely in love with this trick, it is amazing!",
		"Whisk the eggs with a pinch of salt until they foam.",
		"Heat the pan with butter until it stops sizzling.",
		"Pour the eggs in and stir gently with a spatula.",
		"Fold it over while the middle is still soft.",
		"You will never go back to dry eggs again, I promise!",
		"Serve it at once with a little chopped chives.",
	}
)

// talk lays sentences out at 4 s each.
func talk(parts ...[]string) []videosite.Segment {
	var segs []videosite.Segment
	t := 0.0
	for _, p := range parts {
		for _, s := range p {
			segs = append(segs, videosite.Segment{Start: t, End: t + 4, Text: s})
			t += 4
		}
	}
	return segs
}

func rank(t *testing.T, in moments.Input) moments.Result {
	t.Helper()
	res, err := moments.Local{Lexicon: lexicon(t)}.Rank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A prompt that names a topic by a word the talk never says ranks that
// topic's moment first, through WordNet's synonyms.
func TestPromptSynonymRanksTopicFirst(t *testing.T) {
	segs := talk(sleepTopic, carsTopic, cookingTopic)
	carsFrom, carsTo := 32.0, 64.0
	inCars := func(c moments.Clip) bool { m := (c.Start + c.End) / 2; return m >= carsFrom && m <= carsTo }
	plain := rank(t, moments.Input{Segments: segs})
	if len(plain.Clips) == 0 || inCars(plain.Clips[0]) {
		t.Fatalf("without a prompt the car moment must not lead already (the test proves nothing): %+v", plain.Clips)
	}
	for _, c := range plain.Clips {
		if c.Match != nil {
			t.Errorf("clip %s has a match without a prompt", c.ID)
		}
	}
	const prompt = "the part where they talk about the automobile"
	if strings.Contains(strings.ToLower(fmt.Sprint(segs)), "automobile") {
		t.Fatal("the talk says the prompt's word; the test must use a synonym")
	}
	res := rank(t, moments.Input{Segments: segs, Prompt: prompt})
	top := res.Clips[0]
	if !inCars(top) || top.Match == nil || !top.Match.Matched {
		t.Fatalf("top clip %.0f–%.0f %q match %+v, want the car moment (%.0f–%.0f s)", top.Start, top.End, top.Title, top.Match, carsFrom, carsTo)
	}
	if !strings.Contains(strings.Join(top.Match.Terms, " "), "car") || !strings.Contains(said(segs, top), strings.TrimSuffix(top.Match.Quote, "…")) {
		t.Errorf("match %+v: want the term car and a quote from the clip", top.Match)
	}
	if res.Analysis.Prompt != prompt {
		t.Errorf("analysis prompt %q", res.Analysis.Prompt)
	}
	// Matches first, then the rest, each with a match.
	seenUnmatched := false
	for _, c := range res.Clips {
		if c.Match == nil {
			t.Fatalf("clip %s has no match with a prompt", c.ID)
		}
		if c.Match.Matched && seenUnmatched {
			t.Errorf("a match after a clip that does not match: %+v", res.Clips)
		}
		seenUnmatched = seenUnmatched || !c.Match.Matched
	}
	// Without WordNet the synonym finds nothing.
	bare := moments.Rank(moments.Input{Segments: segs, Prompt: prompt})
	if bare.Clips[0].Match.Matched {
		t.Errorf("without a lexicon, %q matched %+v", prompt, bare.Clips[0].Match)
	}
}

// A prompt that matches nothing leaves the usual ranking, every clip
// marked matched: false.
func TestPromptMatchingNothing(t *testing.T) {
	segs := talk(sleepTopic, carsTopic, cookingTopic)
	plain := rank(t, moments.Input{Segments: segs})
	res := rank(t, moments.Input{Segments: segs, Prompt: "volcanic eruptions in Iceland"})
	if len(res.Clips) != len(plain.Clips) {
		t.Fatalf("%d clips, %d without the prompt", len(res.Clips), len(plain.Clips))
	}
	for k, c := range res.Clips {
		if c.Match == nil || c.Match.Matched || len(c.Match.Terms) != 0 {
			t.Errorf("clip %s: match %+v, want matched false", c.ID, c.Match)
		}
		if p := plain.Clips[k]; c.ID != p.ID || c.ViralScore != p.ViralScore {
			t.Errorf("clip %d: %s (%d), without the prompt %s (%d)", k, c.ID, c.ViralScore, p.ID, p.ViralScore)
		}
	}
}

// Re-ranking the kept clips with a prompt adds the matching moment the
// kept clips miss, first.
func TestPromptRerankAddsMatches(t *testing.T) {
	segs := talk(sleepTopic, carsTopic, cookingTopic)
	plain := rank(t, moments.Input{Segments: segs})
	var keep []moments.Window
	ids := map[string]bool{}
	for _, c := range plain.Clips {
		if m := (c.Start + c.End) / 2; m < 32 || m > 64 {
			keep = append(keep, moments.Window{Start: c.Start, End: c.End})
			ids[c.ID] = true
		}
	}
	res := rank(t, moments.Input{Segments: segs, Keep: keep, Prompt: "automobiles"})
	if top := res.Clips[0]; !top.Match.Matched || ids[top.ID] {
		t.Fatalf("top clip %+v, want a new matching clip", top)
	}
	for id := range ids {
		found := false
		for _, c := range res.Clips {
			found = found || c.ID == id
		}
		if !found {
			t.Errorf("kept clip %s is gone", id)
		}
	}
}

// said is the transcript's text at c's times.
func said(segs []videosite.Segment, c moments.Clip) string {
	var b []string
	for _, s := range segs {
		if s.End > c.Start && s.Start < c.End {
			b = append(b, s.Text)
		}
	}
	return strings.Join(b, " ")
}

// tenTalks are ten different talks: each topic's sentences between hooks,
// dangling openings and an unfinished last sentence, with and without
// measured signals.
func tenTalks() [][]videosite.Segment {
	topics := [][]string{sleepTopic, carsTopic, cookingTopic,
		{"How much should you save every month?", "Pay yourself first and move ten percent to savings on payday.", "And then the rest of the money is yours to spend.", "A budget is a plan, not a punishment.", "I was terrified of my debt, it kept me awake at night!", "Track every purchase for one month and you will be surprised.", "Most people spend a third of their income on housing.", "The emergency fund comes before any investing"},
		{"Did you know that octopuses have three hearts?", "Two of them pump blood through the gills.", "The third one stops when the octopus swims.", "That is why they prefer crawling to swimming.", "Their blood is blue because it carries copper.", "It is one of the strangest animals in the ocean!", "They can also change colour in a fraction of a second.", "Scientists still do not know how they see colour"},
		{"Here is the biggest mistake new runners make.", "They run every session far too fast.", "Most of your training should feel easy and slow.", "Your heart gets stronger at an easy pace.", "Then once a week you run hard intervals.", "I hated slow running at first, it felt pointless.", "But my race times dropped by two minutes.", "Rest days matter as much as the runs themselves."},
		{"What happens when you delete a file?", "The data stays on the disk until it is overwritten.", "Only the pointer to the file is removed.", "That is why recovery tools can bring files back.", "To really erase it you have to overwrite the blocks.", "Solid state drives make this even more complicated.", "They move data around on their own to spread wear.", "So encrypt the whole disk from the very start."},
		{"Nobody tells you this about learning a language.", "Grammar books will not make you fluent.", "You need hours of listening to real speech.", "Watch shows you love with subtitles in the language.", "I was embarrassed to speak at first, it was awful!", "Every mistake you make is progress, not failure.", "After six months I could follow a whole film.", "Talk to yourself in the language while you cook"},
		{"Why are bees disappearing from our gardens?", "Pesticides weaken their sense of direction.", "Many flowers they need have been mowed away.", "A small wild corner in a garden helps them a lot.", "Plant lavender, clover and thyme for the whole summer.", "I love watching them work on a sunny morning!", "Leave a shallow dish of water with stones in it.", "It is the simplest thing you can do this year."},
		{"The truth about standing desks might surprise you.", "Standing all day is not better than sitting all day.", "What matters is changing position often.", "Set a timer to move every thirty minutes.", "Walk while you take phone calls.", "My back pain was terrible before I started this!", "Now I switch between sitting and standing every hour.", "It costs nothing and you can start today."},
	}
	var out [][]videosite.Segment
	for k := range 10 {
		var parts [][]string
		for m := range 3 {
			parts = append(parts, topics[(k+m*3)%len(topics)])
		}
		parts = append([][]string{topics[k]}, parts...)
		segs := talk(parts...)
		// Varied pace: stretch every sentence by the talk's own rhythm.
		for i := range segs {
			d := 3.0 + float64((i*7+k)%4)*0.5
			if i > 0 {
				segs[i].Start = segs[i-1].End
			}
			segs[i].End = segs[i].Start + d
		}
		// The talk is cut off mid-sentence.
		last := &segs[len(segs)-1]
		last.Text = strings.TrimRight(last.Text, ".!?") + " and the"
		out = append(out, segs)
	}
	return out
}

// On ten talks, every reason quotes what is said at the clip's times and
// the sub-scores add up to viralScore by the documented rule.
func TestReasonsQuoteTheClipAndScoresAddUp(t *testing.T) {
	kinds := map[string]int{}
	for k, segs := range tenTalks() {
		in := moments.Input{Segments: segs}
		if k%2 == 1 {
			dur := segs[len(segs)-1].End
			energy := make([]float64, int(dur*2))
			for i := range energy {
				energy[i] = 0.3 + 0.5*float64((i/40)%2)
			}
			in.Signals = &moments.Signals{Step: 0.5, Energy: energy, Peaks: []float64{dur / 3}, Scenes: []float64{10, 50, 90}}
		}
		res := rank(t, in)
		// And the clips rescored with the talk's last 20 s kept.
		end := segs[len(segs)-1].End
		in.Keep = []moments.Window{{Start: end - 20, End: end}}
		for _, c := range res.Clips {
			if c.End < end-20 {
				in.Keep = append(in.Keep, moments.Window{Start: c.Start, End: c.End})
			}
		}
		kept := rank(t, in)
		res.Clips = append(res.Clips, kept.Clips...)
		w := res.Analysis.ScoreWeights
		if sum := w.Hook + w.Flow + w.Value + w.Trend; math.Abs(sum-1) > 1e-9 {
			t.Fatalf("talk %d: weights %+v sum to %v", k, w, sum)
		}
		if len(res.Clips) == 0 {
			t.Fatalf("talk %d: no clips", k)
		}
		for _, c := range res.Clips {
			s := c.Scores
			for _, v := range []int{s.Hook, s.Flow, s.Value, s.Trend} {
				if v < 0 || v > 100 {
					t.Errorf("talk %d clip %s: sub-score %d", k, c.ID, v)
				}
			}
			want := int(math.Round(w.Hook*float64(s.Hook) + w.Flow*float64(s.Flow) + w.Value*float64(s.Value) + w.Trend*float64(s.Trend)))
			if c.ViralScore != want {
				t.Errorf("talk %d clip %s: viralScore %d, sub-scores %+v × %+v give %d", k, c.ID, c.ViralScore, s, w, want)
			}
			if len(c.Reasons) < 2 {
				t.Errorf("talk %d clip %s: reasons %q", k, c.ID, c.Reasons)
			}
			text := said(segs, c)
			for _, r := range c.Reasons {
				at := strings.Index(r, ": '")
				if at < 0 {
					continue
				}
				if !strings.HasSuffix(r, "'") {
					t.Errorf("reason %q does not end its quote", r)
					continue
				}
				kinds[r[:at]]++
				q := strings.TrimSuffix(strings.TrimPrefix(r[at+3:len(r)-1], "…"), "…")
				if q == "" || !strings.Contains(text, q) {
					t.Errorf("talk %d clip %s (%.1f–%.1f): reason %q quotes what is not said there:\n%s", k, c.ID, c.Start, c.End, r, text)
				}
			}
		}
	}
	// The talks exercise the reasons, not one phrase.
	for _, want := range []string{"opens with a question", "ends mid-sentence", "ends on a complete thought"} {
		if kinds[want] == 0 {
			t.Errorf("no clip of the ten talks says %q: %v", want, kinds)
		}
	}
}

// BenchmarkRankHourWithPrompt ranks an hour of talk (900 sentences of the
// three topics) with and without a prompt widened by WordNet.
func BenchmarkRankHourWithPrompt(b *testing.B) {
	var parts [][]string
	for range 38 {
		parts = append(parts, sleepTopic, carsTopic, cookingTopic)
	}
	segs := talk(parts...)[:900]
	lx := lexicon(b)
	for _, prompt := range []string{"", "the part where they talk about the automobile"} {
		b.Run("prompt="+fmt.Sprint(prompt != ""), func(b *testing.B) {
			for b.Loop() {
				if _, err := (moments.Local{Lexicon: lx}).Rank(context.Background(), moments.Input{Segments: segs, Prompt: prompt}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
