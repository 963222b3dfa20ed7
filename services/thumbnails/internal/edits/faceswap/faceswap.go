// Package faceswap is the local engine of the face-swap edit (issue 15,
// ARCHITECTURE §7): it puts the face of one photo onto a face of another
// without any model beyond the face detector.
//
// The steps are the classical ones. The two eyes of each face are found
// as the round dark blobs (the irises) of its upper half, one on each
// side (falling back to their usual place in the detector's box when the
// picture does not show them clearly); a similarity transform (scale, rotation, translation) maps the
// source's eyes onto the target's and warps the source with bilinear
// sampling; an ellipse over the target's face, from forehead to chin,
// feathered with a Gaussian, is the region replaced. Inside it the warped
// face first takes the target face's colour statistics in CIELAB
// (Reinhard's transfer), so skin tone and contrast match, and is then
// blended in the gradient domain (Poisson cloning, solved by multigrid at
// the face's own resolution), so the lighting at the seam continues the
// target's and no edge shows.
//
// The package works on decoded images and detected faces; detection,
// loading, encoding and storage belong to the caller.
package faceswap

import (
	"context"
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/colour"
	"hookline.dev/pkg/vision"
)

// Largest returns the face of faces with the largest box, the one a
// face swap replaces: the most prominent face of a thumbnail is the one a
// viewer reads as its subject. Between boxes of equal area the earlier
// (more confident) face wins. ok is false when faces is empty.
func Largest(faces []vision.Face) (vision.Face, bool) {
	var best vision.Face
	ok := false
	for _, f := range faces {
		if !ok || area(f.Rect) > area(best.Rect) {
			best, ok = f, true
		}
	}
	return best, ok
}

func area(r image.Rectangle) int {
	if r.Empty() {
		return 0
	}
	return r.Dx() * r.Dy()
}

// Swap puts the face of source (inside sFace) onto target's tFace and
// returns the result at target's size, bounds at the origin. Only the
// feathered face region of the target changes; every other pixel is
// target's own. Boxes are the detector's (square, clamped to the picture);
// a face cut by the frame is aligned as the whole face and swapped up to
// the frame. A face box that does not overlap its image leaves nothing to
// swap, and Swap returns a copy of target. The feathering and the solver
// grow with the face, not only with the picture, so they stop when ctx
// ends; Swap then returns ctx's error.
func Swap(ctx context.Context, target image.Image, tFace vision.Face, source image.Image, sFace vision.Face) (*image.NRGBA, error) {
	out := toNRGBA(target)
	tb := target.Bounds()
	tBox := fullBox(tFace.Rect, tb).Sub(tb.Min)
	sBox := fullBox(sFace.Rect, source.Bounds())
	if tBox.Dx() < minFaceSide || sBox.Dx() < minFaceSide {
		return out, nil
	}
	tEyes := findEyes(out, tBox)
	sEyes := findEyes(source, sBox)
	toSource := align(tEyes, tBox, sEyes, sBox).inverse()

	m := faceMask(tBox, out.Rect, ctx.Done())
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.rect.Empty() {
		return out, nil
	}
	w, h := m.rect.Dx(), m.rect.Dy()
	tgt := planes(out, m.rect)
	src := warp(source, toSource, m.rect)
	transferColour(src, tgt, m.weight)

	// Poisson cloning solves for the correction d = result − src, which is
	// harmonic inside the region and equals target − src on its edge: the
	// same solution as matching the source's gradients, with a smooth
	// unknown that the multilevel solver converges on quickly.
	free := make([]bool, w*h)
	diff := make([]float32, 3*w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			free[i] = m.weight[i] > 0 && x > 0 && y > 0 && x < w-1 && y < h-1
			if !free[i] {
				for c := range 3 {
					diff[3*i+c] = tgt[3*i+c] - src[3*i+c]
				}
			}
		}
	}
	solveMembrane(diff, free, w, h, ctx.Done())
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for y := range h {
		row := out.Pix[out.PixOffset(m.rect.Min.X, m.rect.Min.Y+y):]
		for x := range w {
			i := y*w + x
			a := m.weight[i]
			if a == 0 {
				continue
			}
			for c := range 3 {
				v := a*(src[3*i+c]+diff[3*i+c]) + (1-a)*tgt[3*i+c]
				row[4*x+c] = colour.Byte(v)
			}
		}
	}
	return out, nil
}

// fullBox returns the part of face box r inside bounds, made square again
// when the frame cuts it: the detector's boxes are square and clamped to
// the picture, so a face at the edge comes back as its visible part. The
// eyes, the alignment and the mask need the whole face's geometry, so the
// square is restored on the side the frame cut (on both when it cut
// neither or both). A box outside bounds gives the empty rectangle.
func fullBox(r, bounds image.Rectangle) image.Rectangle {
	r = r.Intersect(bounds)
	if r.Empty() {
		return image.Rectangle{}
	}
	side := max(r.Dx(), r.Dy())
	r.Min.X, r.Max.X = squareUp(r.Min.X, r.Max.X, bounds.Min.X, bounds.Max.X, side)
	r.Min.Y, r.Max.Y = squareUp(r.Min.Y, r.Max.Y, bounds.Min.Y, bounds.Max.Y, side)
	return r
}

// squareUp widens the interval [lo, hi) to length side, towards the
// bound it touches.
func squareUp(lo, hi, minBound, maxBound, side int) (int, int) {
	grow := side - (hi - lo)
	switch {
	case grow == 0:
		return lo, hi
	case lo == minBound && hi != maxBound:
		return hi - side, hi
	case hi == maxBound && lo != minBound:
		return lo, lo + side
	}
	return lo - grow/2, lo - grow/2 + side
}

// minFaceSide is the smallest face box, in pixels, worth swapping: below
// it there are no eyes to find and the result would be a smudge.
const minFaceSide = 12

// toNRGBA copies img into a new non-premultiplied image whose bounds start
// at the origin.
func toNRGBA(img image.Image) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// planes returns the colour of img inside r as interleaved float RGB.
func planes(img *image.NRGBA, r image.Rectangle) []float32 {
	w, h := r.Dx(), r.Dy()
	p := make([]float32, 3*w*h)
	for y := range h {
		row := img.Pix[img.PixOffset(r.Min.X, r.Min.Y+y):]
		for x := range w {
			for c := range 3 {
				p[3*(y*w+x)+c] = float32(row[4*x+c])
			}
		}
	}
	return p
}

// similarity maps a point z (x + iy, in pixel-centre coordinates) to
// a·z + b: a scale and rotation by the complex factor a, then a
// translation by b.
type similarity struct {
	a, b complex128
}

func (s similarity) apply(z complex128) complex128 { return s.a*z + s.b }

func (s similarity) inverse() similarity {
	return similarity{a: 1 / s.a, b: -s.b / s.a}
}

// Limits on how far the eye-based alignment may depart from the one the
// two face boxes give. The detector's boxes are reliable about a face's
// place and size; the eyes refine them, and an eye search fooled by
// glasses or shadow must not tilt or shrink the face absurdly.
const (
	maxScaleDeviation = 1.35
	maxRotation       = 25 * math.Pi / 180
	maxShift          = 0.2 // of the target box's width
)

// align returns the similarity taking the source face onto the target
// face: the source's eyes onto the target's when both pairs were found and
// the result agrees with the boxes, else the source box onto the target
// box.
func align(tEyes eyePair, tBox image.Rectangle, sEyes eyePair, sBox image.Rectangle) similarity {
	byBox := boxSimilarity(sBox, tBox)
	if !tEyes.found || !sEyes.found {
		return byBox
	}
	sd := sEyes.right - sEyes.left
	if sd == 0 {
		return byBox
	}
	a := (tEyes.right - tEyes.left) / sd
	s := similarity{a: a, b: tEyes.left - a*sEyes.left}
	ratio := cmplxAbs(a) / real(byBox.a)
	centre := rectCentre(sBox)
	shift := cmplxAbs(s.apply(centre)-byBox.apply(centre)) / float64(tBox.Dx())
	if ratio > maxScaleDeviation || ratio < 1/maxScaleDeviation ||
		math.Abs(math.Atan2(imag(a), real(a))) > maxRotation || shift > maxShift {
		return byBox
	}
	return s
}

// boxSimilarity maps box from onto box to by scale and translation, the
// scale chosen from the widths (the detector's boxes are square).
func boxSimilarity(from, to image.Rectangle) similarity {
	a := complex(float64(to.Dx())/float64(from.Dx()), 0)
	return similarity{a: a, b: rectCentre(to) - a*rectCentre(from)}
}

func rectCentre(r image.Rectangle) complex128 {
	return complex(float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2)
}

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }
