package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
)

// background is the colour of the hostile captions' source video.
var background = [3]byte{0x20, 0x30, 0x40}

// inkSpan is the leftmost and rightmost columns of the frame of file at sec
// holding a pixel clearly unlike the flat background (-1, -1: none). The
// frame comes as a binary PPM (8-bit RGB after a short header), read as
// bytes: a PNG decoded pixel by pixel took about a third of a second of
// CPU a frame in the race-instrumented test binary.
func inkSpan(t *testing.T, file string, sec float64) (left, right, width int) {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-ss", fmt.Sprintf("%.2f", sec), "-i", file, "-frames:v", "1",
		"-f", "image2pipe", "-c:v", "ppm", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	var magic string
	var w, h, maxval int
	if _, err := fmt.Fscan(bytes.NewReader(out), &magic, &w, &h, &maxval); err != nil || magic != "P6" || maxval != 255 || w <= 0 || h <= 0 || len(out) < 3*w*h {
		t.Fatalf("frame at %.2f s: not an 8-bit binary PPM (%v): %.20q", sec, err, out)
	}
	pix := out[len(out)-3*w*h:] // the header ends with one whitespace byte
	left, right = -1, -1
	for x := range w {
		for y := range h {
			if inked(pix[3*(y*w+x):]) {
				if left < 0 {
					left = x
				}
				right = x
				break
			}
		}
	}
	return left, right, w
}

// inked reports whether the RGB pixel at the start of p is clearly unlike
// the background.
func inked(p []byte) bool {
	d := 0
	for i, v := range background {
		d += max(int(p[i])-int(v), int(v)-int(p[i]))
	}
	return d > 60
}

// Caption files a creator's server may hold — NUL, invalid UTF-8 and
// control characters, a 300-character word — make projects through the
// gateway (201, where a NUL answered 500), which are prepared and render;
// in every frame of each render the captions and the hook title stay
// inside the frame, and the long word is drawn (cut), not dropped.
func TestHostileCaptionFilesRenderInsideTheFrame(t *testing.T) {
	s := startStack(t)
	segs, _ := threeTopics(t)
	segs = segs[:15] // a minute
	dir := t.TempDir()
	video := filepath.Join(dir, "talk.mp4")
	ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=0x203040:s=1280x720:r=25:d=60",
		"-f", "lavfi", "-i", "sine=f=300:d=60", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", video)
	if out, err := ff.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	long := "https://example.com/" + strings.Repeat("a", 280)
	files := map[string]func(string) string{
		"nul":  func(line string) string { return strings.Replace(line, " ", " \x00", 3) },
		"utf8": func(line string) string { return strings.Replace(line, " ", " \xff\xfe\u0085\x1b[31m ", 2) },
		// The long word opens every line: it is the hook and in every caption.
		"long": func(line string) string { return long + " " + line },
	}
	for name, edit := range files {
		var hostile []videosite.Segment
		for _, g := range segs {
			g.Text = edit(g.Text)
			hostile = append(hostile, g)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".vtt"), []byte(videositefake.VTT(hostile)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(video, filepath.Join(dir, name+".mp4")); err != nil {
			t.Fatal(err)
		}
	}
	media := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(media.Close)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	out := t.TempDir()
	for name := range files {
		p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/" + name + ".mp4"})
		clips := p["clips"].([]any)
		if len(clips) == 0 {
			t.Fatalf("%s: no clips: %v", name, p)
		}
		c := clips[0].(map[string]any)
		for _, text := range []any{c["title"], c["hook"]} {
			if str := text.(string); !utf8.ValidString(str) || strings.ContainsFunc(str, unicode.IsControl) {
				t.Errorf("%s: clip text %q", name, str)
			}
		}
		if got := s.waitProject(key, p["id"].(string)); got["downloadStatus"] != "ready" {
			t.Fatalf("%s: prepared %v", name, got)
		}
		b := s.must(201, "POST", "/api/v1/clips/projects/"+p["id"].(string)+"/renders", key, map[string]any{
			"clip_id": c["id"], "format": "portrait", "subtitle_style": "bold", "options": map[string]any{"hookTitle": true},
		})
		r := s.waitRender(key, b["renders"].([]any)[0].(map[string]any)["id"].(string), 3*time.Minute)
		if r["status"] != "completed" {
			t.Fatalf("%s: render %v", name, r)
		}
		file := fetch(t, r["outputUrl"].(string), out)
		widest := 0
		for sec := 0.3; sec < c["endTime"].(float64)-c["startTime"].(float64); sec++ {
			left, right, w := inkSpan(t, file, sec)
			if left >= 0 && (left < 4 || right > w-5) {
				t.Errorf("%s: at %.1f s text is drawn from column %d to %d of %d: off the frame", name, sec, left, right, w)
			}
			widest = max(widest, right-left)
		}
		t.Logf("%s: the widest text of the render spans %d columns of 720", name, widest)
		if name == "long" && widest < 720*2/5 {
			t.Errorf("the long word is not drawn: the widest text spans %d columns of 720", widest)
		}
	}
}
