// Package faceswap is the local engine of the face-swap edit (issue 15,
// ARCHITECTURE §7): it puts the face of one photo onto a face of another
// without any model beyond the face detector and its 68 landmarks
// (pkg/media/vision/dlib).
//
// The steps are the classical ones. The similarity (scale, rotation,
// translation) that best maps the target's landmarks onto the source's
// places the source roughly; then a piecewise-affine warp over the
// Delaunay triangulation of the target's landmarks, plus a frame of points
// around the face that the similarity carries, moves every feature of the
// source onto the target's: its eyes onto the target's eyes, its mouth onto
// the target's mouth, so the new face takes the target's pose and
// expression. The region replaced is the target face's hull (jaw line and
// lower forehead) where the warped source face also is, eroded and
// feathered. Inside it the warped face first takes the target face's
// colour statistics in CIELAB (Reinhard's transfer), so skin tone and
// contrast match, and is then blended in the gradient domain (Poisson
// cloning, solved by multigrid at the face's own resolution), so the
// lighting at the seam continues the target's and no edge shows.
//
// The package works on decoded images and detected faces; detection,
// loading, encoding and storage belong to the caller.
package faceswap

import (
	"context"
	"errors"
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/media/vision"
)

// ErrNoLandmarks is returned by Swap for a face without landmarks: a
// detector that finds boxes only gives nothing to align.
var ErrNoLandmarks = errors.New("faceswap: the face has no landmarks")

// Largest returns the face of faces with the largest box among those with
// landmarks, the one a face swap replaces: the most prominent face of a
// thumbnail is the one a viewer reads as its subject. Between boxes of
// equal area the earlier (more confident) face wins. ok is false when no
// face has landmarks.
func Largest(faces []vision.Face) (vision.Face, bool) {
	var best vision.Face
	ok := false
	for _, f := range faces {
		if f.Landmarks != nil && (!ok || area(f.Rect) > area(best.Rect)) {
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

// Swap puts the face of source (sFace) onto target's tFace and returns
// the result at target's size, bounds at the origin. Both faces need
// their landmarks (ErrNoLandmarks otherwise). Only the feathered face
// region of the target changes; every other pixel is target's own. A face
// cut by the frame is aligned by all its landmarks (the detector places
// them past the frame) and swapped up to the frame; a source face cut by
// its frame puts in only what its picture shows. A face too small to
// hold features, or outside its picture, leaves nothing to swap, and Swap
// returns a copy of target. The solver grows with the face, not only
// with the picture, so it stops when ctx ends; Swap then returns ctx's
// error.
func Swap(ctx context.Context, target image.Image, tFace vision.Face, source image.Image, sFace vision.Face) (*image.NRGBA, error) {
	if tFace.Landmarks == nil || sFace.Landmarks == nil {
		return nil, ErrNoLandmarks
	}
	out := toNRGBA(target)
	tl := tFace.Landmarks.Translate(target.Bounds().Min.Mul(-1))
	sl := sFace.Landmarks
	faceWidth := tl.FaceWidth()
	if faceWidth < minFaceWidth || sl.FaceWidth() < minFaceWidth {
		return out, nil
	}
	al := align(tl, sl)
	tHull := hullOf(tl.Hull(maskForehead))
	reach := int(math.Ceil((maskErode+maskFeather)*faceWidth)) + 1
	work := tHull.bounds().Inset(-1).Intersect(out.Rect.Inset(-reach))
	if work.Intersect(out.Rect).Empty() {
		return out, nil
	}
	toSource, inMesh := al.mesh.Grid(work)
	mouth := hullOf(tl[vision.InnerLipsStart:vision.InnerLipsEnd])
	m := faceMask(tHull, mouth, hullOf(sl.Hull(maskForehead)), source.Bounds(), toSource, inMesh, work, out.Rect, faceWidth)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.rect.Empty() {
		return out, nil
	}
	w, h := m.rect.Dx(), m.rect.Dy()
	tgt := planes(out, m.rect)
	src := sample(source, toSource, work, m.rect, cmplxAbs(al.coarse.a))
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

// minFaceWidth is the narrowest face, ear to ear in pixels, worth
// swapping: below it the landmarks crowd into a few pixels and the result
// would be a smudge.
const minFaceWidth = 12

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
