package matte

import (
	"math"
	"slices"
)

// A plain backdrop: a product shot, a render, a graphic on a flat or
// graded colour. Its frame is one smooth field of colour, and the
// background is what is joined to the frame through colours that step
// little and stay near that field; the subject is the rest, whatever its
// place in the picture (the faceless seed looks for it in the middle) and
// whatever its texture (the colour models may split a busy one).
//
// The field is a quadratic in x and y per channel, fitted to the frame's
// band robustly: the colours that fit it are found by refitting with a
// shrinking tolerance, so a subject that runs into the frame (a pot on
// the bottom edge) does not bend it. A quadratic follows a linear or
// radial gradient and a vignette; a frame it does not explain well enough
// is no plain backdrop, and the picture goes to the faceless seed.
const (
	// plainShare is the least share of the frame's band the field must
	// explain for the backdrop to count as plain. The rocket's evening
	// sky between its launch towers explains 62% of its frame, and the
	// field, which does not see the haze over the horizon, would call the
	// lower sky subject: it is left to the faceless seed.
	plainShare = 0.75
	// fieldFit is the tolerance, in 8-bit RGB distance on the working
	// grid, within which a frame pixel fits the field: JPEG noise and a
	// backdrop's grain, averaged by the working grid's shrink.
	fieldFit = 16.0
	// fieldReach is how far from the field a pixel joined to the frame
	// may be and still be backdrop: a shadow's edge, a soft fall-off of
	// light; beyond it the subject's own colours start, however gently
	// a blurred outline steps into them.
	fieldReach = 40.0
	// plainStep is the largest colour step, between the neighbours of
	// the grid smoothed over 3×3, that the backdrop crosses: its noise
	// and gradient, not a subject's outline.
	plainStep = 10.0
	// plainSubject is the largest share of the picture the subject on a
	// plain backdrop may take.
	plainSubject = 0.6
	// plainMargin is the band, in working-grid pixels, on either side of
	// the outline the flood found that the graph cut decides.
	plainMargin = 2
)

// plainSeed is the seed of a picture on a plain or graded backdrop
// (see above), and whether its frame is one; subject says a subject was
// found at all. The backdrop's inside is fixed background and the rest's
// inside fixed subject, but for the backdrop's own colours enclosed by
// the subject (the hole of a ring, which the colour models decide): the
// graph cut and the refinement place the outline.
func plainSeed(w, h int, px []rgb) (s seed, ok, subject bool) {
	if w < 8 || h < 8 {
		return seed{}, false, false
	}
	field, fits, ok := fitBackdrop(w, h, px)
	if !ok {
		return seed{}, false, false
	}
	resid := make([]float64, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			resid[i] = math.Sqrt(float64(dist2(px[i], field.at(x, y, w, h))))
		}
	}
	back := floodBackdrop(w, h, boxSmooth(px, w, h), resid, fits)
	fg := make([]bool, w*h)
	for i, b := range back {
		fg[i] = !b
	}
	dropSpecks(fg, w, h, max(4, w*h/2000))
	area := 0
	for _, f := range fg {
		if f {
			area++
		}
	}
	switch {
	case area == 0:
		return seed{}, true, false
	case float64(area) > plainSubject*float64(w*h):
		// The backdrop stops short of most of the picture: its colours
		// change more than a backdrop's do, or it is no backdrop.
		return seed{}, false, false
	}
	s = seed{w: w, h: h, prior: make([]float64, w*h), fixed: make([]label, w*h), weight: 1}
	nearFG, nearBG := dilate(fg, w, h, plainMargin), dilate(back, w, h, plainMargin)
	for i, f := range fg {
		switch {
		case !f:
			s.prior[i] = priorOutside
			if !nearFG[i] {
				s.fixed[i] = fixedBG
			}
		case resid[i] <= fieldReach:
			// The backdrop's colour inside the subject: a hole, or the
			// subject's own colour; the models decide.
			s.prior[i] = 0.5
		default:
			s.prior[i] = priorHead
			if !nearBG[i] {
				s.fixed[i] = fixedFG
			}
		}
	}
	if !slices.Contains(s.fixed, fixedFG) {
		// A subject too thin to have an inside: the models decide it all.
		for i, f := range fg {
			if f && resid[i] > fieldReach {
				s.fixed[i] = fixedFG
			}
		}
	}
	return s, true, true
}

// quadratic is a colour field over the grid: per channel, a polynomial
// of degree two in the pixel's position (u, v in -½..½).
type quadratic [3][6]float64

func basis(x, y, w, h int) [6]float64 {
	u := (float64(x)+0.5)/float64(w) - 0.5
	v := (float64(y)+0.5)/float64(h) - 0.5
	return [6]float64{1, u, v, u * u, u * v, v * v}
}

func (q *quadratic) at(x, y, w, h int) rgb {
	b := basis(x, y, w, h)
	var c rgb
	for ch := range 3 {
		s := 0.0
		for k, bk := range b {
			s += q[ch][k] * bk
		}
		c[ch] = float32(s)
	}
	return c
}

// fitBackdrop fits the field to the frame's band (see plainSeed) and
// returns it with the band's pixels it fits, and whether they are
// plainShare of the band. It starts from the band's median colour with a
// wide tolerance and narrows it to fieldFit, refitting on the pixels
// within it each time.
func fitBackdrop(w, h int, px []rgb) (quadratic, []bool, bool) {
	band := max(2, min(w, h)/frameBand)
	var frame []int
	for y := range h {
		for x := range w {
			if x < band || y < band || x >= w-band || y >= h-band {
				frame = append(frame, y*w+x)
			}
		}
	}
	var q quadratic
	for ch := range 3 {
		vals := make([]float32, len(frame))
		for k, i := range frame {
			vals[k] = px[i][ch]
		}
		slices.Sort(vals)
		q[ch][0] = float64(vals[len(vals)/2])
	}
	fits := make([]bool, w*h)
	in := 0
	for _, tol := range []float64{96, 48, 24, fieldFit, fieldFit} {
		in = 0
		for _, i := range frame {
			c := q.at(i%w, i/w, w, h)
			fits[i] = float64(dist2(px[i], c)) <= tol*tol
			if fits[i] {
				in++
			}
		}
		if in < len(frame)/4 {
			return q, nil, false
		}
		next, ok := fitQuadratic(w, h, px, frame, fits)
		if !ok {
			return q, nil, false
		}
		q = next
	}
	return q, fits, float64(in) >= plainShare*float64(len(frame))
}

// fitQuadratic is the least-squares field through the pixels of frame
// that use marks; false when they do not determine it.
func fitQuadratic(w, h int, px []rgb, frame []int, use []bool) (quadratic, bool) {
	var ata [6][6]float64
	var atb [3][6]float64
	for _, i := range frame {
		if !use[i] {
			continue
		}
		b := basis(i%w, i/w, w, h)
		for r := range 6 {
			for c := range 6 {
				ata[r][c] += b[r] * b[c]
			}
			for ch := range 3 {
				atb[ch][r] += b[r] * float64(px[i][ch])
			}
		}
	}
	var q quadratic
	for ch := range 3 {
		sol, ok := solve6(ata, atb[ch])
		if !ok {
			return q, false
		}
		q[ch] = sol
	}
	return q, true
}

// solve6 solves a·x = b by Gaussian elimination with partial pivoting;
// false when a is singular.
func solve6(a [6][6]float64, b [6]float64) ([6]float64, bool) {
	const n = 6
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) < 1e-9 {
			return b, false
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c < n; c++ {
				a[r][c] -= f * a[col][c]
			}
			b[r] -= f * b[col]
		}
	}
	var x [6]float64
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for c := r + 1; c < n; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// floodBackdrop marks the backdrop: the pixels joined to the frame's
// fitting pixels (from) by 4-connected steps of at most plainStep between
// the smoothed colours, through pixels within fieldReach of the field.
func floodBackdrop(w, h int, smooth []rgb, resid []float64, from []bool) []bool {
	out := make([]bool, w*h)
	var stack []int
	for i, f := range from {
		if f {
			out[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x := i % w
		for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if j < 0 || j >= len(out) || (j == i-1 && x == 0) || (j == i+1 && x == w-1) || out[j] {
				continue
			}
			if resid[j] <= fieldReach && dist2(smooth[i], smooth[j]) <= plainStep*plainStep {
				out[j] = true
				stack = append(stack, j)
			}
		}
	}
	return out
}

// boxSmooth is px averaged over each pixel's 3×3 neighbourhood (clipped
// at the edges).
func boxSmooth(px []rgb, w, h int) []rgb {
	out := make([]rgb, len(px))
	for y := range h {
		for x := range w {
			var s [3]float32
			n := float32(0)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					c := px[ny*w+nx]
					s[0], s[1], s[2] = s[0]+c[0], s[1]+c[1], s[2]+c[2]
					n++
				}
			}
			out[y*w+x] = rgb{s[0] / n, s[1] / n, s[2] / n}
		}
	}
	return out
}

// dropSpecks clears the 8-connected regions of m smaller than limit.
func dropSpecks(m []bool, w, h, limit int) {
	comp, sizes := components8(m, w, h)
	for i, c := range comp {
		if c >= 0 && sizes[c] < limit {
			m[i] = false
		}
	}
}
