package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/testkit"
)

// startClips runs the clips API where the gateway expects it, and one
// worker, with extra settings; it returns the worker.
func (s *stack) startClips(extra ...string) *exec.Cmd {
	s.t.Helper()
	s.clipsEnv = append([]string{"HOOKLINE_DB_SCHEMA=" + testkit.Schema(s.t, "e2e_clips")}, extra...)
	s.clipsAPI = s.start("clips", s.clipsEnv...)
	testkit.WaitHTTP(s.t, "http://"+s.clipsAddr+"/readyz", serviceReady)
	return s.clipsWorker()
}

// clipsWorker starts another clips worker (`clips worker`, through a
// wrapper that keeps the pid) with the API's settings and extra ones.
func (s *stack) clipsWorker(extra ...string) *exec.Cmd {
	s.t.Helper()
	wrapper := filepath.Join(s.t.TempDir(), "clips-worker")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+filepath.Join(s.bin, "clips")+" worker\n"), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		s.t.Fatal(err)
	}
	port := testkit.ReservePort(s.t)
	env := append(append(append([]string{}, s.common...), s.clipsEnv...), extra...)
	cmd := testkit.StartProcessOn(s.t, "clips-worker", wrapper, map[string]*testkit.Port{"HOOKLINE_HTTP_ADDR": port}, env...)
	testkit.WaitHTTP(s.t, port.URL+"/readyz", serviceReady)
	return cmd
}

// A creator's path through the gateway: a direct MP4 with a caption
// sidecar gives ranked clips at once; the project is prepared to ready;
// bad addresses are 400s; another organization sees a 404.
func TestClipsThroughTheGateway(t *testing.T) {
	s := startStack(t)
	segs, _ := threeTopics(t)
	segs = segs[:30] // two minutes
	dir := t.TempDir()
	video := filepath.Join(dir, "talk.mp4")
	length := strconv.Itoa(int(segs[len(segs)-1].End))
	ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d="+length,
		"-f", "lavfi", "-i", "sine=f=300:d="+length, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", video)
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
	_, other := s.newOrg("free")

	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4"})
	clips := p["clips"].([]any)
	if p["downloadStatus"] != "downloading" || len(clips) == 0 || p["transcriptSource"] != "captions" {
		t.Fatalf("created %v", p)
	}
	id := p["id"].(string)
	var ready map[string]any
	testkit.Eventually(t, 90*time.Second, "project ready", func() bool {
		ready = s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil)
		return ready["downloadStatus"] != "downloading"
	})
	if ready["downloadStatus"] != "ready" || ready["readyAt"] == nil || len(ready["clips"].([]any)) != len(clips) {
		t.Fatalf("prepared %v", ready)
	}
	for _, body := range []map[string]any{
		{"video_site_url": "http://192.168.1.10/v.mp4"},
		{"video_site_url": "file:///etc/passwd"},
		{"video_site_url": media.URL + "/missing.mp4"},
		{"video_site_url": media.URL + "/talk.mp4", "format": "square"},
	} {
		if st, b := s.do("POST", "/api/v1/clips/projects", key, body); st != 400 || b["code"] != "invalid_request" {
			t.Errorf("%v: %d %v", body, st, b)
		}
	}
	if st, _ := s.do("GET", "/api/v1/clips/projects/"+id, other, nil); st != 404 {
		t.Errorf("another organization's project: %d", st)
	}
	if st, list := s.do("GET", "/api/v1/clips/projects", key, nil); st != 200 || len(list["data"].([]any)) != 1 {
		t.Errorf("list: %d %v", st, list)
	}
}
