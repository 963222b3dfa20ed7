package imaging

import (
	"image"
	"image/color"
	"math"
)

// dilate grows a coverage mask by radius pixels, antialiased: a pixel's
// coverage is how far the radius reaches past its centre's distance to
// the nearest covered pixel (exact Euclidean distances, Felzenszwalb and
// Huttenlocher's two-pass transform, so the cost does not grow with the
// radius).
func dilate(m *image.Alpha, radius float64) *image.Alpha {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	const inf = 1e20
	d := make([]float64, w*h)
	for y := range h {
		for x := range w {
			if m.Pix[y*m.Stride+x] < 128 {
				d[y*w+x] = inf
			}
		}
	}
	n := max(w, h)
	f, out := make([]float64, n), make([]float64, n)
	v, z := make([]int, n), make([]float64, n+1)
	for x := range w {
		for y := range h {
			f[y] = d[y*w+x]
		}
		edt1(f[:h], out[:h], v, z)
		for y := range h {
			d[y*w+x] = out[y]
		}
	}
	res := image.NewAlpha(b)
	for y := range h {
		copy(f[:w], d[y*w:y*w+w])
		edt1(f[:w], out[:w], v, z)
		for x := range w {
			a := radius + 0.5 - math.Sqrt(out[x])
			c := m.Pix[y*m.Stride+x]
			switch {
			case a >= 1:
				c = 255
			case a > 0:
				c = max(c, uint8(a*255))
			}
			res.Pix[y*res.Stride+x] = c
		}
	}
	return res
}

// edt1 is the one-dimensional squared distance transform of f (0 where
// covered, a huge value elsewhere) into out; v and z are scratch space of
// len(f) and len(f)+1.
func edt1(f, out []float64, v []int, z []float64) {
	n := len(f)
	if n == 0 {
		return
	}
	k := 0
	v[0] = 0
	z[0], z[1] = math.Inf(-1), math.Inf(1)
	for q := 1; q < n; q++ {
		var s float64
		for {
			p := v[k]
			s = ((f[q] + float64(q*q)) - (f[p] + float64(p*p))) / float64(2*q-2*p)
			if s > z[k] || k == 0 {
				break
			}
			k--
		}
		if s <= z[k] {
			// Only when k is 0: the new parabola hides the first one.
			v[0] = q
			z[0], z[1] = math.Inf(-1), math.Inf(1)
			continue
		}
		k++
		v[k] = q
		z[k], z[k+1] = s, math.Inf(1)
	}
	k = 0
	for q := range n {
		for z[k+1] < float64(q) {
			k++
		}
		dq := float64(q - v[k])
		out[q] = dq*dq + f[v[k]]
	}
}

// shift moves a mask's content by off inside the same bounds; what moves
// out is lost.
func shift(m *image.Alpha, off image.Point) *image.Alpha {
	b := m.Bounds()
	res := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		sy := y - off.Y
		if sy < b.Min.Y || sy >= b.Max.Y {
			continue
		}
		for x := b.Min.X; x < b.Max.X; x++ {
			if sx := x - off.X; sx >= b.Min.X && sx < b.Max.X {
				res.Pix[res.PixOffset(x, y)] = m.Pix[m.PixOffset(sx, sy)]
			}
		}
	}
	return res
}

// Blur softens a mask in place with three box blurs whose combined
// spread is a Gaussian's of the given sigma, and returns it.
func Blur(m *image.Alpha, sigma float64) *image.Alpha {
	// One pass of radius r has a variance of r(r+1)/3; three add up.
	r := max(1, int(math.Round((math.Sqrt(4*sigma*sigma+1)-1)/2)))
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	buf := make([]float64, w*h)
	for y := range h {
		for x := range w {
			buf[y*w+x] = float64(m.Pix[y*m.Stride+x])
		}
	}
	line := make([]float64, max(w, h))
	for range 3 {
		for y := range h {
			boxLine(buf[y*w:y*w+w], 1, line[:w], r)
		}
		for x := range w {
			boxLine(buf[x:], w, line[:h], r)
		}
	}
	for y := range h {
		for x := range w {
			m.Pix[y*m.Stride+x] = uint8(min(255, max(0, buf[y*w+x]+0.5)))
		}
	}
	return m
}

// boxLine replaces the len(tmp) values of s, step apart, by their mean
// over a window of 2r+1 (edges count as zero, as outside a mask is
// empty); tmp is scratch space.
func boxLine(s []float64, step int, tmp []float64, r int) {
	n := len(tmp)
	for i := range n {
		tmp[i] = s[i*step]
	}
	sum := 0.0
	for i := 0; i <= min(r, n-1); i++ {
		sum += tmp[i]
	}
	k := 1 / float64(2*r+1)
	for i := range n {
		s[i*step] = sum * k
		if j := i + r + 1; j < n {
			sum += tmp[j]
		}
		if j := i - r; j >= 0 {
			sum -= tmp[j]
		}
	}
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
// dst, the mask's bounds moved by at; dst keeps its own alpha where it is
// opaque (source-over in non-premultiplied colour).
func Paint(dst *image.NRGBA, mask *image.Alpha, at image.Point, c color.NRGBA, opacity float64) {
	mb := mask.Bounds()
	area := mb.Add(at).Intersect(dst.Rect)
	k := opacity * float64(c.A) / (255 * 255)
	for y := area.Min.Y; y < area.Max.Y; y++ {
		mrow := mask.Pix[mask.PixOffset(area.Min.X-at.X, y-at.Y):]
		drow := dst.Pix[dst.PixOffset(area.Min.X, y):]
		for i := range area.Dx() {
			if mrow[i] == 0 {
				continue
			}
			sa := float64(mrow[i]) * k
			p := drow[4*i : 4*i+4 : 4*i+4]
			da := float64(p[3]) / 255
			oa := sa + da*(1-sa)
			if oa <= 0 {
				continue
			}
			for j, sc := range [3]uint8{c.R, c.G, c.B} {
				v := (float64(sc)*sa + float64(p[j])*da*(1-sa)) / oa
				p[j] = uint8(v + 0.5)
			}
			p[3] = uint8(oa*255 + 0.5)
		}
	}
}
