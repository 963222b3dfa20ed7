package compose

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/scene"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// TestSceneHeadlines derives the headline of every prompt of scene's
// table (natural descriptions) from its topic: no word of art direction
// may appear in any, and at least 90 % keep the words a person expects
// (a derived headline has three to five words: at least half of those
// the table lists, the first, the subject, always).
// A title used as a prompt keeps its headline.
func TestSceneHeadlines(t *testing.T) {
	raw, err := os.ReadFile("../scene/testdata/prompts.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []struct {
		Prompt   string `json:"prompt"`
		Headline string `json:"headline"`
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatal(err)
	}
	e := &Engine{}
	pass := 0
	for _, c := range cs {
		h := e.sceneHeadline(engineReq(c.Prompt))
		got := strings.ToLower(strings.Trim(strings.Join(h.words, " "), "?!"))
		if art := scene.ArtWords(got); len(art) > 0 {
			t.Errorf("%q: headline %q holds the art words %q", c.Prompt, got, art)
		}
		want := strings.Fields(c.Headline)
		has := 0
		for _, w := range want {
			if strings.Contains(" "+got+" ", " "+w+" ") {
				has++
			}
		}
		ok := has*2 >= len(want) && strings.Contains(" "+got+" ", " "+want[0]+" ")
		if ok {
			pass++
		} else {
			t.Logf("%q: headline %q, want the words %q", c.Prompt, got, c.Headline)
		}
	}
	t.Logf("%d of %d headlines as expected", pass, len(cs))
	if pass*10 < len(cs)*9 {
		t.Errorf("%d of %d headlines as expected, want 90 %%", pass, len(cs))
	}
	for title, want := range map[string]string{
		"I tried living on $1 a day in Tokyo":                         "living $1 tokyo",
		"I tested the 5 cheapest gaming laptops so you don't have to": "5 cheapest gaming laptops",
	} {
		if got := strings.ToLower(strings.Join(e.sceneHeadline(engineReq(title)).words, " ")); !strings.Contains(got, want) {
			t.Errorf("%q: headline %q, want %q", title, got, want)
		}
	}
}

// sceneHeadline is the headline render sets for req with seed 1.
func (e *Engine) sceneHeadline(req engine.Request) headline {
	if h := comparisonHeadline(e.sceneOf(req)); h != "" {
		return headline{words: strings.Fields(h)}
	}
	topic, _ := e.topics(req)
	return deriveHeadline(topic, "", 1, 0)
}

// BenchmarkGenerateSceneWithSavedFace is local generation at 1280×720
// of a description that names a colour and an object, with a saved face
// whose cut-out is cached: the background, the face, the object's art
// with its glow, outline and shadow, the arrow from the face to it, the
// headline. It reports the p50.
func BenchmarkGenerateSceneWithSavedFace(b *testing.B) {
	e := artEngine(b)
	face := astronautFace(b)
	var times []time.Duration
	seed := uint64(0)
	for b.Loop() {
		seed++
		start := time.Now()
		r, err := e.Generate(context.Background(), engine.Request{Prompt: "Shocked creator pointing at a glowing laptop, bold yellow background",
			Aspect: thumbnail.Landscape, Seed: seed, Faces: []engine.Face{face}})
		times = append(times, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if !slices.Contains(r.Applied, "object laptop") {
			b.Fatalf("applied %q: no object drawn", r.Applied)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
}
