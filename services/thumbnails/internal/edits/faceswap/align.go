package faceswap

import (
	"image"
	"math"

	"hookline.dev/pkg/media/vision"
)

// similarity maps a point z (x + iy, in pixel-centre coordinates) to
// a·z + b: a scale and rotation by the complex factor a, then a
// translation by b.
type similarity struct {
	a, b complex128
}

func (s similarity) apply(z complex128) complex128 { return s.a*z + s.b }

// fitSimilarity returns the similarity taking from onto to (same length,
// at least two distinct points) with the least squared error: in complex
// numbers the centred least-squares problem is linear, a = Σ conj(f)·t /
// Σ |f|², with b carrying centroid onto centroid.
func fitSimilarity(from, to []complex128) similarity {
	var cf, ct complex128
	for i := range from {
		cf += from[i]
		ct += to[i]
	}
	n := complex(float64(len(from)), 0)
	cf, ct = cf/n, ct/n
	var num complex128
	var den float64
	for i := range from {
		f := from[i] - cf
		num += complex(real(f), -imag(f)) * (to[i] - ct)
		den += real(f)*real(f) + imag(f)*imag(f)
	}
	if den == 0 {
		return similarity{a: 1, b: ct - cf}
	}
	a := num / complex(den, 0)
	return similarity{a: a, b: ct - a*cf}
}

// frameMargin is how far, in target face widths, the frame of boundary
// points stands off the target's landmarks: far enough that the face
// region and its blend (the hull, lifted over the forehead, plus a pixel)
// lie inside the mesh.
const frameMargin = 0.6

// alignment carries target pixels onto the source picture: the 68
// landmarks of the target face onto the source face's, the pixels between
// them by the piecewise-affine mesh over their Delaunay triangulation, and
// the rest of a frame around the face by the similarity that best maps
// the target's landmarks onto the source's (the frame's eight points are
// mapped by it, so the mesh eases from the face's own shape to a rigid
// placement).
type alignment struct {
	// coarse is the least-squares similarity, target to source.
	coarse similarity
	mesh   vision.Mesh
}

// align returns the alignment of target landmarks t with source
// landmarks s (each in its own picture's coordinates).
func align(t, s *vision.Landmarks) alignment {
	tp, sp := points(t), points(s)
	coarse := fitSimilarity(tp, sp)
	r := t.Bounds()
	m := frameMargin * t.FaceWidth()
	x0, y0 := float64(r.Min.X)-m, float64(r.Min.Y)-m
	x1, y1 := float64(r.Max.X)+m, float64(r.Max.Y)+m
	xm, ym := (x0+x1)/2, (y0+y1)/2
	for _, p := range [8]complex128{
		complex(x0, y0), complex(xm, y0), complex(x1, y0), complex(x1, ym),
		complex(x1, y1), complex(xm, y1), complex(x0, y1), complex(x0, ym),
	} {
		tp = append(tp, p)
		sp = append(sp, coarse.apply(p))
	}
	return alignment{coarse: coarse, mesh: vision.NewMesh(tp, sp)}
}

// points returns the landmarks as pixel-centre coordinates x + iy.
func points(l *vision.Landmarks) []complex128 {
	out := make([]complex128, 0, len(l)+8)
	for _, p := range l {
		out = append(out, centre(p))
	}
	return out
}

func centre(p image.Point) complex128 {
	return complex(float64(p.X)+0.5, float64(p.Y)+0.5)
}

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }
