package e2e

import (
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/testkit"
)

// A prompt through the gateway: the talk of bread, bicycles and Rome's
// aqueducts asked for "conduits", a word it never says (WordNet: an
// aqueduct is a conduit), leads with the Rome moment, its match shown;
// the sub-scores add up to viralScore; a prompt that matches nothing
// keeps the ranking, matched false; a re-rank for another prompt needs no
// edit.
func TestClipPromptThroughTheGateway(t *testing.T) {
	s := startStack(t)
	segs, transcript := threeTopics(t)
	if strings.Contains(strings.ToLower(transcript), "conduit") {
		t.Fatal("the talk says the prompt's word")
	}
	rome := 0
	for i, sg := range segs {
		if strings.HasPrefix(sg.Text, "Finally, a little history") {
			rome = i
		}
	}
	dir := t.TempDir()
	length := strconv.Itoa(int(segs[len(segs)-1].End))
	ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d="+length,
		"-f", "lavfi", "-i", "sine=f=300:d="+length, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", filepath.Join(dir, "talk.mp4"))
	if out, err := ff.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "talk.vtt"), []byte(videositefake.VTT(segs)), 0o600); err != nil {
		t.Fatal(err)
	}
	media := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(media.Close)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1")
	_, key := s.newOrg("pro")
	url := media.URL + "/talk.mp4"

	inRome := func(c map[string]any) bool {
		return (c["startTime"].(float64)+c["endTime"].(float64))/2 >= segs[rome].Start
	}
	check := func(what string, p map[string]any, wantRome bool) {
		t.Helper()
		clips := p["clips"].([]any)
		if len(clips) == 0 {
			t.Fatalf("%s: no clips: %v", what, p)
		}
		w := p["analysis"].(map[string]any)["scoreWeights"].(map[string]any)
		for _, x := range clips {
			c := x.(map[string]any)
			sc := c["scores"].(map[string]any)
			sum := 0.0
			for _, k := range []string{"hook", "flow", "value", "trend"} {
				sum += w[k].(float64) * sc[k].(float64)
			}
			if math.Round(sum) != c["viralScore"].(float64) || len(c["reasons"].([]any)) == 0 {
				t.Errorf("%s: clip %v: scores %v × %v", what, c["id"], sc, w)
			}
		}
		top := clips[0].(map[string]any)
		m := top["match"].(map[string]any)
		if wantRome != (inRome(top) && m["matched"] == true) {
			t.Errorf("%s: top clip %v–%v match %v; Rome starts at %.0f s (want it first: %v)", what, top["startTime"], top["endTime"], m, segs[rome].Start, wantRome)
		}
	}

	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": url, "prompt": "the part about the conduits"})
	if p["analysis"].(map[string]any)["prompt"] != "the part about the conduits" {
		t.Errorf("analysis %v", p["analysis"])
	}
	check("created", p, true)

	none := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": url, "prompt": "volcanic eruptions in Iceland"})
	for _, x := range none["clips"].([]any) {
		if m := x.(map[string]any)["match"].(map[string]any); m["matched"] != false || m["quote"] != nil {
			t.Errorf("a prompt matching nothing: %v", m)
		}
	}
	id := none["id"].(string)
	testkit.Eventually(t, 90*time.Second, "project ready", func() bool {
		return s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil)["downloadStatus"] != "downloading"
	})
	if st, b, _ := s.patchTranscript(key, id, "*", `{"operations":[],"rerank":true,"prompt":"conduits"}`); st != 200 {
		t.Fatalf("re-rank: %d %v", st, b)
	}
	check("re-ranked", s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil), true)
	if st, b := s.do("POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": url, "prompt": strings.Repeat("x", 501)}); st != 400 || !strings.Contains(b["error"].(string), "prompt") {
		t.Errorf("a 501-character prompt: %d %v", st, b)
	}
}
