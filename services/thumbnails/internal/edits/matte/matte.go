// Package matte cuts the subject of a picture out of its background: the
// background-remove edit, and the first step of background-replace
// (issue 15, ARCHITECTURE §7), whose new backgrounds are package
// backdrop's.
//
// The default remover is classical segmentation, so the service works
// offline and the same picture always gives the same cut-out: GrabCut-class
// colour models seeded by the people in the picture (their faces, extended
// into heads and torsos) or, without faces, by a plain or graded backdrop
// flooded from the frame (plain.go) or else by saliency, a graph cut on a
// small working grid, and an edge-aware refinement of the alpha at full
// resolution. A user-supplied ONNX matting model can replace it (see ONNX).
//
// The package works on decoded images; loading, encoding and storage
// belong to the caller.
package matte

import (
	"context"
	"image"
	"slices"

	"hookline.dev/pkg/media/vision"
)

// Remover cuts the subject out of a picture.
type Remover interface {
	// Name identifies the implementation in the edit's recorded
	// parameters.
	Name() string
	// Remove returns img with the background transparent: the same size,
	// bounds at the origin, non-premultiplied colours, alpha 255 on the
	// subject. faces are the faces detected in img, in img's coordinates
	// (nil when there are none); a remover may use them as a hint. It
	// returns ctx's error when cancelled, and an implementation's own
	// errors when its model fails.
	Remove(ctx context.Context, img image.Image, faces []vision.Face) (*image.NRGBA, error)
}

// defaultWorkingSide is the longer side of the grid the classical remover
// segments on. Colour models and the graph cut need shapes, not detail;
// the refinement restores the detail at full size. The cost of the cut
// grows with the square of this side.
const defaultWorkingSide = 400

// Classical is the default remover: face- or saliency-seeded GrabCut-class
// segmentation with full-resolution edge refinement. The zero value is
// ready to use, and a Classical may be shared by goroutines.
type Classical struct {
	// WorkingSide is the longer side of the segmentation grid in pixels;
	// 0 means 400. Larger follows thin parts better and costs more.
	WorkingSide int
}

var _ Remover = Classical{}

// Name implements Remover.
func (Classical) Name() string { return "classical" }

// Remove implements Remover. Faces seed a person: the face itself is
// certainly subject, and a head and torso below it probably are. Without
// faces, a plain or graded backdrop is what the frame's colour field
// reaches and the subject the rest, wherever it sits (a backdrop with
// nothing on it gives a wholly transparent cut-out); on any other
// picture the salient region near the centre seeds the subject. The
// picture's border, away from a body the frame cuts, seeds the
// background. Only ctx's error is returned.
func (c Classical) Remove(ctx context.Context, img image.Image, faces []vision.Face) (*image.NRGBA, error) {
	full := vision.RGBA8(img, 0)
	fw, fh := full.Rect.Dx(), full.Rect.Dy()
	if fw == 0 || fh == 0 {
		return image.NewNRGBA(full.Rect), nil
	}
	side := c.WorkingSide
	if side <= 0 {
		side = defaultWorkingSide
	}
	small := vision.RGBA8(full, side)
	w, h := small.Rect.Dx(), small.Rect.Dy()

	px := colours(small)
	origin := img.Bounds().Min
	kx, ky := float64(w)/float64(fw), float64(h)/float64(fh)
	var s seed
	var known []label
	if marked := landmarksOf(faces, origin); len(marked) > 0 {
		// The faces' hulls and throats are known at full size too, so
		// that the refinement cannot thin them where skin and wall meet.
		s = landmarkSeed(w, h, framesOf(marked, kx, ky), px)
		sure := make([]bool, fw*fh)
		for _, f := range framesOf(marked, 1, 1) {
			f.certain(sure, fw, fh)
		}
		known = make([]label, fw*fh)
		for i, v := range sure {
			if v {
				known[i] = fixedFG
			}
		}
	} else if people := scaleFaces(faces, origin, kx, ky); len(people) > 0 {
		s = personSeed(w, h, people, px)
	} else if plain, ok, subject := plainSeed(w, h, px); ok {
		if !subject {
			// A backdrop and nothing on it: nothing to cut out.
			return image.NewNRGBA(full.Rect), nil
		}
		s = plain
	} else {
		var err error
		if s, err = salientSeed(ctx, w, h, vision.Saliency(small), px); err != nil {
			return nil, err
		}
	}
	return cut(ctx, full, px, s, known)
}

// cut segments the working grid from seed s, refines the labels into an
// alpha at full size, holds the pixels known (at full size; nil for none)
// to their side, and unmixes the edge colours. Only ctx's error is
// returned.
func cut(ctx context.Context, full *image.RGBA, px []rgb, s seed, known []label) (*image.NRGBA, error) {
	fg, err := segment(ctx, px, s)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	alpha := refineAlpha(full, fg, s.w, s.h)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, k := range known {
		switch k {
		case fixedFG:
			alpha.V[i] = 1
		case fixedBG:
			alpha.V[i] = 0
		}
	}
	// Pure colours are looked for a little beyond the refined band.
	out := unmix(full, alpha, max(2, (2*bandRadius+1)*full.Rect.Dx()/s.w), known)
	if s.strict {
		oneBody(out, full, known)
	} else {
		mainRegions(out, full, slices.Contains(s.fixed, fixedFG))
	}
	return out, nil
}

// mainRegions clears, in a full-size cut-out without a known subject,
// what the working grid's keepSubject would have dropped: the regions at
// least half opaque that are rivalShare times smaller than the largest
// (a speck the refinement raised, a light beside the subject), and fills
// the small holes and pockets of what stays with the picture's colours.
// anchored tells whether the seed fixed a subject.
func mainRegions(out *image.NRGBA, full *image.RGBA, anchored bool) {
	w, h := out.Rect.Dx(), out.Rect.Dy()
	on := make([]bool, w*h)
	for i := range on {
		on[i] = out.Pix[(i/w)*out.Stride+(i%w)*4+3] >= 128
	}
	comp, sizes := components8(on, w, h)
	share := rivalShare(anchored)
	largest := 0
	for _, n := range sizes {
		largest = max(largest, n)
	}
	for i, c := range comp {
		if c >= 0 && share*sizes[c] < largest {
			on[i] = false
		}
	}
	// What is not half opaque and not near a kept region goes too: the
	// faint rim of a dropped speck.
	near := dilate(on, w, h, 2)
	for i, v := range near {
		if !v || (comp[i] >= 0 && !on[i]) {
			copy(out.Pix[(i/w)*out.Stride+(i%w)*4:][:4], []uint8{0, 0, 0, 0})
		}
	}
	solid := append([]bool(nil), on...)
	fillSmallHoles(solid, w, h, w*h/100, pocketLimit(anchored, w, h))
	fillFrom(out, full, on, solid)
}

// fillFrom makes the pixels of out that are set in solid and not in on
// opaque with full's colours: the holes a cut-out's cleanup closed,
// which may have been cleared to transparent black.
func fillFrom(out *image.NRGBA, full *image.RGBA, on, solid []bool) {
	w := out.Rect.Dx()
	for i, v := range solid {
		if v && !on[i] {
			d := out.Pix[(i/w)*out.Stride+(i%w)*4:][:4]
			s := full.Pix[(i/w)*full.Stride+(i%w)*4:][:4]
			d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 255
		}
	}
}

// oneBody makes the full-size cut-out of a person one region without
// holes, as the working grid's labels are: the refinement follows colour
// edges and may cut a thin part loose or open a hole. Pixels at least
// half opaque and connected to a known subject pixel stay; the rest turn
// transparent, and what they enclose turns opaque with its own colour.
func oneBody(out *image.NRGBA, full *image.RGBA, known []label) {
	w, h := out.Rect.Dx(), out.Rect.Dy()
	on := make([]bool, w*h)
	for i := range on {
		on[i] = out.Pix[(i/w)*out.Stride+(i%w)*4+3] >= 128
	}
	comp, sizes := components8(on, w, h)
	keep := make([]bool, len(sizes))
	for i, c := range comp {
		if c >= 0 && known[i] == fixedFG {
			keep[c] = true
		}
	}
	for i, c := range comp {
		on[i] = c >= 0 && keep[c]
		if c >= 0 && !keep[c] {
			copy(out.Pix[(i/w)*out.Stride+(i%w)*4:][:4], []uint8{0, 0, 0, 0})
		}
	}
	solid := append([]bool(nil), on...)
	fillHoles(solid, w, h)
	fillFrom(out, full, on, solid)
}

// scaleFaces maps face boxes from the picture's coordinates (origin at
// min) to the working grid's, leaving out those too small there to shape
// a body.
func scaleFaces(faces []vision.Face, origin image.Point, kx, ky float64) []image.Rectangle {
	var out []image.Rectangle
	for _, f := range faces {
		r := f.Rect.Sub(origin)
		s := image.Rect(
			int(float64(r.Min.X)*kx), int(float64(r.Min.Y)*ky),
			int(float64(r.Max.X)*kx+0.5), int(float64(r.Max.Y)*ky+0.5),
		)
		if s.Dx() >= minFaceSide && s.Dy() >= minFaceSide {
			out = append(out, s)
		}
	}
	return out
}

// minFaceSide is the smallest face, in working-grid pixels, that seeds a
// person.
const minFaceSide = 4

// colours lists the pixels of an origin-based RGBA image row by row.
func colours(img *image.RGBA) []rgb {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := make([]rgb, 0, w*h)
	for y := range h {
		pix := img.Pix[y*img.Stride:]
		for x := range w {
			out = append(out, rgb{float32(pix[4*x]), float32(pix[4*x+1]), float32(pix[4*x+2])})
		}
	}
	return out
}

// Coverage is the alpha channel of a cut-out: where the subject is.
func Coverage(cut *image.NRGBA) *image.Alpha {
	out := image.NewAlpha(image.Rect(0, 0, cut.Rect.Dx(), cut.Rect.Dy()))
	for y := range out.Rect.Dy() {
		src := cut.Pix[y*cut.Stride:]
		dst := out.Pix[y*out.Stride : (y+1)*out.Stride]
		for x := range dst {
			dst[x] = src[4*x+3]
		}
	}
	return out
}

// Separated says cut (a Remover's result) holds a subject apart from a
// background: at least minSubject of it is half opaque or more, and at
// least minCleared of it less. A cut-out wholly opaque is the picture
// unchanged, one wholly transparent is nothing: either way the remover
// found no subject, and the edit must say so rather than answer the
// picture as a cut-out.
func Separated(cut *image.NRGBA) bool {
	w, h := cut.Rect.Dx(), cut.Rect.Dy()
	opaque := 0
	for y := range h {
		row := cut.Pix[y*cut.Stride:]
		for x := range w {
			if row[4*x+3] >= 128 {
				opaque++
			}
		}
	}
	n := float64(w * h)
	return float64(opaque) >= minSubject*n && float64(w*h-opaque) >= minCleared*n
}

// The least shares of a cut-out that must be subject and background for
// it to have separated anything (see Separated): a subject of a few
// hundred pixels in a thumbnail is a speck, and a background of less
// than a hundredth of it a remover's fringe.
const (
	minSubject = 0.002
	minCleared = 0.01
)

// Trimap cuts img out with a trimap as the hint: trimap is img's size
// (its bounds' origin may differ), white where the subject certainly is,
// black where the background is, anything between undecided. The colour
// models learn from the certain parts, the graph cut decides the rest on
// the working grid, and the certain parts hold at full size. Only ctx's
// error is returned.
func (c Classical) Trimap(ctx context.Context, img, trimap image.Image) (*image.NRGBA, error) {
	full := vision.RGBA8(img, 0)
	fw, fh := full.Rect.Dx(), full.Rect.Dy()
	if fw == 0 || fh == 0 {
		return image.NewNRGBA(full.Rect), nil
	}
	tri := vision.RGBA8(trimap, 0)
	known := make([]label, fw*fh)
	for y := range min(fh, tri.Rect.Dy()) {
		for x := range min(fw, tri.Rect.Dx()) {
			switch v := tri.Pix[y*tri.Stride+4*x]; {
			case v >= 250:
				known[y*fw+x] = fixedFG
			case v <= 5:
				known[y*fw+x] = fixedBG
			}
		}
	}
	side := c.WorkingSide
	if side <= 0 {
		side = defaultWorkingSide
	}
	small := vision.RGBA8(full, side)
	w, h := small.Rect.Dx(), small.Rect.Dy()
	s := seed{w: w, h: h, prior: make([]float64, w*h), fixed: make([]label, w*h), weight: 0.5}
	for y := range h {
		fy := min((2*y+1)*fh/(2*h), fh-1)
		for x := range w {
			i := y*w + x
			s.fixed[i] = known[fy*fw+min((2*x+1)*fw/(2*w), fw-1)]
			s.prior[i] = 0.5
			switch s.fixed[i] {
			case fixedFG:
				s.prior[i] = priorHead
			case fixedBG:
				s.prior[i] = priorOutside
			}
		}
	}
	return cut(ctx, full, colours(small), s, known)
}
