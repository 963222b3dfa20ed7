package app_test

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/clips/internal/mediatest"
)

// topicsTalk is a talk of three topics: sleep and cooking open with hooks
// and feeling; the car's service is told plainly and never says
// "automobile".
var topicsTalk = [3][]string{{
	"Why do we wake up tired after eight hours in bed?",
	"I was shocked when I learned the answer, it changed my life!",
	"Your body cycles through light and deep sleep every ninety minutes.",
	"Waking in the middle of a deep phase leaves you groggy.",
	"So set your alarm to the end of a cycle.",
	"Never look at your phone in bed, the light keeps you awake!",
}, {
	"Next we drove the car to the garage for its service.",
	"The mechanic checked the car's brakes and the tyres.",
	"He changed the oil in the car and replaced the filter.",
	"The car also needed new wiper blades for the winter.",
	"The car was ready by the afternoon and we drove home.",
	"After that the car went back into the driveway.",
}, {
	"What is the secret of a perfect omelette?",
	"I am absolutely in love with this trick, it is amazing!",
	"Whisk the eggs with a pinch of salt until they foam.",
	"Heat the pan with butter until it stops sizzling.",
	"Fold it over while the middle is still soft.",
	"You will never go back to dry eggs again, I promise!",
}}

// steered is a project with what the prompt adds.
type steered struct {
	ID             string `json:"id"`
	DownloadStatus string `json:"downloadStatus"`
	Analysis       struct {
		Prompt       *string            `json:"prompt"`
		ScoreWeights map[string]float64 `json:"scoreWeights"`
	} `json:"analysis"`
	Clips []struct {
		ID         string         `json:"id"`
		StartTime  float64        `json:"startTime"`
		EndTime    float64        `json:"endTime"`
		ViralScore int            `json:"viralScore"`
		Scores     map[string]int `json:"scores"`
		Reasons    []string       `json:"reasons"`
		Match      *struct {
			Matched bool     `json:"matched"`
			Terms   []string `json:"terms"`
			Quote   *string  `json:"quote"`
		} `json:"match"`
	} `json:"clips"`
}

// A prompt naming a topic by a word the talk never says (espeak speaks
// it; the site's captions are its words, or without them the worker's
// recogniser's) brings that topic's moment first, at creation, after
// preparation and on a re-rank; a prompt that
// matches nothing keeps the usual order with matched false; sub-scores
// add up to viralScore by the weights the analysis gives; a bad prompt is
// a 400 naming it.
func TestPromptSteersTheClips(t *testing.T) {
	h := newHarness(t)
	h.worker()
	dir := t.TempDir()
	var script []string
	for _, topic := range topicsTalk {
		script = append(script, topic...)
	}
	wav, spans := mediatest.Speech(t, dir, strings.Join(script, " "), "en-us", 170)
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Audio: wav,
		Scenes: []mediatest.Scene{{Colour: "navy", Seconds: spans[len(spans)-1].End + 1}}})
	const vid = "threeTopic1"
	h.site.Add(videositefake.Video{ID: vid, Title: "Sleep, cars and eggs", Channel: "Home", LengthSeconds: int(spans[len(spans)-1].End + 1),
		Tracks: []videositefake.Track{{Lang: "en", Segments: captions(spans)}}})
	h.media.put(t, file, vid+".mp4")
	url := "https://www.youtube.com/watch?v=" + vid
	carsFrom, carsTo := spans[6].Start, spans[11].End
	inCars := func(start, end float64) bool { m := (start + end) / 2; return m >= carsFrom && m <= carsTo }
	org := uuid.NewString()

	check := func(what string, p steered, wantCarsFirst bool) {
		t.Helper()
		if len(p.Clips) == 0 {
			t.Fatalf("%s: no clips", what)
		}
		w := p.Analysis.ScoreWeights
		for _, c := range p.Clips {
			s := c.Scores
			if got := int(math.Round(w["hook"]*float64(s["hook"]) + w["flow"]*float64(s["flow"]) + w["value"]*float64(s["value"]) + w["trend"]*float64(s["trend"]))); got != c.ViralScore || len(s) != 4 {
				t.Errorf("%s: clip %s sub-scores %v × %v = %d, viralScore %d", what, c.ID, s, w, got, c.ViralScore)
			}
			if len(c.Reasons) == 0 || c.Match == nil {
				t.Errorf("%s: clip %s reasons %q match %v", what, c.ID, c.Reasons, c.Match)
			}
		}
		top := p.Clips[0]
		if wantCarsFirst != (inCars(top.StartTime, top.EndTime) && top.Match.Matched) {
			t.Errorf("%s: top clip %.1f–%.1f match %+v; the car moment is %.1f–%.1f (want it first: %v)", what, top.StartTime, top.EndTime, top.Match, carsFrom, carsTo, wantCarsFirst)
		}
		if wantCarsFirst && (top.Match.Quote == nil || !strings.Contains(strings.Join(top.Match.Terms, " "), "car")) {
			t.Errorf("%s: match %+v", what, top.Match)
		}
	}

	var p steered
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org,
		map[string]string{"video_site_url": url, "prompt": "the part where he talks about the automobile"}).Into(t, &p)
	if p.Analysis.Prompt == nil || *p.Analysis.Prompt != "the part where he talks about the automobile" {
		t.Errorf("analysis prompt %v", p.Analysis.Prompt)
	}
	check("created", p, true)
	h.wait(org, p.ID, 90*time.Second)
	h.Must(http.StatusOK, http.MethodGet, "/clips/projects/"+p.ID, org, nil).Into(t, &p)
	check("prepared", p, true)

	var none steered
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org,
		map[string]string{"video_site_url": url, "prompt": "volcanic eruptions in Iceland"}).Into(t, &none)
	check("matching nothing", none, false)
	for _, c := range none.Clips {
		if c.Match.Matched || len(c.Match.Terms) != 0 || c.Match.Quote != nil {
			t.Errorf("clip %s of a prompt matching nothing: %+v", c.ID, c.Match)
		}
	}
	var plain steered
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url}).Into(t, &plain)
	for i, c := range plain.Clips {
		if c.Match != nil || i >= len(none.Clips) || none.Clips[i].ID != c.ID {
			t.Errorf("without a prompt clip %d is %s (match %v); matching nothing it is %v", i, c.ID, c.Match, none.Clips)
		}
	}

	// Re-rank the unmatched project for the car: the moment is added first.
	h.wait(org, none.ID, 60*time.Second)
	patch := func(want int, body any) testkit.Response {
		t.Helper()
		r := testkit.Call(t, h.Client, http.MethodPatch, h.URL+"/clips/projects/"+none.ID+"/transcript", body,
			principal.Header, apptest.Sign(t, org, ""), "If-Match", "*")
		if r.Status != want {
			t.Fatalf("PATCH transcript: %d, want %d: %s", r.Status, want, r.Raw)
		}
		return r
	}
	patch(http.StatusOK, map[string]any{"operations": []any{}, "rerank": true, "prompt": "automobiles"})
	var again steered
	h.Must(http.StatusOK, http.MethodGet, "/clips/projects/"+none.ID, org, nil).Into(t, &again)
	check("re-ranked", again, true)

	// The same talk without captions: the worker's recogniser writes the
	// words during preparation, and the prompt kept with the project
	// steers the clips it finds then.
	direct := h.media.put(t, file, "nocaptions.mp4")
	var spoken steered
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": direct, "prompt": "automobiles"}).Into(t, &spoken)
	if len(spoken.Clips) != 0 {
		t.Fatalf("clips before any transcript: %+v", spoken.Clips)
	}
	if got := h.wait(org, spoken.ID, 120*time.Second); got.DownloadStatus != "ready" {
		t.Fatalf("recognised project: %+v (%s)", got, deref(got.DownloadError))
	}
	h.Must(http.StatusOK, http.MethodGet, "/clips/projects/"+spoken.ID, org, nil).Into(t, &spoken)
	check("recognised", spoken, true)

	// Bad prompts are refused, naming the field.
	for _, body := range []map[string]any{
		{"video_site_url": url, "prompt": "   "},
		{"video_site_url": url, "prompt": strings.Repeat("a", 501)},
		{"video_site_url": url, "prompt": 7},
	} {
		if r := h.Do(http.MethodPost, "/clips/projects", org, body); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Raw), "prompt") {
			t.Errorf("prompt %v: %d %s", body["prompt"], r.Status, r.Raw)
		}
	}
	if r := patch(http.StatusBadRequest, map[string]any{"operations": []any{}, "prompt": "cars"}); !strings.Contains(string(r.Raw), "prompt") {
		t.Errorf("a prompt without rerank: %s", r.Raw)
	}
	// Another organization's project is not found.
	if r := testkit.Call(t, h.Client, http.MethodPatch, h.URL+"/clips/projects/"+none.ID+"/transcript",
		map[string]any{"operations": []any{}, "rerank": true, "prompt": "cars"},
		principal.Header, apptest.Sign(t, uuid.NewString(), ""), "If-Match", "*"); r.Status != http.StatusNotFound {
		t.Errorf("another org's re-rank: %d %s", r.Status, r.Raw)
	}
}
