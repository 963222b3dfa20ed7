package compose

import (
	"image"
	"math"
)

// Masks are image.Alpha coverage maps: glyphs, shapes and faces are
// rasterised into them, then grown (stroke, outline), blurred (shadow)
// and painted in a colour.

// dilate returns the coverage of m grown by radius pixels with round
// corners: the outline of text or of a cut-out. It runs a Euclidean
// distance transform (Felzenszwalb–Huttenlocher, linear in the pixels)
// over m's inked pixels, so its cost does not grow with the radius. A
// wide outline is measured at half resolution and the distances
// interpolated back: a distance field stays smooth when resampled.
func dilate(m *image.Alpha, radius float64) *image.Alpha {
	f := 1
	if radius >= 10 {
		f = 2
	}
	src := shrink(m, f)
	dist := distances(src)
	b := m.Bounds()
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	res := image.NewAlpha(b)
	r := float32(radius)
	st := newStretch(dist, sw, sh, f)
	for y := 0; y < b.Dy(); y++ {
		row := res.Pix[y*res.Stride:]
		own := m.Pix[y*m.Stride:]
		line := st.row(y)
		for x := 0; x < b.Dx(); x++ {
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

// distances is, for each pixel of m, the distance to the nearest pixel
// at least half covered.
func distances(m *image.Alpha) []float32 {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	const inf = 1e20
	d := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if m.Pix[y*m.Stride+x] < 128 {
				d[y*w+x] = inf
			}
		}
	}
	n := max(w, h)
	f, out := make([]float32, n), make([]float32, n)
	v, z := make([]int, n), make([]float32, n+1)
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			f[y] = d[y*w+x]
		}
		edt1(f[:h], out[:h], v, z)
		for y := 0; y < h; y++ {
			d[y*w+x] = out[y]
		}
	}
	for y := 0; y < h; y++ {
		copy(f[:w], d[y*w:y*w+w])
		edt1(f[:w], out[:w], v, z)
		for x := 0; x < w; x++ {
			d[y*w+x] = float32(math.Sqrt(float64(out[x])))
		}
	}
	return d
}

// shrink averages m over f×f blocks (m itself when f is 1).
func shrink(m *image.Alpha, f int) *image.Alpha {
	if f == 1 {
		return m
	}
	w, h := (m.Rect.Dx()+f-1)/f, (m.Rect.Dy()+f-1)/f
	s := image.NewAlpha(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
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

// edt1 is the one-dimensional squared distance transform of f into d
// (the lower envelope of parabolas rooted at each sample).
func edt1(f, d []float32, v []int, z []float32) {
	n := len(f)
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
	for q := 0; q < n; q++ {
		for z[k+1] < float32(q) {
			k++
		}
		p := v[k]
		d[q] = float32((q-p)*(q-p)) + f[p]
	}
}

// blur softens m in place with three box passes each way, close to a
// Gaussian of the same spread at a cost independent of radius.
func blur(m *image.Alpha, radius int) {
	if radius < 1 {
		return
	}
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := make([]uint8, max(w, h))
	for pass := 0; pass < 3; pass++ {
		for y := 0; y < h; y++ {
			boxLine(m.Pix[y*m.Stride:y*m.Stride+w], 1, w, radius, tmp)
		}
		for x := 0; x < w; x++ {
			boxLine(m.Pix[x:], m.Stride, h, radius, tmp)
		}
	}
}

// boxLine replaces the n samples p[0], p[stride], … by their mean over a
// window of 2r+1, edges clamped.
func boxLine(p []uint8, stride, n, r int, tmp []uint8) {
	for i := 0; i < n; i++ {
		tmp[i] = p[i*stride]
	}
	win := 2*r + 1
	sum := 0
	for i := -r; i <= r; i++ {
		sum += int(tmp[clampInt(i, 0, n-1)])
	}
	for i := 0; i < n; i++ {
		p[i*stride] = uint8(sum / win) //nolint:gosec // G115: mean of 8-bit samples
		sum += int(tmp[clampInt(i+r+1, 0, n-1)]) - int(tmp[clampInt(i-r, 0, n-1)])
	}
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
