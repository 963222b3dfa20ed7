// Framing: Crop cuts a picture to a shape around what matters in it.
// The crop is the largest window of that shape, so it is only ever
// placed along one axis; it is placed so that the faces stay inside (all
// of them when they fit together, else the largest), then so that it
// holds as much of the picture's spectral-residual saliency as it can,
// with that mass as central as it can be. Its pixels are the source's,
// never resampled: resizing is the caller's choice.

package imaging

import (
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/media/vision"
)

// Ratio is the width/height of an aspect ratio name: 9/16 for "9:16",
// 16/9 for anything else ("16:9" is the service's default shape).
func Ratio(aspect string) float64 {
	if aspect == "9:16" {
		return 9.0 / 16
	}
	return 16.0 / 9
}

// Crop returns the largest crop of img with the aspect ("16:9" or "9:16"),
// placed by Window; faces and saliency (vision.Saliency) are of img. The
// result is a copy whose bounds start at (0, 0).
func Crop(img image.Image, aspect string, faces []vision.Face, saliency []float64) *image.NRGBA {
	r := Window(img.Bounds(), Ratio(aspect), faces, saliency)
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

// Window is the largest rectangle inside b whose width/height is ratio
// (each side within half a pixel of exact), placed to keep the faces and
// the saliency inside, as described at the top of this file. Faces are in
// the coordinates of b; saliency is a vision.SaliencySize² map over b (any
// other length is ignored). Without faces or saliency it is centred.
func Window(b image.Rectangle, ratio float64, faces []vision.Face, saliency []float64) image.Rectangle {
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 || !(ratio > 0) || math.IsInf(ratio, 0) {
		return b
	}
	cw, ch := w, int(math.Round(float64(w)/ratio))
	if float64(w)/float64(h) > ratio {
		cw, ch = int(math.Round(float64(h)*ratio)), h
	}
	cw, ch = max(1, min(cw, w)), max(1, min(ch, h))
	if cw < w {
		x := place(w, cw, axisProfile(b, faces, saliency, true))
		return image.Rect(b.Min.X+x, b.Min.Y, b.Min.X+x+cw, b.Max.Y)
	}
	y := place(h, ch, axisProfile(b, faces, saliency, false))
	return image.Rect(b.Min.X, b.Min.Y+y, b.Max.X, b.Min.Y+y+ch)
}

// span is an interval of the free axis, in pixels from its start.
type span struct{ lo, hi int }

// profile is what the free axis holds: per pixel, how much the viewer
// cares about it, and the faces that must stay inside the window.
type profile struct {
	weight []float64
	keep   []span // one per face, in order of decreasing area
}

// axisProfile projects the squared saliency map (so its peaks dominate
// the texture every photo has) and the faces onto one axis of b. The
// faces together weigh as much as the whole saliency map, so a face is
// never outweighed by clutter beside it.
func axisProfile(b image.Rectangle, faces []vision.Face, saliency []float64, horizontal bool) profile {
	length, origin := b.Dy(), b.Min.Y
	if horizontal {
		length, origin = b.Dx(), b.Min.X
	}
	p := profile{weight: make([]float64, length)}
	n := vision.SaliencySize
	total := 0.0
	if len(saliency) == n*n {
		cells := make([]float64, n)
		for y := range n {
			for x := range n {
				v := saliency[y*n+x]
				if !(v > 0) || math.IsInf(v, 0) {
					continue // NaN, negative and infinite cells carry nothing
				}
				c := y
				if horizontal {
					c = x
				}
				cells[c] += v * v
				total += v * v
			}
		}
		for c, m := range cells {
			lo, hi := c*length/n, (c+1)*length/n
			if hi == lo {
				// Fewer pixels than cells: the cell lands on one pixel.
				hi = min(lo+1, length)
			}
			for i := lo; i < hi; i++ {
				p.weight[i] += m / float64(hi-lo)
			}
		}
	}
	faceTotal := total
	if faceTotal == 0 {
		faceTotal = 1
	}
	var spans []span
	var areas []int
	for _, f := range faces {
		r := f.Rect.Intersect(b)
		if r.Empty() {
			continue
		}
		s := span{r.Min.Y - origin, r.Max.Y - origin}
		if horizontal {
			s = span{r.Min.X - origin, r.Max.X - origin}
		}
		spans = append(spans, s)
		areas = append(areas, r.Dx()*r.Dy())
	}
	for _, s := range spans {
		for i := s.lo; i < s.hi; i++ {
			p.weight[i] += faceTotal / float64(len(spans)) / float64(s.hi-s.lo)
		}
	}
	// Largest first: when the faces do not fit together, the largest is
	// the one kept.
	for len(spans) > 0 {
		best := 0
		for i := range areas {
			if areas[i] > areas[best] {
				best = i
			}
		}
		p.keep = append(p.keep, spans[best])
		spans = append(spans[:best], spans[best+1:]...)
		areas = append(areas[:best], areas[best+1:]...)
	}
	return p
}

// centring weighs how far the held mass's centroid is from the window's
// centre, in window lengths, against the share of the mass held: a
// centroid half a window off-centre costs a quarter of that share.
const centring = 0.5

// place is the offset of a window of length win on an axis of length n
// with profile p. The offsets allowed keep every face inside when they
// fit together, else the largest (centred on it when even that does not
// fit); among them it takes the one that holds the most weight with its
// centroid nearest the window's centre, and on a tie the one nearest the
// middle of the axis.
func place(n, win int, p profile) int {
	lo, hi := 0, n-win
	if len(p.keep) > 0 {
		all := p.keep[0]
		for _, s := range p.keep[1:] {
			all = span{min(all.lo, s.lo), max(all.hi, s.hi)}
		}
		k := all
		if k.hi-k.lo > win {
			k = p.keep[0]
		}
		if k.hi-k.lo >= win {
			return min(max((k.lo+k.hi-win)/2, 0), n-win)
		}
		lo, hi = max(lo, k.hi-win), min(hi, k.lo)
	}
	// Prefix sums of the weight and of its first moment.
	mass, moment := make([]float64, n+1), make([]float64, n+1)
	for i, v := range p.weight {
		mass[i+1] = mass[i] + v
		moment[i+1] = moment[i] + v*(float64(i)+0.5)
	}
	total := mass[n]
	middle := float64(n-win) / 2
	best, bestScore := lo, math.Inf(-1)
	for o := lo; o <= hi; o++ {
		score := 0.0
		if total > 0 {
			m := mass[o+win] - mass[o]
			score = m / total
			if m > 0 {
				c := (moment[o+win] - moment[o]) / m
				score -= centring * math.Abs(c-(float64(o)+float64(win)/2)) / float64(win) * m / total
			}
		}
		const tie = 1e-9
		switch {
		case score > bestScore+tie:
			best, bestScore = o, score
		case score > bestScore-tie && math.Abs(float64(o)-middle) < math.Abs(float64(best)-middle):
			best = o
		}
	}
	return best
}
