package e2e

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/testkit"
)

// faceTalk serves a 60 s 1280x720 talk: pigo's sample face sliding across
// the frame, a tone, and captions (the three-topic lines, 4 s each) as a
// sidecar; it is served with /slow.mp4 delayed by slow. The files are
// made once for all the tests (they only read them).
func faceTalk(t *testing.T, slow *atomic.Int64) *httptest.Server {
	t.Helper()
	dir := fixture(t, "facetalk", func(dir string) {
		photo := filepath.Join(dir, "face.jpg")
		if err := os.WriteFile(photo, testkit.FacePhoto(t), 0o600); err != nil {
			t.Fatal(err)
		}
		video := filepath.Join(dir, "talk.mp4")
		ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=0x283040:s=1280x720:r=25:d=60",
			"-loop", "1", "-i", photo, "-f", "lavfi", "-i", "sine=f=220:d=60",
			"-filter_complex", "[1:v]scale=-2:420[f];[0:v][f]overlay=x='40+600*(0.5-0.5*cos(t/6))':y=150:shortest=1[v]",
			"-map", "[v]", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", "60", video)
		if out, err := ff.CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v %s", err, out)
		}
		segs, _ := threeTopics(t)
		vtt := []byte(videositefake.VTT(segs[:15]))
		for _, name := range []string{"talk.vtt", "slow.vtt"} {
			if err := os.WriteFile(filepath.Join(dir, name), vtt, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Link(video, filepath.Join(dir, "slow.mp4")); err != nil {
			t.Fatal(err)
		}
	})
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow.mp4" && r.Header.Get("Range") == "" {
			time.Sleep(time.Duration(slow.Load()))
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (s *stack) waitProject(key, id string) map[string]any {
	s.t.Helper()
	var p map[string]any
	testkit.Eventually(s.t, 90*time.Second, "project "+id+" prepared", func() bool {
		p = s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil)
		return p["downloadStatus"] != "downloading"
	})
	return p
}

func (s *stack) waitRender(key, id string, within time.Duration) map[string]any {
	s.t.Helper()
	var r map[string]any
	testkit.Eventually(s.t, within, "render "+id+" ended", func() bool {
		r = s.must(200, "GET", "/api/v1/clips/renders/"+id, key, nil)
		return r["status"] == "completed" || r["status"] == "failed"
	})
	return r
}

// fetch downloads url into dir.
func fetch(t *testing.T, url, dir string) string {
	t.Helper()
	resp, err := http.Get(url) //nolint:gosec,noctx // the test's own MinIO
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	out := filepath.Join(dir, filepath.Base(url))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	return out
}

// probe reads width, height, codecs and duration of a file.
func probe(t *testing.T, file string) (w, h int, vcodec, acodec string, dur float64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height:format=duration",
		"-of", "default=nw=1", file).Output()
	if err != nil {
		t.Fatal(err)
	}
	kind := ""
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "codec_name":
			if vcodec == "" {
				vcodec = v
			} else {
				acodec = v
			}
		case "codec_type":
			kind = v
		case "width":
			w, _ = strconv.Atoi(v)
		case "height":
			h, _ = strconv.Atoi(v)
		case "duration":
			dur, _ = strconv.ParseFloat(v, 64)
		}
	}
	_ = kind
	return w, h, vcodec, acodec, dur
}

// pixel is the RGB of (x, y) in the frame of file at sec.
func pixel(t *testing.T, file string, sec float64, x, y int) [3]byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-ss", fmt.Sprint(sec), "-i", file, "-frames:v", "1",
		"-vf", fmt.Sprintf("format=rgb24,crop=1:1:%d:%d", x, y), "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil || len(out) < 3 {
		t.Fatalf("pixel: %v %d bytes", err, len(out))
	}
	return [3]byte{out[0], out[1], out[2]}
}

// toneLevel is the mean volume (dB) of file in a narrow band around 3 kHz.
func toneLevel(t *testing.T, file string) float64 {
	t.Helper()
	out, _ := exec.Command("ffmpeg", "-nostats", "-i", file, "-af", "bandpass=f=3000:width_type=h:width=100,bandpass=f=3000:width_type=h:width=100,volumedetect", "-f", "null", "-").CombinedOutput()
	s := string(out)
	i := strings.Index(s, "mean_volume:")
	if i < 0 {
		t.Fatalf("no volume: %s", s)
	}
	v, err := strconv.ParseFloat(strings.Fields(s[i+len("mean_volume:"):])[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func loudnessOf(t *testing.T, file string) float64 {
	t.Helper()
	out, _ := exec.Command("ffmpeg", "-nostats", "-i", file, "-af", "ebur128", "-f", "null", "-").CombinedOutput()
	s := string(out)
	i := strings.LastIndex(s, "I:")
	if i < 0 {
		t.Fatalf("no loudness: %s", s)
	}
	v, err := strconv.ParseFloat(strings.Fields(s[i+2:])[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Renders through the gateway: 409 before the source is ready, every 400
// with nothing charged, two renders with every option (4 credits), the
// MP4s checked, a render whose ffmpeg fails refunded, and a worker killed
// mid-render replaced without a second charge.
func TestClipRendersThroughTheGateway(t *testing.T) {
	s := startStack(t)
	var slow atomic.Int64
	slow.Store(int64(4 * time.Second))
	media := faceTalk(t, &slow)
	worker := s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280",
		"HOOKLINE_CLIPS_RENDER_PRESET=ultrafast", "HOOKLINE_CLIPS_JOB_ACK_WAIT=3s")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/slow.mp4"})
	id := p["id"].(string)
	clips := p["clips"].([]any)
	if len(clips) < 2 {
		t.Fatalf("clips %v", p)
	}
	c0, c1 := clips[0].(map[string]any), clips[1].(map[string]any)
	// Not ready yet (the download is slow): 409 before the ids are looked at.
	if st, b := s.do("POST", "/api/v1/clips/projects/"+id+"/renders", key, map[string]any{"clip_id": "nope"}); st != 409 || b["code"] != "source_not_ready" {
		t.Fatalf("render before ready: %d %v", st, b)
	}
	if got := s.waitProject(key, id); got["downloadStatus"] != "ready" {
		t.Fatalf("project %v", got)
	}
	slow.Store(0)

	path := "/api/v1/clips/projects/" + id + "/renders"
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = fmt.Sprint(c0["id"], i)
	}
	for field, body := range map[string]map[string]any{
		"clip_ids":            {"clip_id": c0["id"], "clip_ids": []any{c1["id"]}},
		"clip_id":             {},
		"clip_ids ":           {"clip_ids": []any{}},
		"clip_ids  ":          {"clip_ids": []any{c0["id"], c0["id"]}},
		"clip_ids   ":         {"clip_ids": []any{c0["id"], "clip_unknown"}},
		"clip_ids    ":        {"clip_ids": eleven},
		"subtitle_style":      {"clip_id": c0["id"], "subtitle_style": "comic"},
		"format":              {"clip_id": c0["id"], "format": "square"},
		"options.brandFrame":  {"clip_id": c0["id"], "options": map[string]any{"brandFrame": true}},
		"options.endCardText": {"clip_id": c0["id"], "options": map[string]any{"endCardText": strings.Repeat("é", 121)}},
		"options.layout":      {"clip_id": c0["id"], "options": map[string]any{"layout": "grid"}},
		"brand_id":            {"clip_id": c0["id"], "brand_id": "not-a-uuid"},
	} {
		st, b := s.do("POST", path, key, body)
		if st != 400 || fieldOf(b, strings.TrimSpace(field)) == nil {
			t.Errorf("%v: %d %v, want 400 naming %s", body, st, b, field)
		}
	}
	if total := s.total(key); total != 500 {
		t.Fatalf("refused requests charged: %v", total)
	}

	// The operator fills the music library: a 3 kHz tone, tagged calm.
	tone := filepath.Join(t.TempDir(), "tone.wav")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=3000:d=20", tone).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	tones := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(tone))))
	t.Cleanup(tones.Close)
	if st, b := s.do("POST", "/admin/v1/music-tracks", key, map[string]any{"name": "x", "url": tones.URL + "/tone.wav", "moods": []any{"calm"}}); st != 401 {
		t.Errorf("a customer's key on the admin API: %d %v", st, b)
	}
	for field, body := range map[string]map[string]any{
		"name":  {"name": "", "url": "x", "moods": []any{}},
		"url":   {"name": "t", "url": tones.URL + "/missing.wav", "moods": []any{"calm"}},
		"url ":  {"name": "t", "url": "http://10.0.0.1/a.wav", "moods": []any{"calm"}},
		"moods": {"name": "t", "url": tones.URL + "/tone.wav", "moods": []any{"sleepy"}},
	} {
		if st, b := s.do("POST", "/admin/v1/music-tracks", adminToken, body); st != 400 || fieldOf(b, strings.TrimSpace(field)) == nil {
			t.Errorf("track %v: %d %v", body, st, b)
		}
	}
	track := s.must(201, "POST", "/admin/v1/music-tracks", adminToken, map[string]any{"name": "Tone", "url": tones.URL + "/tone.wav", "moods": []any{"calm"}})
	if track["duration"].(float64) < 19 {
		t.Fatalf("track %v", track)
	}
	// And the b-roll library: pure red footage for the first clip's keywords.
	red := filepath.Join(filepath.Dir(tone), "red.mp4")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=320x240:r=25:d=3", "-c:v", "libx264", "-preset", "ultrafast", red).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	footage := s.must(201, "POST", "/admin/v1/broll", adminToken, map[string]any{"name": "Red", "url": tones.URL + "/red.mp4", "keywords": c0["keywords"]})
	if footage["duration"].(float64) < 2.9 {
		t.Fatalf("footage %v", footage)
	}
	if st, b := s.do("POST", "/admin/v1/broll", adminToken, map[string]any{"name": "Tone", "url": tones.URL + "/tone.wav", "keywords": []any{"x"}}); st != 400 || fieldOf(b, "url") == nil {
		t.Errorf("audio as footage: %d %v", st, b)
	}

	// Another organization's (or an unknown) brand is 404, nothing charged.
	if st, b := s.do("POST", path, key, map[string]any{"clip_id": c0["id"], "brand_id": "0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00"}); st != 404 {
		t.Errorf("unknown brand: %d %v", st, b)
	}
	brand := s.must(201, "POST", "/api/v1/brands", key, map[string]any{"name": "Purple", "colors": []any{"#7c3aed", "#ffffff"}})

	// Two clips with every option, once the brand has reached clips.
	tricky := `Follow {\an8} \N now; [x] 'y' %{pts}`
	var b map[string]any
	testkit.Eventually(t, 20*time.Second, "brand known to clips", func() bool {
		st, body := s.do("POST", path, key, map[string]any{
			"clip_ids": []any{c0["id"], c1["id"]}, "format": "portrait", "subtitle_style": "energetic", "brand_id": brand["id"],
			"options": map[string]any{"music": true, "broll": true, "hookTitle": true, "progressBar": true, "brandFrame": true,
				"endCardText": tricky, "keywordEmphasis": true, "layout": "speaker"},
		})
		if st == 201 {
			b, _ = body["data"].(map[string]any)
		}
		return st == 201
	})
	if b["creditsCharged"] != float64(4) || len(b["renders"].([]any)) != 2 {
		t.Fatalf("creation %v", b)
	}
	dir := t.TempDir()
	var withMusic float64
	for i, it := range b["renders"].([]any) {
		rid := it.(map[string]any)["id"].(string)
		r := s.waitRender(key, rid, 3*time.Minute)
		if r["status"] != "completed" || r["progress"] != float64(100) || r["currentStep"] != "done" || r["error"] != nil || r["creditsCharged"] != float64(2) {
			t.Fatalf("render %v", r)
		}
		if notes := fmt.Sprint(r["notes"]); strings.Contains(notes, "music") || strings.Contains(notes, "brandFrame") || i == 0 && strings.Contains(notes, "broll") {
			t.Errorf("notes %v", r["notes"])
		}
		file := fetch(t, r["outputUrl"].(string), dir)
		clip := []map[string]any{c0, c1}[i]
		want := clip["endTime"].(float64) - clip["startTime"].(float64) + 2.5
		w, h, vc, ac, dur := probe(t, file)
		if w != 720 || h != 1280 || vc != "h264" || ac != "aac" || math.Abs(dur-want) > 0.3 {
			t.Errorf("render %d: %dx%d %s/%s %.2f s, want 720x1280 h264/aac %.2f s", i, w, h, vc, ac, dur, want)
		}
		if l := loudnessOf(t, file); math.Abs(l+14) > 1 {
			t.Errorf("render %d: %.1f LUFS", i, l)
		}
		if i == 0 {
			withMusic = toneLevel(t, file)
			// The footage is cut in: some second of the clip is the red b-roll.
			reds := 0
			for sec := 0.5; sec < want; sec += 0.25 {
				if px := pixel(t, file, sec, 100, 600); px[0] > 200 && px[1] < 60 && px[2] < 60 {
					reds++
				}
			}
			if reds == 0 {
				t.Errorf("render 0: no frame of the red b-roll (notes %v)", r["notes"])
			}
		}
		if px := pixel(t, file, 1, 4, 640); px[0] < 0x60 || px[0] > 0x98 || px[1] > 0x50 || px[2] < 0xc8 {
			t.Errorf("render %d: the left edge is #%02x%02x%02x, not the brand's #7c3aed frame", i, px[0], px[1], px[2])
		}
		srt := fetch(t, r["captionsUrl"].(string), dir)
		if b, _ := os.ReadFile(srt); !strings.Contains(string(b), "-->") {
			t.Errorf("captions %q", b)
		}
		if r["cropPathUrl"] == nil {
			t.Errorf("no crop path for a reframed render")
		}
		if o, _ := r["options"].(map[string]any); o["layout"] != "speaker" {
			t.Errorf("render %d: options %v, want layout speaker", i, r["options"])
		}
	}
	s.waitTotal(key, 496)
	if st, list := s.do("GET", path, key, nil); st != 200 || len(list["data"].([]any)) != 2 {
		t.Errorf("list %d %v", st, list)
	}
	_, other := s.newOrg("free")
	if st, _ := s.do("GET", "/api/v1/clips/renders/"+b["renders"].([]any)[0].(map[string]any)["id"].(string), other, nil); st != 404 {
		t.Errorf("another org's render: %d", st)
	}

	// A worker killed mid-render: another finishes it, charged once.
	r := s.must(201, "POST", path, key, map[string]any{"clip_id": c0["id"], "subtitle_style": "glow",
		"options": map[string]any{"removeSilences": true, "removeFillers": true, "autoZoom": true, "layout": "split"}})
	rid := r["renders"].([]any)[0].(map[string]any)["id"].(string)
	testkit.Eventually(t, 30*time.Second, "render started", func() bool {
		return s.must(200, "GET", "/api/v1/clips/renders/"+rid, key, nil)["status"] == "rendering"
	})
	_ = worker.Process.Signal(syscall.SIGKILL)
	_, _ = worker.Process.Wait()
	healthy := s.clipsWorker()
	got := s.waitRender(key, rid, 3*time.Minute)
	if got["status"] != "completed" || got["attempts"] != float64(2) {
		t.Errorf("after the kill: %v", got)
	}
	// Jump cuts and punch-ins asked for with the split layout (one face:
	// nothing to split): answered, and the MP4 is the clip less what was
	// cut (the talk is a steady tone: nothing to cut); the crop path
	// reports a zoom on every point.
	if o := got["options"].(map[string]any); o["removeSilences"] != true || o["removeFillers"] != true || o["autoZoom"] != true || o["layout"] != "split" {
		t.Errorf("options %v", o)
	}
	cutDir := t.TempDir()
	removed, _ := got["secondsRemoved"].(float64)
	if _, _, _, _, dur := probe(t, fetch(t, got["outputUrl"].(string), cutDir)); math.Abs(dur-(c0["endTime"].(float64)-c0["startTime"].(float64)-removed)) > 0.3 {
		t.Errorf("the jump-cut render lasts %.2f s with %v s removed (clip %v–%v)", dur, got["secondsRemoved"], c0["startTime"], c0["endTime"])
	}
	if b, _ := os.ReadFile(fetch(t, got["cropPathUrl"].(string), cutDir)); !strings.Contains(string(b), `"zoom":`) {
		t.Errorf("the crop path has no zoom: %.200s", b)
	}
	// That render has no music: the library's 3 kHz tone is what the
	// first one carried, under the speech.
	if without := toneLevel(t, fetch(t, got["outputUrl"].(string), t.TempDir())); withMusic < without+10 {
		t.Errorf("the 3 kHz band: %.1f dB with music, %.1f dB without", withMusic, without)
	}
	s.waitTotal(key, 494)

	// A render whose ffmpeg fails: failed, error set, refunded.
	broken := filepath.Join(t.TempDir(), "ffmpeg")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'broken encoder' >&2\nexit 1\n"), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		t.Fatal(err)
	}
	_ = healthy.Process.Signal(os.Interrupt)
	_, _ = healthy.Process.Wait()
	s.clipsWorker("HOOKLINE_FFMPEG=" + broken)
	r = s.must(201, "POST", path, key, map[string]any{"clip_id": c1["id"], "subtitle_style": "minimal"})
	rid = r["renders"].([]any)[0].(map[string]any)["id"].(string)
	if got = s.waitRender(key, rid, time.Minute); got["status"] != "failed" || got["error"] == nil || got["creditsCharged"] != float64(0) {
		t.Fatalf("broken ffmpeg: %v", got)
	}
	s.waitTotal(key, 494)
}

// The clips API killed while render requests are in flight (between a
// reservation and the renders' commit, when the kill lands there): the
// credits recovery pass refunds every reservation without a render, so
// the organization pays exactly for the renders that exist.
func TestKilledClipsAPIChargesNothingWithoutARender(t *testing.T) {
	s := startStack(t)
	var slow atomic.Int64
	media := faceTalk(t, &slow)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast",
		"HOOKLINE_RECOVERY_INTERVAL=1s", "HOOKLINE_RECOVERY_GRACE=6s")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)
	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4"})
	id := p["id"].(string)
	if got := s.waitProject(key, id); got["downloadStatus"] != "ready" {
		t.Fatalf("project %v", got)
	}
	clip := p["clips"].([]any)[0].(map[string]any)["id"]
	path := "/api/v1/clips/projects/" + id + "/renders"
	for i := range 10 {
		done := make(chan int, 1)
		go func() {
			st, _ := s.do("POST", path, key, map[string]any{"clip_id": clip, "subtitle_style": "minimal"})
			done <- st
		}()
		time.Sleep(time.Duration(1+i) * time.Millisecond) // a growing delay, so the kills land at different points inside the request
		_ = s.clipsAPI.Process.Signal(syscall.SIGKILL)
		_, _ = s.clipsAPI.Process.Wait()
		// Restarted before the answer is awaited: a request the gateway
		// forwarded after the kill waits in the held port's backlog, and
		// the restarted process answers it.
		s.clipsAPI = s.start("clips", s.clipsEnv...)
		testkit.WaitHTTP(t, "http://"+s.clipsAddr+"/readyz", serviceReady)
		t.Logf("request %d answered %d", i, <-done)
	}
	// Every render that exists ends; the rest of the reservations are
	// refunded by the recovery pass.
	var completed int
	testkit.Eventually(t, 3*time.Minute, "renders ended", func() bool {
		_, list := s.do("GET", path+"?limit=100", key, nil)
		completed = 0
		for _, it := range list["data"].([]any) {
			switch it.(map[string]any)["status"] {
			case "completed":
				completed++
			case "pending", "rendering":
				return false
			}
		}
		return true
	})
	t.Logf("%d renders completed", completed)
	testkit.Eventually(t, 60*time.Second, "charged exactly for the renders", func() bool { return s.total(key) == float64(500-2*completed) })
	// What billing saw: reservations committed (the renders) and refunded
	// (the requests the kills cut between reserving and storing).
	t.Logf("usage by status: %v", s.usageStatuses(key))
}
