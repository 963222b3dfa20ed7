package app_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/moments"
)

// talk is a script with one planted strong moment (a question hook, numbers,
// emotion) between plain sentences on the same subject.
var talk = []string{
	"We put the panels on the south side of the roof last spring.",
	"The inverter sits in the garage next to the electric meter.",
	"Each panel is bolted to an aluminium rail on the rafters.",
	"The cables run down the outside wall in a grey conduit.",
	"After that we checked the wiring together with the electrician.",
	"The installer said the job usually takes about two days.",
	"Did you know that 9 out of 10 solar roofs are installed wrong?",
	"This is the biggest mistake I have ever seen, and it cost me ten thousand dollars!",
	"I was absolutely furious, it was a total disaster!",
	"Here is the one thing you must check before anyone touches your roof.",
	"We used the standard brackets that came with the kit.",
	"Then the inspector came by to look at the connections.",
	"The monitoring app shows the output of every single panel.",
	"In winter the panels make about a third of the summer power.",
	"We clean them twice a year with a soft brush and water.",
	"The batteries in the basement store what we do not use.",
	"Our bill went down a lot in the first full year.",
}

const plantedSentence = 6 // "Did you know..."

// talkMedia is the talk spoken (espeak-ng's default voice), as a video of
// coloured scenes with an applause-like burst during the planted moment.
type talkMedia struct {
	file  string
	spans []mediatest.Span
}

// sharedTalk is makeTalk's talk, made by the first test that asks.
var sharedTalk sharedMedia[talkMedia]

func makeTalk(t *testing.T) talkMedia {
	t.Helper()
	return sharedTalk.get(t, func(dir string) talkMedia {
		wav, spans := mediatest.Speech(t, dir, strings.Join(talk, " "), "en-us", 170)
		total := spans[len(spans)-1].End + 1
		var scenes []mediatest.Scene
		colours := []string{"navy", "darkred", "testsrc2", "darkgreen", "purple", "teal"}
		for i := 0; float64(i)*10 < total; i++ {
			scenes = append(scenes, mediatest.Scene{Colour: colours[i%len(colours)], Seconds: math.Min(10, total-float64(i)*10)})
		}
		file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Scenes: scenes, Audio: wav,
			Bursts: []float64{spans[plantedSentence+1].End + 0.2}})
		return talkMedia{file: file, spans: spans}
	})
}

func overlap(cs []clip) bool {
	for i := range cs {
		for j := range i {
			if cs[i].StartTime < cs[j].EndTime && cs[j].StartTime < cs[i].EndTime {
				return true
			}
		}
	}
	return false
}

func TestProjectFromTheSiteWithCaptions(t *testing.T) {
	h := newHarness(t)
	h.worker()
	m := makeTalk(t)
	const id = "solarRoof_1"
	h.site.Add(videositefake.Video{ID: id, Title: "Solar roof lessons", Channel: "Home", LengthSeconds: int(m.spans[len(m.spans)-1].End + 1),
		Tracks: []videositefake.Track{{Lang: "en", Segments: captions(m.spans)}}})
	h.media.put(t, m.file, id+".mp4")
	org := uuid.NewString()

	r := h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": "https://youtu.be/" + id + "?t=42"})
	var raw map[string]any
	if err := json.Unmarshal(r.Data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "videoTitle", "downloadStatus", "downloadError", "format", "analysis", "clips", "readyAt", "duration", "preparationStep"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("field %s is missing: %s", k, r.Raw)
		}
	}
	var p project
	r.Into(t, &p)
	if p.DownloadStatus != "downloading" || p.Format != "portrait" || p.VideoTitle != "Solar roof lessons" || p.DownloadError != nil || p.Transcript == nil || *p.Transcript != "captions" {
		t.Fatalf("created %s", r.Raw)
	}
	if len(p.Clips) == 0 {
		t.Fatalf("no clips at creation: %s", r.Raw)
	}
	planted := m.spans[plantedSentence]
	if top := p.Clips[0]; math.Abs(top.StartTime-planted.Start) > 0.5 || top.HookStrength != "high" {
		t.Errorf("top clip %+v, want the planted moment at %.1f s", top, planted.Start)
	}
	if overlap(p.Clips) {
		t.Errorf("clips overlap: %+v", p.Clips)
	}
	for _, c := range p.Clips {
		if d := c.EndTime - c.StartTime; d < 15 || d > 90 || c.Title == "" || c.Hook == "" || c.ViralScore < 0 || c.ViralScore > 100 || len(c.PlatformFit) == 0 || c.Mood == "" || c.Category == "" {
			t.Errorf("clip %+v", c)
		}
	}

	ready := h.wait(org, p.ID, 90*time.Second)
	if ready.DownloadStatus != "ready" || ready.ReadyAt == nil || ready.Duration == nil || ready.PreparationStep != "done" {
		t.Fatalf("prepared: %+v (error %v)", ready, deref(ready.DownloadError))
	}
	ids := map[string]bool{}
	for _, c := range ready.Clips {
		ids[c.ID] = true
	}
	for _, c := range p.Clips {
		if !ids[c.ID] {
			t.Errorf("clip %s of the creation is gone after preparation", c.ID)
		}
	}
	if len(ready.Clips) != len(p.Clips) || ready.Clips[0].ID != p.Clips[0].ID {
		t.Errorf("after preparation the planted moment is not first: %+v", ready.Clips)
	}

	// The same video again: the prepared source is reused.
	again := h.create(org, "https://www.youtube.com/watch?v="+id)
	if h.wait(org, again.ID, 60*time.Second).DownloadStatus != "ready" {
		t.Fatal("second project not ready")
	}
	if n := h.media.ytdlpCalls(); n != 1 {
		t.Errorf("yt-dlp ran %d times for one video", n)
	}

	list := h.Must(http.StatusOK, http.MethodGet, "/clips/projects?limit=1", org, nil)
	var items []project
	list.Into(t, &items)
	if len(items) != 1 || items[0].ID != again.ID || list.Page == nil || list.Page.Total != 2 || !list.Page.HasMore {
		t.Errorf("list %s", list.Raw)
	}
	// Another organization sees none of it.
	other := uuid.NewString()
	h.Must(http.StatusNotFound, http.MethodGet, "/clips/projects/"+p.ID, other, nil)
	h.Must(http.StatusOK, http.MethodGet, "/clips/projects", other, nil).Into(t, &items)
	if len(items) != 0 {
		t.Errorf("another org lists %d projects", len(items))
	}
}

func TestDirectMediaWithASidecar(t *testing.T) {
	h := newHarness(t)
	h.worker()
	m := makeTalk(t)
	url := h.media.put(t, m.file, "talk.mp4")
	h.media.putText(t, "talk.vtt", videositefake.VTT(captions(m.spans)))
	org := uuid.NewString()
	r := h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url, "format": "landscape"})
	var p project
	r.Into(t, &p)
	if p.Format != "landscape" || p.VideoTitle != "talk" || len(p.Clips) == 0 {
		t.Fatalf("created %s", r.Raw)
	}
	if got := h.wait(org, p.ID, 90*time.Second); got.DownloadStatus != "ready" || len(got.Clips) != len(p.Clips) {
		t.Fatalf("prepared %+v", got)
	}
}

// script is spoken with the voice and pace pocketsphinx recognises best
// (measured: en-us+f2 at 125 words per minute).
var script = []string{
	"How would you install solar panels on your roof?",
	"First you need to measure the space between the rafters.",
	"Then you bolt the rails to the roof with steel brackets.",
	"Next you clip the panels onto the rails one by one.",
	"Finally you connect the cables to the inverter in the garage.",
	"The whole job takes about two days with a friend.",
}

func TestNoCaptionsTranscribesDuringPreparation(t *testing.T) {
	h := newHarness(t)
	h.worker()
	dir := t.TempDir()
	wav, spans := mediatest.Speech(t, dir, strings.Join(script, " "), "en-us+f2", 125)
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Audio: wav,
		Scenes: []mediatest.Scene{{Colour: "navy", Seconds: spans[len(spans)-1].End + 1}}})
	url := h.media.put(t, file, "nocaptions.mp4")
	org := uuid.NewString()
	r := h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url})
	var p project
	r.Into(t, &p)
	if len(p.Clips) != 0 || p.Transcript != nil {
		t.Fatalf("clips before any transcript: %s", r.Raw)
	}
	ready := h.wait(org, p.ID, 3*time.Minute)
	if ready.DownloadStatus != "ready" || ready.Transcript == nil || *ready.Transcript != "recognition" || len(ready.Clips) == 0 {
		t.Fatalf("prepared %+v", ready)
	}

	// The kept words: at least 30 % of the script's content words, each
	// inside the span of a sentence that has it.
	var segs []byte
	if err := h.Pool.QueryRow(context.Background(), `SELECT segments FROM sources`).Scan(&segs); err != nil {
		t.Fatal(err)
	}
	var got []videosite.Segment
	if err := json.Unmarshal(segs, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]mediatest.Span{}
	for _, s := range spans {
		for _, w := range nlp.Tokens(s.Text) {
			if !nlp.IsStopword(w) && len(w) >= 3 {
				want[w] = append(want[w], s)
			}
		}
	}
	found := map[string]bool{}
	for _, seg := range got {
		for _, w := range seg.Words {
			word := strings.ToLower(w.Text)
			for _, s := range want[word] {
				if w.Start >= s.Start-1 && w.End <= s.End+1 {
					found[word] = true
				}
			}
		}
	}
	if share := float64(len(found)) / float64(len(want)); share < 0.3 {
		t.Errorf("recognised %d of %d content words in place (%.0f %%): %v", len(found), len(want), 100*share, got)
	} else {
		t.Logf("recognised %d of %d content words in place", len(found), len(want))
	}

	// The preparation is on the dashboard: its attempt and each step timed.
	m := testkit.ScrapeProcess(t)
	if n := m.Value("hookline_clips_jobs_total", "kind", "preparation", "outcome", "completed"); n < 1 {
		t.Errorf("completed preparations counted %v", n)
	}
	for _, step := range []string{"downloading", "storing", "probing", "transcribing", "analyzing"} {
		if n := m.Value("hookline_clips_step_duration_seconds", "kind", "preparation", "step", step); n < 1 {
			t.Errorf("step %s timed %v times", step, n)
		}
	}
}

// TestLowConfidenceRecognitionIsSaidAndNotBuiltOn: fast synthetic speech
// in the default voice, which pocketsphinx alone hears badly (measured:
// about one word in seven at its 0.9 confidence), gives a project that
// says its transcript is of low quality and titles its clips from what is
// known — the video's title, the time range, confident keywords — never
// from a word heard with less confidence.
func TestLowConfidenceRecognitionIsSaidAndNotBuiltOn(t *testing.T) {
	h := newHarness(t, "HOOKLINE_TRANSCRIBE_PROVIDER", "pocketsphinx")
	h.worker()
	dir := t.TempDir()
	wav, spans := mediatest.Speech(t, dir, strings.Join(script, " "), "en-us", 190)
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Audio: wav,
		Scenes: []mediatest.Scene{{Colour: "teal", Seconds: spans[len(spans)-1].End + 1}}})
	url := h.media.put(t, file, "mumbled.mp4")
	org := uuid.NewString()
	var p project
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url}).Into(t, &p)
	ready := h.wait(org, p.ID, 3*time.Minute)
	if ready.DownloadStatus != "ready" || len(ready.Clips) == 0 {
		t.Fatalf("prepared %+v", ready)
	}
	if ready.Analysis.TranscriptQuality != "low" {
		t.Fatalf("transcriptQuality %q, want low", ready.Analysis.TranscriptQuality)
	}

	var segs []byte
	if err := h.Pool.QueryRow(context.Background(), `SELECT segments FROM sources`).Scan(&segs); err != nil {
		t.Fatal(err)
	}
	var got []videosite.Segment
	if err := json.Unmarshal(segs, &got); err != nil {
		t.Fatal(err)
	}
	sure, doubtful := map[string]bool{}, map[string]bool{}
	for _, seg := range got {
		for _, w := range seg.Words {
			if w.Confidence >= moments.MinConfidence {
				sure[strings.ToLower(w.Text)] = true
			} else {
				doubtful[strings.ToLower(w.Text)] = true
			}
		}
	}
	if len(doubtful) == 0 {
		t.Fatal("no low-confidence words recognised: the test speech is too clear to test anything")
	}
	known := map[string]bool{}
	for _, w := range nlp.Tokens(ready.VideoTitle) {
		known[w] = true
	}
	for _, c := range ready.Clips {
		for _, w := range nlp.Tokens(c.Title + " " + c.Hook + " " + strings.Join(c.Keywords, " ")) {
			if doubtful[w] && !sure[w] && !known[w] {
				t.Errorf("clip %q (hook %q, keywords %v) uses %q, heard only with low confidence", c.Title, c.Hook, c.Keywords, w)
			}
		}
	}
	t.Logf("titles: %q", func() []string {
		var ts []string
		for _, c := range ready.Clips {
			ts = append(ts, c.Title)
		}
		return ts
	}())
}

func TestFailuresEndTheProject(t *testing.T) {
	h := newHarness(t)
	h.worker()
	dir := t.TempDir()
	h.media.put(t, mediatest.Corrupt(t, dir), "corrupt.bin")
	silent := h.media.put(t, mediatest.Video(t, dir, mediatest.VideoSpec{Width: 160, Height: 90, NoAudio: true,
		Scenes: []mediatest.Scene{{Colour: "red", Seconds: 3}}}), "silent.mp4")
	long := h.media.put(t, mediatest.Video(t, dir, mediatest.VideoSpec{Width: 160, Height: 90,
		Scenes: []mediatest.Scene{{Colour: "red", Seconds: 130}}}), "long.mp4")
	org := uuid.NewString()
	for url, reason := range map[string]string{
		h.media.URL + "/corrupt.bin": "not a playable video",
		silent:                       "no audio",
		long:                         "tier allows up to 2",
	} {
		p := h.create(org, url)
		got := h.wait(org, p.ID, 60*time.Second)
		if got.DownloadStatus != "failed" || got.DownloadError == nil || !strings.Contains(*got.DownloadError, reason) {
			t.Errorf("%s: %+v (error %v), want failed with %q", url, got, got.DownloadError, reason)
		}
	}
}

func TestBadRequestsAreRefused(t *testing.T) {
	h := newHarness(t)
	h.media.putText(t, "page.html", "<html>not a video</html>")
	org := uuid.NewString()
	for body, field := range map[string]string{
		`{}`: "video_site_url",
		`{"video_site_url": "file:///etc/passwd"}`:                               "video_site_url",
		`{"video_site_url": "http://10.1.2.3/v.mp4"}`:                            "video_site_url",
		`{"video_site_url": "http://127.0.0.1:1/v.mp4"}`:                         "video_site_url",
		`{"video_site_url": "` + h.media.URL + `/missing.mp4"}`:                  "video_site_url",
		`{"video_site_url": "` + h.media.URL + `/page.html"}`:                    "video_site_url",
		`{"video_site_url": "https://youtu.be/abcdefghijk", "format": "square"}`: "format",
		`{"video_site_url": "https://youtu.be/abcdefghijk", "format": ""}`:       "format",
		`{"video_site_url": "` + strings.Repeat("a", 3000) + `"}`:                "video_site_url",
	} {
		r := h.Do(http.MethodPost, "/clips/projects", org, body)
		if r.Status != http.StatusBadRequest || r.Code != "invalid_request" || r.Field(field) == "" {
			t.Errorf("%.80s: %d %s", body, r.Status, r.Raw)
		}
	}
	for path, want := range map[string]int{
		"/clips/projects/not-a-uuid":          http.StatusBadRequest,
		"/clips/projects?limit=101":           http.StatusBadRequest,
		"/clips/projects?page=0":              http.StatusBadRequest,
		"/clips/projects/" + uuid.NewString(): http.StatusNotFound,
	} {
		if r := h.Do(http.MethodGet, path, org, nil); r.Status != want {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Raw)
		}
	}
	if r := h.Do(http.MethodPost, "/clips/projects", org, `{"video_site_url": 5}`); r.Status != http.StatusBadRequest {
		t.Errorf("malformed body: %d", r.Status)
	}
	if r := h.Do(http.MethodGet, "/clips/projects", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("no principal: %d", r.Status)
	}
	var n int
	if err := h.Pool.QueryRow(context.Background(), `SELECT count(*) FROM projects`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d projects stored from refused requests (%v)", n, err)
	}
}

func TestAWorkerKilledMidPreparationLosesNothing(t *testing.T) {
	h := newHarness(t)
	m := makeTalk(t)
	url := h.media.put(t, m.file, "slow.mp4")
	h.media.putText(t, "slow.vtt", videositefake.VTT(captions(m.spans)))
	h.media.mu.Lock()
	h.media.slow["/slow.mp4"] = 4 * time.Second
	h.media.mu.Unlock()

	first := h.workerProcess("worker-1")
	org := uuid.NewString()
	p := h.create(org, url)
	select {
	case <-h.media.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the first worker never started downloading")
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()
	h.workerProcess("worker-2")

	got := h.wait(org, p.ID, 2*time.Minute)
	if got.DownloadStatus != "ready" || len(got.Clips) != len(p.Clips) {
		t.Fatalf("after the crash: %+v", got)
	}
	var attempts int
	var readyAt time.Time
	if err := h.Pool.QueryRow(context.Background(), `SELECT attempts, ready_at FROM projects WHERE id = $1`, p.ID).Scan(&attempts, &readyAt); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Errorf("%d attempts, want 2 (the killed one and the one that finished)", attempts)
	}
	// Ready once: later deliveries (none should come) change nothing.
	time.Sleep(4 * time.Second)
	var again time.Time
	if err := h.Pool.QueryRow(context.Background(), `SELECT ready_at FROM projects WHERE id = $1`, p.ID).Scan(&again); err != nil || !again.Equal(readyAt) {
		t.Errorf("ready_at moved from %v to %v (%v)", readyAt, again, err)
	}
}
