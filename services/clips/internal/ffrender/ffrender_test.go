package ffrender_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // the sample face
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
)

// movingFace makes a 1280x720 video of pigo's sample face sliding from
// left to right over seconds, with a tone, and returns it with the face
// centre's x at time t.
func movingFace(t *testing.T, dir string, seconds float64) (string, func(float64) float64) {
	t.Helper()
	out, box := slidingFace(t, dir, seconds, 480, 120, 0, 1)
	return out, func(t float64) float64 { b := box(t); return float64(b.Min.X+b.Max.X) / 2 }
}

// slidingFace makes a 1280x720 video of pigo's sample face, the photo h
// pixels high with its top at y=top, its left edge moving at an even
// speed from the share from to the share to of the room beside it over
// seconds, with a tone; and returns it with the face's box at time t.
func slidingFace(t *testing.T, dir string, seconds float64, h, top int, from, to float64) (string, func(float64) image.Rectangle) {
	t.Helper()
	photo := testkit.FacePhoto(t)
	img, _, err := image.Decode(bytes.NewReader(photo))
	if err != nil {
		t.Fatal(err)
	}
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	faces := det.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face in the sample photo")
	}
	k := float64(h) / float64(img.Bounds().Dy())
	w := int(float64(img.Bounds().Dx())*k) / 2 * 2
	f := faces[0].Rect
	src := filepath.Join(dir, "face.jpg")
	if err := os.WriteFile(src, photo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, fmt.Sprintf("face-%d-%.0f-%.0f.mp4", h, 100*from, 100*to))
	room := float64(1280 - w)
	x0, travel := from*room, (to-from)*room
	run(t, "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", fmt.Sprintf("color=c=0x303848:s=1280x720:r=25:d=%.2f", seconds),
		"-loop", "1", "-i", src, "-f", "lavfi", "-i", fmt.Sprintf("sine=f=330:d=%.2f", seconds),
		"-filter_complex", fmt.Sprintf("[1:v]scale=%d:%d[f];[0:v][f]overlay=x='%.1f+%.1f*t/%.2f':y=%d:shortest=1[v]", w, h, x0, travel, seconds, top),
		"-map", "[v]", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", fmt.Sprintf("%.2f", seconds), out)
	return out, func(t float64) image.Rectangle {
		left := x0 + travel*t/seconds
		return image.Rect(int(left+float64(f.Min.X)*k), top+int(float64(f.Min.Y)*k), int(left+float64(f.Max.X)*k), top+int(float64(f.Max.Y)*k))
	}
}

func run(t *testing.T, bin string, args ...string) {
	t.Helper()
	if out, err := exec.CommandContext(t.Context(), bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
}

func words(text string, from, per float64) []captions.Word {
	var ws []captions.Word
	for i, w := range strings.Fields(text) {
		ws = append(ws, captions.Word{Start: from + float64(i)*per, End: from + float64(i+1)*per - 0.05, Text: w})
	}
	return ws
}

func probe(t *testing.T, file string) media.Info {
	t.Helper()
	info, err := media.Tools{}.Probe(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestPortraitFollowsTheFace(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src, centre := movingFace(t, dir, 8)
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	r := &ffrender.Renderer{Faces: det, Preset: "ultrafast"}
	job := ffrender.Job{Source: src, SrcW: 1280, SrcH: 720, HasAudio: true, Start: 1, End: 7, Width: 540, Height: 960, Dir: filepath.Join(dir, "job"),
		ProgressBar: true, EndCardSeconds: 2,
		Text: captions.Spec{Style: captions.Energetic, Words: words("watch the face slide across the frame {\\an8} end", 0.3, 0.5),
			Hook: "Follow me", HookSeconds: 2, EndCard: "Subscribe; [now] '50%' %{pts} {\\b1}"}}
	if err := os.MkdirAll(job.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var steps []string
	res, err := r.Render(context.Background(), job, func(step string, done float64) {
		if len(steps) == 0 || steps[len(steps)-1] != step {
			steps = append(steps, step)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(steps, ",") != "cutting,reframing,captioning,encoding" {
		t.Errorf("steps %v", steps)
	}
	// The crop holds the face centre in ≥ 95 % of the samples and moves
	// without jumps (no scene cuts here).
	cw := 720 * 9 / 16
	inside, faces := 0, 0
	for k, p := range res.Crop {
		c := centre(job.Start + p.T)
		if c >= float64(p.X) && c <= float64(p.X+cw) {
			inside++
		}
		if p.Face {
			faces++
		}
		if k > 0 {
			if jump := math.Abs(float64(p.X - res.Crop[k-1].X)); jump > 0.35*1280/4+1 {
				t.Errorf("crop jumps %.0f px at %.2f s", jump, p.T)
			}
		}
	}
	if len(res.Crop) < 20 || float64(inside) < 0.95*float64(len(res.Crop)) {
		t.Errorf("face inside the crop in %d of %d samples (faces found in %d)", inside, len(res.Crop), faces)
	}
	info := probe(t, res.Output)
	if info.Width != 540 || info.Height != 960 || info.VideoCodec != "h264" || info.AudioCodec != "aac" || math.Abs(info.Duration-8) > 0.3 {
		t.Errorf("output %+v, want 540x960 h264/aac of 8 s (6 s + 2 s card)", info)
	}
	srt, _ := os.ReadFile(res.SRT)
	if !strings.Contains(string(srt), "{\\an8}") {
		t.Errorf("the SRT lost the literal text: %s", srt)
	}
	frame(t, res.Output, 0.8, "reframe-hook")
	frame(t, res.Output, 4, "reframe-captions")
	frame(t, res.Output, 7, "reframe-endcard")
}

func TestLandscapeFromPortraitAndLoudness(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 360, Height: 640, Scenes: []mediatest.Scene{{Colour: "testsrc2", Seconds: 6}}})
	r := &ffrender.Renderer{Preset: "ultrafast", Threads: 1} // the thread count given, as a worker does
	job := ffrender.Job{Source: src, SrcW: 360, SrcH: 640, HasAudio: true, Start: 0.5, End: 5.5, Width: 960, Height: 540, Dir: filepath.Join(dir, "job"),
		Text: captions.Spec{Style: captions.Bold, Words: words("a portrait source on a blurred fill", 0.2, 0.6)}}
	if err := os.MkdirAll(job.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := r.Render(context.Background(), job, func(string, float64) {})
	if err != nil {
		t.Fatal(err)
	}
	info := probe(t, res.Output)
	if info.Width != 960 || info.Height != 540 || math.Abs(info.Duration-5) > 0.3 {
		t.Errorf("output %+v", info)
	}
	if lufs := loudness(t, res.Output); math.Abs(lufs+14) > 1 {
		t.Errorf("integrated loudness %.1f LUFS, want -14 ± 1", lufs)
	}
	frame(t, res.Output, 2, "landscape-fill")
}

// loudness is the file's integrated loudness (EBU R128) as ffmpeg's
// ebur128 filter measures it.
func loudness(t *testing.T, file string) float64 {
	t.Helper()
	out, _ := exec.CommandContext(t.Context(), "ffmpeg", "-nostats", "-i", file, "-vn", "-af", "ebur128", "-f", "null", "-").CombinedOutput()
	s := string(out)
	i := strings.LastIndex(s, "I:")
	if i < 0 {
		t.Fatalf("no loudness in %s", s)
	}
	f := strings.Fields(s[i+2:])
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// frame writes a still of file at sec to testdata/examples when the
// examples are asked for (HOOKLINE_WRITE_EXAMPLES=1), for looking at.
func frame(t *testing.T, file string, sec float64, name string) {
	dir := testkit.ExamplesDirIfAsked(t)
	if dir == "" {
		return
	}
	run(t, "ffmpeg", "-v", "error", "-y", "-ss", fmt.Sprintf("%.2f", sec), "-i", file, "-frames:v", "1", filepath.Join(dir, name+".png"))
}
