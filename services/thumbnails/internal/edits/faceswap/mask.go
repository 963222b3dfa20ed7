package faceswap

import (
	"image"
	"math"
)

// The replaced region, in face widths (ear to ear, Landmarks.FaceWidth).
// It is the face's hull, the jaw line closed over the brows lifted by
// maskForehead (of the brows-to-chin distance), so the lower forehead is
// swapped while the hairline, hair and ears stay the target's: that is
// what makes the result read as the target's head with a new face. The
// hull's edge runs along the face's outline, where the landmarks may be
// a few pixels off and the background begins, so the region is eroded by
// maskErode and then ramps up over maskFeather: the blend's fixed edge
// lies on the target's skin, and the source's face fades in over a few
// pores rather than at a line.
const (
	maskForehead = 0.08
	maskErode    = 0.03
	maskFeather  = 0.07
	// mouthFeather is the ramp, in face widths, around the target's open
	// mouth, which stays the target's: a source photographed with its
	// mouth closed has nothing to fill it with but its lips stretched, and
	// the target's teeth and tongue belong to the target's expression,
	// which the swap keeps.
	mouthFeather = 0.025
)

// mask is the feathered face region of a target: weight (0..1, row-major
// over rect) is how much of the swapped face a pixel shows. Every pixel
// outside rect, and every pixel of weight exactly 0, keeps the target's
// colour.
type mask struct {
	rect   image.Rectangle
	weight []float32
}

// polygon is a closed outline, points as x + iy.
type polygon []complex128

func hullOf(pts []image.Point) polygon {
	out := make(polygon, len(pts))
	for i, p := range pts {
		out[i] = centre(p)
	}
	return out
}

// holds reports whether z is inside p (even–odd rule).
func (p polygon) holds(z complex128) bool {
	in := false
	x, y := real(z), imag(z)
	for i, j := 0, len(p)-1; i < len(p); j, i = i, i+1 {
		a, b := p[i], p[j]
		if (imag(a) > y) != (imag(b) > y) &&
			x < real(a)+(y-imag(a))*(real(b)-real(a))/(imag(b)-imag(a)) {
			in = !in
		}
	}
	return in
}

// bounds is the smallest pixel rectangle holding p.
func (p polygon) bounds() image.Rectangle {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, z := range p {
		minX, maxX = math.Min(minX, real(z)), math.Max(maxX, real(z))
		minY, maxY = math.Min(minY, imag(z)), math.Max(maxY, imag(z))
	}
	return image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY)))
}

// faceMask returns the region to replace for a target face of width
// faceWidth with hull tHull and open mouth tMouth (its inner lips): the
// pixels inside the hull, away from the mouth, whose source point
// (toSource, over rect as Mesh.Grid gives it) lies inside the source
// face's hull sHull and inside the source picture sb, eroded and
// feathered. rect must hold the target hull with a pixel to spare, and
// may reach past clip, the target picture's bounds: pixels beyond the
// frame count as face when they are inside both hulls, so a face cut by
// the frame is swapped up to the frame. The result is cut to clip.
func faceMask(tHull, tMouth, sHull polygon, sb image.Rectangle, toSource []complex128, inMesh []bool, rect, clip image.Rectangle, faceWidth float64) mask {
	w, h := rect.Dx(), rect.Dy()
	inside := make([]bool, w*h)
	// notMouth is false inside the target's open mouth.
	notMouth := make([]bool, w*h)
	open := false
	for y := range h {
		for x := range w {
			i := y*w + x
			z := complex(float64(rect.Min.X+x)+0.5, float64(rect.Min.Y+y)+0.5)
			s := toSource[i]
			inside[i] = inMesh[i] && tHull.holds(z) && sHull.holds(s) &&
				real(s) >= float64(sb.Min.X) && real(s) < float64(sb.Max.X) &&
				imag(s) >= float64(sb.Min.Y) && imag(s) < float64(sb.Max.Y)
			notMouth[i] = !tMouth.holds(z)
			open = open || !notMouth[i]
		}
	}
	depth := insideDistance(inside, w, h)
	var mouthDistance []int32
	if open {
		mouthDistance = insideDistance(notMouth, w, h)
	}
	erode, feather := maskErode*faceWidth, math.Max(1, maskFeather*faceWidth)
	out := rect.Intersect(clip)
	if out.Empty() {
		return mask{}
	}
	m := mask{rect: out, weight: make([]float32, out.Dx()*out.Dy())}
	for y := out.Min.Y; y < out.Max.Y; y++ {
		for x := out.Min.X; x < out.Max.X; x++ {
			i := (y-rect.Min.Y)*w + x - rect.Min.X
			k := smoothstep((float64(depth[i])/3 - erode) / feather)
			if mouthDistance != nil {
				k *= smoothstep(float64(mouthDistance[i]) / 3 / (mouthFeather * faceWidth))
			}
			m.weight[(y-out.Min.Y)*out.Dx()+x-out.Min.X] = float32(k)
		}
	}
	return m
}

// smoothstep is 0 up to v = 0, 1 from v = 1, and eases between.
func smoothstep(v float64) float64 {
	k := math.Max(0, math.Min(1, v))
	return k * k * (3 - 2*k)
}

// insideDistance returns, for every cell of the w×h grid, its distance to
// the nearest cell outside (false, or beyond the grid), in thirds of a
// pixel: 0 for the cells outside. It is the two-pass chamfer transform
// with weights 3 (edge neighbours) and 4 (corner neighbours), within a
// few percent of the Euclidean distance, which is plenty for a feather.
func insideDistance(inside []bool, w, h int) []int32 {
	const far = math.MaxInt32 / 2
	d := make([]int32, w*h)
	at := func(x, y int) int32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return d[y*w+x]
	}
	for y := range h {
		for x := range w {
			if !inside[y*w+x] {
				continue
			}
			v := int32(far)
			v = min(v, at(x-1, y)+3, at(x, y-1)+3, at(x-1, y-1)+4, at(x+1, y-1)+4)
			d[y*w+x] = v
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			if !inside[y*w+x] {
				continue
			}
			v := d[y*w+x]
			v = min(v, at(x+1, y)+3, at(x, y+1)+3, at(x+1, y+1)+4, at(x-1, y+1)+4)
			d[y*w+x] = v
		}
	}
	return d
}

// stopped reports whether done is closed.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
