package ffrender_test

import (
	"context"
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/mediatest"
)

// TestAutoZoomPunchesIn renders 12 s of a speaker's face drifting
// across the frame with autoZoom:
// the crop path reports a zoom on every point; the punch-ins reach at most
// 1.15, start at least 4 s apart, and never take the face out of the
// window; and the picture does zoom (the face is found larger at a peak).
func TestAutoZoomPunchesIn(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src, faceAt := slidingFace(t, dir, 13, 320, 200, 0.35, 0.55)
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	r := &ffrender.Renderer{Faces: det, Preset: "ultrafast"}
	text := "the rocket engine failed. we rebuilt the rocket engine in a year. then the engine flew again. " +
		"now every engine is tested twice. the rocket is ready to fly."
	job := ffrender.Job{Source: src, SrcW: 1280, SrcH: 720, HasAudio: true, Start: 0.5, End: 12.5, Width: 540, Height: 960,
		Dir: filepath.Join(dir, "job"), AutoZoom: true,
		Text: captions.Spec{Style: captions.Bold, Words: words(text, 0.2, 0.45), Keywords: []string{"rocket engine"}, Emphasis: true}}
	if err := os.MkdirAll(job.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := r.Render(context.Background(), job, func(string, float64) {})
	if err != nil {
		t.Fatal(err)
	}
	cw, h := float64(720*9/16), 720.0
	var starts, peaks []float64
	peak := 1.0
	for k, p := range res.Crop {
		if p.Zoom < 1 || p.Zoom > 1.15+1e-9 {
			t.Errorf("zoom %.4f at %.2f s, want 1..1.15", p.Zoom, p.T)
		}
		zoomed := p.Zoom > 1.0001
		if zoomed && (k == 0 || res.Crop[k-1].Zoom <= 1.0001) {
			starts = append(starts, p.T)
			peaks = append(peaks, p.T)
			peak = 1
		}
		if zoomed && p.Zoom > peak {
			peak, peaks[len(peaks)-1] = p.Zoom, p.T
		}
		// The face stays inside the window, zoomed or not.
		face := faceAt(job.Start + p.T)
		x0, y0 := float64(p.X), float64(p.Y)
		x1, y1 := x0+cw/p.Zoom, y0+h/p.Zoom
		if float64(face.Min.X) < x0-2 || float64(face.Max.X) > x1+2 || float64(face.Min.Y) < y0-2 || float64(face.Max.Y) > y1+2 {
			t.Errorf("at %.2f s (zoom %.3f) the face %v leaves the window %.0f,%.0f–%.0f,%.0f", p.T, p.Zoom, face, x0, y0, x1, y1)
		}
	}
	t.Logf("punch-ins start at %v s, peak at %v s", starts, peaks)
	if len(starts) < 2 {
		t.Fatalf("%d punch-ins in 12 s of emphasised lines: %v", len(starts), starts)
	}
	for k := 1; k < len(starts); k++ {
		if starts[k]-starts[k-1] < 4-0.25 {
			t.Errorf("punch-ins at %.2f and %.2f s: less than 4 s apart", starts[k-1], starts[k])
		}
	}
	// The face is drawn larger at the first peak than just before it.
	before, top := still(t, res.Output, math.Max(0, starts[0]-0.3)), still(t, res.Output, peaks[0])
	wb, wt := faceWidth(t, det, before), faceWidth(t, det, top)
	if wt < 1.06*wb {
		t.Errorf("the face is %.0f px wide before the punch-in and %.0f px at its peak: no zoom in the picture", wb, wt)
	}
	if examples := testkit.ExamplesDirIfAsked(t); examples != "" {
		save(t, before, examples, "autozoom-before")
		save(t, top, examples, "autozoom-peak")
	}
}

// faceWidth is the width of the largest face found in img.
func faceWidth(t *testing.T, det *vision.Detector, img image.Image) float64 {
	t.Helper()
	fs := det.Detect(img)
	if len(fs) == 0 {
		t.Fatal("no face in the frame")
	}
	w := 0
	for _, f := range fs {
		w = max(w, f.Rect.Dx())
	}
	return float64(w)
}
