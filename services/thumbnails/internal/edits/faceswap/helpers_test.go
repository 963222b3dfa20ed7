package faceswap

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/media/vision/dlib/dlibtest"
	"hookline.dev/pkg/testkit"
)

// swap is Swap with a live context, which must not fail.
func swap(tb testing.TB, target image.Image, tFace vision.Face, source image.Image, sFace vision.Face) *image.NRGBA {
	tb.Helper()
	out, err := Swap(tb.Context(), target, tFace, source, sFace)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// photo decodes pigo's sample face photo into an NRGBA image.
func photo(t testing.TB) *image.NRGBA {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	return toNRGBA(img)
}

// detector is dlib's face detector with its landmark model, the service's
// detector, loaded once for the package's tests.
func detector(t testing.TB) *dlib.Model { return dlibtest.Model(t) }

// detectOne returns the largest face dlib finds in img, with its
// landmarks, failing the test when there is none.
func detectOne(t testing.TB, img image.Image) vision.Face {
	t.Helper()
	f, ok := Largest(detector(t).Detect(img))
	if !ok {
		t.Fatal("no face detected")
	}
	return f
}

// evalPhoto is the evaluation photograph name as an NRGBA image at the
// origin (the camera man is greyscale, and is made RGB).
func evalPhoto(t testing.TB, name string) *image.NRGBA {
	t.Helper()
	return toNRGBA(testkit.EvalPhoto(t, name))
}

// placement describes how a picture is put into a new scene: mirrored
// (about its vertical centre line) when mirror is set, then scaled by
// scale and rotated by angle (radians) about its centre, whose centre
// lands on at.
type placement struct {
	mirror bool
	scale  float64
	angle  float64
	at     complex128
}

// compose draws pic into a w×h scene according to p, bilinearly, with
// each pixel's colour multiplied by tint; the scene elsewhere is bg(x, y).
func compose(pic *image.NRGBA, w, h int, p placement, tint [3]float64, bg func(x, y int) color.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	pw, ph := pic.Rect.Dx(), pic.Rect.Dy()
	c := complex(float64(pw)/2, float64(ph)/2)
	inv := 1 / complex(p.scale*math.Cos(p.angle), p.scale*math.Sin(p.angle))
	for y := range h {
		for x := range w {
			z := (complex(float64(x)+0.5, float64(y)+0.5) - p.at) * inv
			if p.mirror {
				z = complex(-real(z), imag(z))
			}
			z += c
			u, v := real(z)-0.5, imag(z)-0.5
			if u < 0 || v < 0 || u > float64(pw-1) || v > float64(ph-1) {
				out.SetNRGBA(x, y, bg(x, y))
				continue
			}
			x0, y0 := int(u), int(v)
			x1, y1 := min(x0+1, pw-1), min(y0+1, ph-1)
			fx, fy := u-float64(x0), v-float64(y0)
			var px [3]uint8
			for k := range 3 {
				at := func(xx, yy int) float64 { return float64(pic.Pix[pic.PixOffset(xx, yy)+k]) }
				top := at(x0, y0) + fx*(at(x1, y0)-at(x0, y0))
				bottom := at(x0, y1) + fx*(at(x1, y1)-at(x0, y1))
				px[k] = uint8(math.Min(255, math.Max(0, (top+fy*(bottom-top))*tint[k])+0.5))
			}
			out.SetNRGBA(x, y, color.NRGBA{px[0], px[1], px[2], 255})
		}
	}
	return out
}
