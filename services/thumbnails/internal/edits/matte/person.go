package matte

import (
	"image"
	"math"
	"slices"

	"hookline.dev/pkg/media/vision"
)

// A person seeded by landmarks. The face's outline (the jaw line, and the
// brows lifted to the hairline: vision.Landmarks.Hull) is known to be the
// person, and so is the throat right under the chin; the colour models
// only decide the rest (hair, the neck's sides, shoulders, the body).
// Seeding from the points rather than from a detection box matters where
// the skin is close to the wall behind it: a box's "certain" core is a
// rectangle that both misses the jaw and takes in background, while the
// hull follows the face itself.
const (
	// foreheadLift is the hull's lift above the brows, as a fraction of
	// the brows-to-chin distance: 0.35 reaches the hairline on most faces.
	foreheadLift = 0.35
	// throatDepth is how far below the chin the throat strip reaches, in
	// face heights (the hull's, chin to hairline): half the neck a
	// frontal portrait shows, the rest is left to the colours.
	throatDepth = 0.15
)

// Face geometry measured on the landmarks, in the coordinates they are in.
type faceFrame struct {
	hull     []image.Point
	chin     image.Point
	mouthL   int     // x of the mouth's corners
	mouthR   int     //
	neckL    int     // x of the jaw's lower third's sides (points 5 and 11)
	neckR    int     //
	neckTop  int     // y where the jaw's lower third starts
	width    float64 // ear to ear
	height   float64 // chin to hairline
	cx, topY float64 // the hull's centre column and top row
}

func frameOf(l *vision.Landmarks) faceFrame {
	hull := l.Hull(foreheadLift)
	top := hull[0].Y
	for _, p := range hull {
		top = min(top, p.Y)
	}
	f := faceFrame{
		hull:    hull,
		chin:    l[8],
		mouthL:  min(l[48].X, l[54].X),
		mouthR:  max(l[48].X, l[54].X),
		neckL:   min(l[5].X, l[11].X),
		neckR:   max(l[5].X, l[11].X),
		neckTop: min(l[5].Y, l[11].Y),
		width:   l.FaceWidth(),
		height:  float64(l[8].Y - top),
		topY:    float64(top),
	}
	f.cx, _ = l.Centroid(vision.JawStart, vision.JawEnd)
	return f
}

// throat is the strip under the chin that is the person's neck (or a
// collar) in any upright head-and-shoulders picture: as wide as the
// mouth, throatDepth face heights deep.
func (f faceFrame) throat() image.Rectangle {
	return neckBand(f.chin, f.mouthL, f.mouthR, f.height, throatDepth)
}

// NeckBand is the strip below the chin of the face l marks, as wide as
// the mouth and depth face heights (chin to hairline) deep: where the
// neck or a collar is in a head-and-shoulders picture.
func NeckBand(l *vision.Landmarks, depth float64) image.Rectangle {
	f := frameOf(l)
	return neckBand(f.chin, f.mouthL, f.mouthR, f.height, depth)
}

func neckBand(chin image.Point, left, right int, height, depth float64) image.Rectangle {
	return image.Rect(left, chin.Y, right+1, chin.Y+int(math.Round(depth*height)))
}

// certain marks, on a w×h grid, the pixels the face's landmarks make the
// person: inside the hull, or in the throat strip.
func (f faceFrame) certain(m []bool, w, h int) {
	fillPolygon(m, w, h, f.hull)
	r := f.throat().Intersect(image.Rect(0, 0, w, h))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			m[y*w+x] = true
		}
	}
}

// landmarkSeed builds the prior of people whose landmarks are known, on
// the working grid: the hull and the throat fixed to the subject, hair
// (an ellipse around the hull, higher than it) and the neck and
// shoulders below the chin probable, everything else unlikely; the
// border and what lies well outside the bodies in the border's colours
// fixed to the background, as for box-seeded people.
func landmarkSeed(w, h int, faces []faceFrame, px []rgb) seed {
	s := seed{w: w, h: h, prior: make([]float64, w*h), fixed: make([]label, w*h), weight: 2, strict: true, outsideBG: true}
	for i := range s.prior {
		s.prior[i] = priorOutside
	}
	sure := make([]bool, w*h)
	// Below the highest shoulders a body may go anywhere (arms, a lean,
	// a bag): the colours decide there, against a background model learnt
	// above them.
	body := h
	for _, f := range faces {
		f.certain(sure, w, h)
		body = min(body, f.chin.Y-int(shoulderRise*f.height))
		fw, fh := f.width, f.height
		// Hair and ears: an ellipse over the hull, its top half a face
		// height above the hairline.
		hcx, hcy := f.cx, f.topY+0.45*fh
		hrx, hry := 0.62*fw, 0.75*fh
		chin := float64(f.chin.Y)
		neckX := float64(f.mouthL+f.mouthR) / 2
		for y := range h {
			fy := float64(y) + 0.5
			for x := range w {
				fx := float64(x) + 0.5
				r := math.Hypot((fx-hcx)/hrx, (fy-hcy)/hry)
				p := ramp(r, 0.85, 1.3, priorHead, priorOutside)
				if fy > chin-0.2*fh {
					q := math.Abs(fx-neckX) / torsoHalfWidth(fy-chin, fw, fh)
					p = max(p, ramp(q, 0.8, 1.3, priorTorso, priorBody))
				}
				i := y*w + x
				s.prior[i] = max(s.prior[i], p)
			}
		}
	}
	for i, v := range sure {
		if v {
			s.fixed[i] = fixedFG
			s.prior[i] = priorHead
		}
	}
	s.fixBorder(priorOutside+0.01, body, nil)
	unlike := unlikeBorder(w, h, body, px, s.prior)
	s.bodyOf(faces, sure, unlike, px)
	outside := make([]bool, w*h)
	for i, p := range s.prior[:body*w] {
		outside[i] = p <= priorOutside && !unlike[i]
	}
	// Beside the jaw and the neck, what is not the face, the neck or
	// the hair is the wall behind them: the head ellipse's prior runs
	// out slowly there, and in a tight crop (a saved face) the colour
	// models have too little wall to learn it from. A picture with room
	// around the face has: there the colour models decide as before
	// (fixing more wall shifts the background model, and the
	// astronaut's black table, behind the black helmet in her lap,
	// grows in).
	beside := make([]bool, w*h)
	for _, f := range faces {
		if f.height >= tightFace*float64(h) {
			f.besideNeck(beside, w, h)
		}
	}
	like := likeBorder(w, h, body, px, s.prior)
	for i, v := range beside {
		outside[i] = outside[i] || (v && like[i])
	}
	s.fixOutside(outside)
	return s
}

// bodyOf raises to priorTorso the prior of what joins the face's sure
// pixels in colours the frame's model finds unlike its own, by a short
// path of small colour steps: a dark coat or hair against a sky and
// grass, which the torso's shape misses when the body leans away from
// under the chin. It starts beside the sure pixels, so a colour edge
// round the face (skin to coat) does not stop it, and walks only
// through colours unlike the frame's, a short way in colour: a black
// table beyond an orange suit stays apart. When the body it finds below
// the chins, outside the torsoes' shape, is larger than the faces, the
// body leans away from under them: what that shape expected and the walk
// did not reach falls back to priorBody (the grass under a man bent over
// his camera).
func (s *seed) bodyOf(faces []faceFrame, sure, unlike []bool, px []rgb) {
	w, h := s.w, s.h
	next := dilate(sure, w, h, 2)
	for i := range next {
		next[i] = next[i] && !sure[i] && unlike[i]
	}
	reach := geodesic(w, h, px, noiseStep, next, unlike, bodyReach)
	chin, area := h, 0.0
	for _, f := range faces {
		chin = min(chin, f.chin.Y)
		area += f.width * f.height
	}
	leaning := 0
	for i, d := range reach {
		if math.IsInf(d, 1) || s.fixed[i] != free {
			continue
		}
		if i/w > chin && s.prior[i] < priorTorso {
			leaning++
		}
		s.prior[i] = max(s.prior[i], priorTorso)
	}
	if float64(leaning) <= area {
		return
	}
	for i := chin * w; i < w*h; i++ {
		if math.IsInf(reach[i], 1) && s.fixed[i] == free {
			s.prior[i] = min(s.prior[i], priorBody)
		}
	}
}

// bodyReach is how far, in colour steps beyond the noise (8-bit units,
// summed along the path), a body walks from the face (see bodyOf).
const bodyReach = 12.0

// tightFace is the face height, as a fraction of the picture's, from
// which a picture is a tight crop of the face.
const tightFace = 0.35

// Neck geometry, in face widths (ear to ear) and heights (chin to
// hairline).
const (
	// neckMargin widens the neck measured on the jaw on each side: a
	// neck's muscles flare below the jaw, a collar stands off it.
	neckMargin = 0.08
	// jawMargin widens the face's outline beside the jaw, for the
	// landmarks' error and the cheek's edge.
	jawMargin = 0.05
	// neckDepth is how far below the chin the neck runs before the
	// shoulders widen the body (torsoHalfWidth's neck, 0.35).
	neckDepth = 0.35
)

// besideNeck marks, on a w×h grid, the pixels beside the jaw and the
// neck that are neither: from the level of the jaw's lower third down to
// the shoulders, outside the face's outline (widened by jawMargin) and
// outside the neck, which is about as wide as the jaw's lower third.
func (f faceFrame) besideNeck(m []bool, w, h int) {
	face := make([]bool, w*h)
	fillPolygon(face, w, h, f.hull)
	face = dilate(face, w, h, max(1, int(math.Round(jawMargin*f.width))))
	margin := neckMargin * f.width
	left, right := float64(f.neckL)-margin, float64(f.neckR)+margin
	bottom := min(h, f.chin.Y+int(math.Round(neckDepth*f.height)))
	for y := max(0, f.neckTop); y < bottom; y++ {
		for x := range w {
			fx := float64(x) + 0.5
			if i := y*w + x; !face[i] && (fx < left || fx > right) {
				m[i] = true
			}
		}
	}
}

// shoulderRise is how far above the chin, in face heights, a body's
// top may be: raised shoulders, a lean forward, a spacesuit's collar ring.
const shoulderRise = 0.4

// priorBody is the prior below the chin away from the torso: undecided
// but leaning to the background.
const priorBody = 0.15

// landmarksOf lists the landmarks of the faces that have them, moved
// from the picture's coordinates (origin at min) to the origin.
func landmarksOf(faces []vision.Face, origin image.Point) []vision.Landmarks {
	var out []vision.Landmarks
	for _, f := range faces {
		if f.Landmarks != nil {
			out = append(out, *f.Landmarks.Translate(origin.Mul(-1)))
		}
	}
	return out
}

// framesOf measures the faces marked by landmarks scaled by kx, ky,
// leaving out those too small there to shape a body.
func framesOf(marked []vision.Landmarks, kx, ky float64) []faceFrame {
	var out []faceFrame
	for _, l := range marked {
		for i, p := range l {
			l[i] = image.Pt(int(math.Round(float64(p.X)*kx)), int(math.Round(float64(p.Y)*ky)))
		}
		if fr := frameOf(&l); fr.width >= minFaceSide && fr.height >= minFaceSide {
			out = append(out, fr)
		}
	}
	return out
}

// fillPolygon sets the pixels of the w×h mask m whose centres lie inside
// the closed polygon pts (even-odd rule), one scanline at a time.
func fillPolygon(m []bool, w, h int, pts []image.Point) {
	if len(pts) < 3 {
		return
	}
	top, bottom := pts[0].Y, pts[0].Y
	for _, p := range pts {
		top, bottom = min(top, p.Y), max(bottom, p.Y)
	}
	xs := make([]float64, 0, 8)
	for y := max(top, 0); y <= min(bottom, h-1); y++ {
		fy := float64(y) + 0.5
		xs = xs[:0]
		for i, a := range pts {
			b := pts[(i+1)%len(pts)]
			ay, by := float64(a.Y), float64(b.Y)
			if (ay <= fy) == (by <= fy) {
				continue
			}
			t := (fy - ay) / (by - ay)
			xs = append(xs, float64(a.X)+t*float64(b.X-a.X))
		}
		slices.Sort(xs)
		for k := 0; k+1 < len(xs); k += 2 {
			x0 := max(int(math.Ceil(xs[k]-0.5)), 0)
			x1 := min(int(math.Floor(xs[k+1]-0.5)), w-1)
			for x := x0; x <= x1; x++ {
				m[y*w+x] = true
			}
		}
	}
}
