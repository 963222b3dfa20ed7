package faceswap

import (
	"image"
	"image/color"
	"math"
	"testing"
)

// pattern is a w×h picture with detail at every scale: rings and a
// diagonal ramp, no two neighbouring pixels alike.
func pattern(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			d := math.Hypot(float64(x-w/3), float64(y-h/2))
			img.SetNRGBA(x, y, color.NRGBA{
				uint8(128 + 120*math.Sin(d/3)), uint8((x*5 + y*3) % 256), uint8((x * y) % 251), 255,
			})
		}
	}
	return img
}

// enlarge repeats every pixel of img k×k times.
func enlarge(img *image.NRGBA, k int) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, k*img.Rect.Dx(), k*img.Rect.Dy()))
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			out.SetNRGBA(x, y, img.NRGBAAt(x/k, y/k))
		}
	}
	return out
}

// Sampling must be registered to the pixel: the identity gives back the
// picture exactly, and so does sampling a 3× enlargement at a third of
// its scale (the path that shrinks a large source face first).
func TestWarpIsRegistered(t *testing.T) {
	img := pattern(60, 45)
	r := image.Rect(0, 0, 60, 45)
	for name, c := range map[string]struct {
		src      *image.NRGBA
		toSource similarity
	}{
		"identity":       {img, similarity{a: 1}},
		"3× enlargement": {enlarge(img, 3), similarity{a: 3}},
	} {
		got := warp(c.src, c.toSource, r)
		worst := 0.0
		for y := range 45 {
			for x := range 60 {
				p := img.NRGBAAt(x, y)
				for k, v := range [3]uint8{p.R, p.G, p.B} {
					worst = math.Max(worst, math.Abs(float64(got[3*(y*60+x)+k])-float64(v)))
				}
			}
		}
		if worst > 0.01 {
			t.Errorf("%s: off by up to %.2f levels", name, worst)
		}
	}
}

// Half-way between two pixels the sample is their mean, and beyond the
// source's edge it repeats the edge.
func TestWarpInterpolatesAndClamps(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	src.SetNRGBA(0, 0, color.NRGBA{0, 100, 200, 255})
	src.SetNRGBA(1, 0, color.NRGBA{100, 200, 0, 255})
	// Target pixel x (centre x+0.5) samples the source at (x+0.5)/2 + 0.25:
	// pixel 1 at 1.0, half-way between the two source centres (0.5 and
	// 1.5); pixel 5 at 3.0, beyond the right edge.
	got := warp(src, similarity{a: 0.5, b: 0.25}, image.Rect(0, 0, 6, 1))
	if want := [3]float32{50, 150, 100}; [3]float32(got[3:6]) != want {
		t.Errorf("half-way sample %v, want %v", got[3:6], want)
	}
	if want := [3]float32{100, 200, 0}; [3]float32(got[15:18]) != want {
		t.Errorf("sample past the edge %v, want %v", got[15:18], want)
	}
}
