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

// grid maps the centre of every pixel of r through s.
func grid(s similarity, r image.Rectangle) []complex128 {
	out := make([]complex128, 0, r.Dx()*r.Dy())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			out = append(out, s.apply(complex(float64(x)+0.5, float64(y)+0.5)))
		}
	}
	return out
}

// Sampling must be registered to the pixel: the identity gives back the
// picture exactly, and so does sampling a 3× enlargement at a third of
// its scale (the path that shrinks a large source face first).
func TestSampleIsRegistered(t *testing.T) {
	img := pattern(60, 45)
	r := image.Rect(0, 0, 60, 45)
	for name, c := range map[string]struct {
		src      *image.NRGBA
		toSource similarity
	}{
		"identity":       {img, similarity{a: 1}},
		"3× enlargement": {enlarge(img, 3), similarity{a: 3}},
	} {
		got := sample(c.src, grid(c.toSource, r), r, r, cmplxAbs(c.toSource.a))
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
func TestSampleInterpolatesAndClamps(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	src.SetNRGBA(0, 0, color.NRGBA{0, 100, 200, 255})
	src.SetNRGBA(1, 0, color.NRGBA{100, 200, 0, 255})
	got := sample(src, []complex128{7, 1, 3}, image.Rect(0, 0, 3, 1), image.Rect(1, 0, 3, 1), 0.5)
	if want := [3]float32{50, 150, 100}; [3]float32(got[0:3]) != want {
		t.Errorf("half-way sample %v, want %v", got[0:3], want)
	}
	if want := [3]float32{100, 200, 0}; [3]float32(got[3:6]) != want {
		t.Errorf("sample past the edge %v, want %v", got[3:6], want)
	}
}

// The least-squares similarity recovers a known one exactly, and the
// alignment's mesh carries each target landmark onto the source's.
func TestAlignMapsLandmarksOntoLandmarks(t *testing.T) {
	s := scenes(t)["tilted astronaut ← face photo"]
	want := similarity{a: complex(0.8*math.Cos(0.3), 0.8*math.Sin(0.3)), b: complex(12, -7)}
	from := points(s.tFace.Landmarks)
	to := make([]complex128, len(from))
	for i, z := range from {
		to[i] = want.apply(z)
	}
	if got := fitSimilarity(from, to); cmplxAbs(got.a-want.a) > 1e-9 || cmplxAbs(got.b-want.b) > 1e-6 {
		t.Errorf("fitted %v, want %v", got, want)
	}
	al := align(s.tFace.Landmarks, s.sFace.Landmarks)
	for i, p := range s.tFace.Landmarks {
		r := image.Rect(p.X, p.Y, p.X+1, p.Y+1)
		pts, ok := al.mesh.Grid(r)
		// Inner-lip points may coincide with another one and are then
		// mapped by that one's source point.
		if !ok[0] || i < 60 && cmplxAbs(pts[0]-centre(s.sFace.Landmarks[i])) > 1e-6 {
			t.Errorf("landmark %d at %v maps to %v, want %v", i, p, pts[0], s.sFace.Landmarks[i])
		}
	}
}
