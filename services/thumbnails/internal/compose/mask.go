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
// over m's inked pixels, so its cost does not grow with the radius.
func dilate(m *image.Alpha, radius float64) *image.Alpha {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	const inf = 1e20
	d := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if m.Pix[y*m.Stride+x] >= 128 {
				d[y*w+x] = 0
			} else {
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
	res := image.NewAlpha(b)
	r := float32(radius)
	for y := 0; y < h; y++ {
		copy(f[:w], d[y*w:y*w+w])
		edt1(f[:w], out[:w], v, z)
		row := res.Pix[y*res.Stride:]
		src := m.Pix[y*m.Stride:]
		for x := 0; x < w; x++ {
			a := r - float32(math.Sqrt(float64(out[x]))) + 0.5
			switch {
			case a >= 1:
				row[x] = 255
			case a > 0:
				row[x] = uint8(a * 255)
			}
			// Keep the antialiased rim of the shape itself.
			row[x] = max(row[x], src[x])
		}
	}
	return res
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
		p[i*stride] = uint8(sum / win)
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

// scaleAlpha multiplies m's coverage by f (0..1).
func scaleAlpha(m *image.Alpha, f float64) {
	k := uint32(f * 256)
	for i, a := range m.Pix {
		m.Pix[i] = uint8(uint32(a) * k >> 8)
	}
}
