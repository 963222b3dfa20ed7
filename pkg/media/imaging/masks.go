package imaging

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// Masks are image.Alpha coverage maps: glyphs, shapes and faces are
// rasterised into them, then grown (Dilate: outlines), blurred (Blur,
// Shadow) and laid on a picture in a colour (Paint).

// Dilate returns the coverage of m grown by radius pixels with round
// corners, antialiased: the outline of text, a shape or a cut-out. It
// runs a Euclidean distance transform (Felzenszwalb and Huttenlocher's,
// linear in the pixels) over m's pixels that are at least half covered,
// so its cost does not grow with the radius. A wide outline is measured
// on a grid of 2×2 blocks and the distances interpolated back: a
// distance field stays smooth when resampled, and the error, under a
// pixel, is lost in the width.
func Dilate(m *image.Alpha, radius float64) *image.Alpha {
	f := 1
	if radius >= 10 {
		f = 2
	}
	dist, sw, sh := distances(m, f)
	st := newStretch(dist, sw, sh, f)
	b := m.Bounds()
	res := image.NewAlpha(b)
	r := float32(radius)
	for y := range b.Dy() {
		row := res.Pix[y*res.Stride:]
		own := m.Pix[y*m.Stride:]
		line := st.row(y)
		for x := range b.Dx() {
			if own[x] == 255 {
				row[x] = 255
				continue
			}
			a := r - st.at(line, x)*float32(f) + 0.5
			switch {
			case a >= 1:
				row[x] = 255
			case a > 0:
				row[x] = uint8(a * 255)
			}
			// Keep the antialiased rim of the shape itself.
			row[x] = max(row[x], own[x])
		}
	}
	return res
}

// distances is, on the grid of m's f×f blocks (sw×sh of them), the
// distance in blocks from each block to the nearest one holding a pixel
// at least half covered: with f > 1 no covered pixel, however thin the
// shape, is lost.
func distances(m *image.Alpha, f int) (d []float32, sw, sh int) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	sw, sh = (w+f-1)/f, (h+f-1)/f
	const inf = 1e20
	d = make([]float32, sw*sh)
	for i := range d {
		d[i] = inf
	}
	for y := range h {
		for x := range w {
			if m.Pix[y*m.Stride+x] >= 128 {
				d[(y/f)*sw+x/f] = 0
			}
		}
	}
	n := max(sw, sh)
	g, out := make([]float32, n), make([]float32, n)
	v, z := make([]int, n), make([]float32, n+1)
	for x := range sw {
		for y := range sh {
			g[y] = d[y*sw+x]
		}
		edt1(g[:sh], out[:sh], v, z)
		for y := range sh {
			d[y*sw+x] = out[y]
		}
	}
	for y := range sh {
		copy(g[:sw], d[y*sw:y*sw+sw])
		edt1(g[:sw], out[:sw], v, z)
		for x := range sw {
			d[y*sw+x] = float32(math.Sqrt(float64(out[x])))
		}
	}
	return d, sw, sh
}

// edt1 is the one-dimensional squared distance transform of f into d:
// the lower envelope of the parabolas rooted at each sample. v and z are
// scratch space of len(f) and len(f)+1.
func edt1(f, d []float32, v []int, z []float32) {
	n := len(f)
	if n == 0 {
		return
	}
	sep := func(q, p int) float32 {
		return ((f[q] + float32(q*q)) - (f[p] + float32(p*p))) / float32(2*q-2*p)
	}
	k := 0
	v[0] = 0
	z[0], z[1] = -math.MaxFloat32, math.MaxFloat32
	for q := 1; q < n; q++ {
		s := sep(q, v[k])
		// z[0] is -max, so this stops at the first parabola at the latest.
		for s <= z[k] {
			k--
			s = sep(q, v[k])
		}
		k++
		v[k] = q
		z[k], z[k+1] = s, math.MaxFloat32
	}
	k = 0
	for q := range n {
		for z[k+1] < float32(q) {
			k++
		}
		p := v[k]
		d[q] = float32((q-p)*(q-p)) + f[p]
	}
}

// shrink averages m over f×f blocks, into a mask at the origin (m itself
// when f is 1).
func shrink(m *image.Alpha, f int) *image.Alpha {
	if f == 1 {
		return m
	}
	w, h := (m.Rect.Dx()+f-1)/f, (m.Rect.Dy()+f-1)/f
	s := image.NewAlpha(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			sum, n := 0, 0
			for yy := y * f; yy < min(y*f+f, m.Rect.Dy()); yy++ {
				for xx := x * f; xx < min(x*f+f, m.Rect.Dx()); xx++ {
					sum += int(m.Pix[yy*m.Stride+xx])
					n++
				}
			}
			s.Pix[y*s.Stride+x] = uint8(sum / n) //nolint:gosec // G115: mean of 8-bit samples
		}
	}
	return s
}

// stretch reads a w×h grid shrunk by f at full resolution, bilinearly:
// row interpolates between two grid rows once per output row, at reads
// one output pixel of it.
type stretch struct {
	g    []float32
	w, h int
	f    int
	buf  []float32
}

func newStretch(g []float32, w, h, f int) *stretch {
	return &stretch{g: g, w: w, h: h, f: f, buf: make([]float32, w)}
}

func (s *stretch) row(y int) []float32 {
	if s.f == 1 {
		return s.g[min(y, s.h-1)*s.w:][:s.w]
	}
	sy := min(max((float32(y)+0.5)/float32(s.f)-0.5, 0), float32(s.h-1))
	y0 := int(sy)
	y1 := min(y0+1, s.h-1)
	fy := sy - float32(y0)
	a, b := s.g[y0*s.w:][:s.w], s.g[y1*s.w:][:s.w]
	for i := range s.buf {
		s.buf[i] = a[i] + (b[i]-a[i])*fy
	}
	return s.buf
}

func (s *stretch) at(line []float32, x int) float32 {
	if s.f == 1 {
		return line[min(x, s.w-1)]
	}
	sx := min(max((float32(x)+0.5)/float32(s.f)-0.5, 0), float32(s.w-1))
	x0 := int(sx)
	x1 := min(x0+1, s.w-1)
	return line[x0] + (line[x1]-line[x0])*(sx-float32(x0))
}

// Blur softens a mask in place with three box blurs whose combined
// spread is a Gaussian's of the given sigma, and returns it. Near its
// edges the boxes average what lies inside the mask only.
func Blur(m *image.Alpha, sigma float64) *image.Alpha {
	blurBoxes(m, BoxRadius(sigma))
	return m
}

// BoxRadius is the radius of the box that, run three times, spreads as
// far as a Gaussian of sigma: one pass of radius r has a variance of
// r(r+1)/3, and three add up.
func BoxRadius(sigma float64) int {
	return max(1, int(math.Round((math.Sqrt(4*sigma*sigma+1)-1)/2)))
}

// blurBoxes runs three box blurs of radius r over m in place.
func blurBoxes(m *image.Alpha, r int) {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	g := make([]float32, w*h)
	for y := range h {
		for x := range w {
			g[y*w+x] = float32(m.Pix[y*m.Stride+x])
		}
	}
	for range 3 {
		g = BoxMean(g, w, h, r)
	}
	for y := range h {
		for x := range w {
			m.Pix[y*m.Stride+x] = uint8(min(255, max(0, g[y*w+x]+0.5)))
		}
	}
}

// BoxMean is the w×h grid g (row-major) with each value replaced by the
// mean of its (2r+1)² window, clipped at the borders: a window that
// reaches past an edge averages the values it still covers. Its cost
// does not depend on r: running sums, along each row, then down all the
// columns at once, which reads memory in order.
func BoxMean(g []float32, w, h, r int) []float32 {
	rows := make([]float32, w*h)
	for y := range h {
		boxLine(g[y*w:(y+1)*w], rows[y*w:(y+1)*w], r)
	}
	out := make([]float32, w*h)
	sums := make([]float64, w)
	for y := range min(r, h) {
		for x, v := range rows[y*w : (y+1)*w] {
			sums[x] += float64(v)
		}
	}
	for y := range h {
		if j := y + r; j < h {
			for x, v := range rows[j*w : (j+1)*w] {
				sums[x] += float64(v)
			}
		}
		if j := y - r - 1; j >= 0 {
			for x, v := range rows[j*w : (j+1)*w] {
				sums[x] -= float64(v)
			}
		}
		inv := 1 / float64(min(h-1, y+r)-max(0, y-r)+1)
		dst := out[y*w : (y+1)*w]
		for x, s := range sums {
			dst[x] = float32(s * inv)
		}
	}
	return out
}

// boxLine writes the clipped window means of src to dst.
func boxLine(src, dst []float32, r int) {
	n := len(src)
	var sum float64
	for i := range min(r, n) {
		sum += float64(src[i])
	}
	for i := range n {
		if j := i + r; j < n {
			sum += float64(src[j])
		}
		if j := i - r - 1; j >= 0 {
			sum -= float64(src[j])
		}
		lo, hi := max(0, i-r), min(n-1, i+r)
		dst[i] = float32(sum / float64(hi-lo+1))
	}
}

// Shadow geometry, in sizes of what casts it (a font size, a face's
// side): how far down and right it falls and how soft it is.
const (
	shadowOffsetX = 0.05
	shadowOffsetY = 0.07
	shadowSigma   = 0.04
)

// Shadow is the soft drop shadow m casts, for a thing of the given size:
// m moved down and to the right and blurred, within m's bounds (what
// would fall past them is lost, so a mask with room around its content
// casts all of it). Paint it in black at the opacity wanted.
//
// The blur runs on a copy shrunk to a few pixels per blur radius (a
// shadow has no detail to lose) and is stretched back bilinearly.
func Shadow(m *image.Alpha, size float64) *image.Alpha {
	off := image.Pt(int(math.Round(shadowOffsetX*size)), int(math.Round(shadowOffsetY*size)))
	r := BoxRadius(shadowSigma * size)
	f := max(1, r/2)
	small := shrink(m, f)
	if f == 1 {
		// The blur works in place: not on the caller's mask.
		small = image.NewAlpha(m.Rect)
		for y := range m.Rect.Dy() {
			copy(small.Pix[y*small.Stride:], m.Pix[y*m.Stride:y*m.Stride+m.Rect.Dx()])
		}
	}
	blurBoxes(small, max(1, r/f))
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	g := make([]float32, sw*sh)
	for y := range sh {
		for x := range sw {
			g[y*sw+x] = float32(small.Pix[y*small.Stride+x])
		}
	}
	st := newStretch(g, sw, sh, f)
	b := m.Bounds()
	res := image.NewAlpha(b)
	for y := max(off.Y, 0); y < b.Dy(); y++ {
		line := st.row(y - off.Y)
		row := res.Pix[y*res.Stride:]
		for x := max(off.X, 0); x < b.Dx(); x++ {
			row[x] = uint8(min(255, st.at(line, x-off.X)+0.5))
		}
	}
	return res
}

// RoundRect is an antialiased mask, of the given bounds, covering r with
// corners rounded to radius (a radius of half the shorter side makes a
// pill, of a square a disc).
func RoundRect(bounds, r image.Rectangle, radius float64) *image.Alpha {
	m := image.NewAlpha(bounds)
	radius = min(radius, float64(min(r.Dx(), r.Dy()))/2)
	x0, y0 := float64(r.Min.X)+radius, float64(r.Min.Y)+radius
	x1, y1 := float64(r.Max.X)-radius, float64(r.Max.Y)-radius
	area := r.Intersect(bounds)
	for y := area.Min.Y; y < area.Max.Y; y++ {
		py := float64(y) + 0.5
		dy := max(y0-py, 0, py-y1)
		for x := area.Min.X; x < area.Max.X; x++ {
			px := float64(x) + 0.5
			dx := max(x0-px, 0, px-x1)
			// Coverage falls from 1 to 0 across the pixel on the rim.
			a := radius - math.Hypot(dx, dy) + 0.5
			switch {
			case a >= 1:
				m.Pix[m.PixOffset(x, y)] = 255
			case a > 0:
				m.Pix[m.PixOffset(x, y)] = uint8(a * 255)
			}
		}
	}
	return m
}

// Paint lays colour c, at the given opacity (0..1), through mask onto
// dst, the mask's bounds moved by at (source-over). An *image.RGBA (its
// colour premultiplied) and an *image.NRGBA (not) are painted directly,
// the pixels an NRGBA keeps opaque in integers; any other image through
// image/draw.
func Paint(dst draw.Image, mask *image.Alpha, at image.Point, c color.NRGBA, opacity float64) {
	area := mask.Bounds().Add(at).Intersect(dst.Bounds())
	if area.Empty() {
		return
	}
	// cover[v] is the colour's coverage, out of 65535, under a mask value v.
	var cover [256]uint32
	k := opacity * float64(c.A) / 255 * 65535 / 255
	for v := range cover {
		cover[v] = uint32(min(65535, max(0, math.Round(float64(v)*k))))
	}
	var (
		pix     []uint8
		stride  int
		origin  image.Point
		premult bool
	)
	switch d := dst.(type) {
	case *image.RGBA:
		pix, stride, origin, premult = d.Pix, d.Stride, d.Rect.Min, true
	case *image.NRGBA:
		pix, stride, origin = d.Pix, d.Stride, d.Rect.Min
	default:
		src := image.NewUniform(color.NRGBA{c.R, c.G, c.B, uint8(math.Round(float64(c.A) * min(1, max(0, opacity))))})
		draw.DrawMask(dst, area, src, image.Point{}, mask, area.Min.Sub(at), draw.Over)
		return
	}
	rgb := [3]uint32{uint32(c.R), uint32(c.G), uint32(c.B)}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		mrow := mask.Pix[mask.PixOffset(area.Min.X-at.X, y-at.Y):]
		drow := pix[(y-origin.Y)*stride+(area.Min.X-origin.X)*4:]
		for i := range area.Dx() {
			if mrow[i] == 0 {
				continue
			}
			p := drow[4*i : 4*i+4 : 4*i+4]
			// An opaque pixel is the same premultiplied or not.
			if premult || p[3] == 255 {
				over(p, rgb, cover[mrow[i]])
			} else {
				overNRGBA(p, rgb, float64(cover[mrow[i]])/65535)
			}
		}
	}
}

// over lays colour rgb at coverage k (out of 65535) over the
// premultiplied pixel p.
func over(p []uint8, rgb [3]uint32, k uint32) {
	keep := 65535 - k
	for j, s := range rgb {
		p[j] = uint8((s*k + uint32(p[j])*keep + 32767) / 65535) //nolint:gosec // G115: a weighted mean of 8-bit values
	}
	p[3] = uint8((255*k + uint32(p[3])*keep + 32767) / 65535) //nolint:gosec // G115: a weighted mean of 8-bit values
}

// overNRGBA lays colour rgb at coverage sa (0..1) over the translucent,
// non-premultiplied pixel p.
func overNRGBA(p []uint8, rgb [3]uint32, sa float64) {
	da := float64(p[3]) / 255
	oa := sa + da*(1-sa)
	if oa <= 0 {
		return
	}
	for j, s := range rgb {
		p[j] = uint8((float64(s)*sa+float64(p[j])*da*(1-sa))/oa + 0.5)
	}
	p[3] = uint8(oa*255 + 0.5)
}
