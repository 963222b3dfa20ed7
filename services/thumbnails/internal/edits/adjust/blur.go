package adjust

import (
	"image"
	"math"
	"slices"

	"hookline.dev/pkg/media/vision"
)

// boxBlur blurs m (at the origin, rows packed) in place with three passes
// of a (2r+1)-wide box each way, which approximates a Gaussian of sigma
// √(r(r+1)) at a cost that does not grow with r. m is premultiplied, so
// transparent pixels do not bleed their meaningless colour into their
// neighbours.
func boxBlur(m *image.RGBA, r int) {
	if r < 1 {
		return
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	tmp := make([]uint8, len(m.Pix))
	for range 3 {
		boxRows(tmp, m.Pix, w, h, r)
		boxCols(m.Pix, tmp, w, h, r)
	}
}

// boxRadius is the box of boxBlur that approximates a Gaussian of sigma.
func boxRadius(sigma float64) int {
	return max(1, int(math.Round((math.Sqrt(1+4*sigma*sigma)-1)/2)))
}

// boxRows writes into dst the mean of each pixel's row window of src,
// repeating the edge pixels past the ends. The running sums may wrap
// between steps but always return to the true window sum.
func boxRows(dst, src []uint8, w, h, r int) {
	n := uint32(2*r + 1) //nolint:gosec // G115: a small radius
	for y := range h {
		s, d := src[4*w*y:4*w*(y+1)], dst[4*w*y:4*w*(y+1)]
		var sum [4]uint32
		for k := -r; k <= r; k++ {
			x := min(max(k, 0), w-1)
			for c := range 4 {
				sum[c] += uint32(s[4*x+c])
			}
		}
		for x := range w {
			add, sub := 4*min(x+r+1, w-1), 4*max(x-r, 0)
			for c := range 4 {
				d[4*x+c] = uint8((sum[c] + n/2) / n) //nolint:gosec // G115: a mean of 8-bit values
				sum[c] += uint32(s[add+c]) - uint32(s[sub+c])
			}
		}
	}
}

// boxCols is boxRows down the columns, all columns at once.
func boxCols(dst, src []uint8, w, h, r int) {
	n := uint32(2*r + 1) //nolint:gosec // G115: a small radius
	stride := 4 * w
	sum := make([]uint32, stride)
	for k := -r; k <= r; k++ {
		row := src[stride*min(max(k, 0), h-1):]
		for i := range stride {
			sum[i] += uint32(row[i])
		}
	}
	for y := range h {
		d := dst[stride*y : stride*(y+1)]
		add, sub := src[stride*min(y+r+1, h-1):], src[stride*max(y-r, 0):]
		for i := range stride {
			d[i] = uint8((sum[i] + n/2) / n) //nolint:gosec // G115: a mean of 8-bit values
			sum[i] += uint32(add[i]) - uint32(sub[i])
		}
	}
}

// blurBackground blurs m outside its subject: a Gaussian of sigma 1/120
// of the longer side (a strong background blur at any size), blended in
// by a soft mask that is 1 on the subject.
func blurBackground(m *image.NRGBA, src image.Image, faces []vision.Face) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	var mask []float32
	if len(faces) > 0 {
		mask = faceMask(w, h, faces, src.Bounds().Min)
	} else {
		mask = salientMask(w, h, vision.Saliency(m))
	}
	blur := toRGBA(m)
	boxBlur(blur, boxRadius(max(2, float64(max(w, h))/120)))
	for p, k := range mask {
		if k >= 1 {
			continue
		}
		i := 4 * p
		a := blur.Pix[i+3]
		for c := range 3 {
			m.Pix[i+c] = clamp8(float64(k)*float64(m.Pix[i+c]) + float64(1-k)*float64(unpremulFast(blur.Pix[i+c], a)))
		}
		m.Pix[i+3] = clamp8(float64(k)*float64(m.Pix[i+3]) + float64(1-k)*float64(a))
	}
}

// ellipse is a soft elliptical region: 1 inside, falling smoothly to 0
// over feather radii outside.
type ellipse struct{ cx, cy, rx, ry, feather float64 }

func (e ellipse) at(x, y float64) float64 {
	dx, dy := (x-e.cx)/e.rx, (y-e.cy)/e.ry
	return 1 - smoothstep(1, 1+e.feather, math.Sqrt(dx*dx+dy*dy))
}

// faceMask covers each face's head and shoulders. A face box reaches
// from about the brows or hairline to the chin and from ear to ear, so
// the head is an ellipse reaching 0.4 of the box's height above it
// (hair) and a little past the chin, and the shoulders a wider ellipse
// from the chin down; both fade out over a quarter of their radius.
func faceMask(w, h int, faces []vision.Face, origin image.Point) []float32 {
	var parts []ellipse
	for _, f := range faces {
		r := f.Rect.Sub(origin)
		fw, fh := float64(r.Dx()), float64(r.Dy())
		cx := float64(r.Min.X) + fw/2
		top := float64(r.Min.Y)
		parts = append(parts,
			ellipse{cx: cx, cy: top + 0.4*fh, rx: 0.62 * fw, ry: 0.8 * fh, feather: 0.25},
			ellipse{cx: cx, cy: top + 1.65*fh, rx: 1.3 * fw, ry: 0.6 * fh, feather: 0.25},
		)
	}
	mask := make([]float32, w*h)
	for y := range h {
		for x := range w {
			k := 0.0
			for _, e := range parts {
				k = max(k, e.at(float64(x)+0.5, float64(y)+0.5))
			}
			mask[y*w+x] = float32(k)
		}
	}
	return mask
}

// salientMask keeps the subject the saliency map points at. Spectral-
// residual saliency lights up a subject's outline and details rather than
// its inside, so the subject is taken as the ellipse around the map's
// mass above its 75th percentile: centred on that mass, with radii of 1.6
// times its spread along each axis (an outline of radius r has a spread
// of r/√2, a filled disc r/2), at least an eighth of the frame. On a flat
// map, with no mass to place, it is the middle of the frame, where a
// subject would be.
func salientMask(w, h int, sal []float64) []float32 {
	const n = vision.SaliencySize
	sorted := slices.Clone(sal)
	slices.Sort(sorted)
	floor := sorted[len(sorted)*75/100]
	var sw, sx, sy, sxx, syy float64
	for i, s := range sal {
		k := s - floor
		if k <= 0 {
			continue
		}
		x, y := (float64(i%n)+0.5)/n, (float64(i/n)+0.5)/n
		sw, sx, sy, sxx, syy = sw+k, sx+k*x, sy+k*y, sxx+k*x*x, syy+k*y*y
	}
	subject := ellipse{cx: 0.5, cy: 0.5, rx: 0.25, ry: 0.33, feather: 0.35}
	if sw > 1e-6 {
		mx, my := sx/sw, sy/sw
		subject.cx, subject.cy = mx, my
		subject.rx = max(1.6*math.Sqrt(max(sxx/sw-mx*mx, 0)), 0.125)
		subject.ry = max(1.6*math.Sqrt(max(syy/sw-my*my, 0)), 0.125)
	}
	mask := make([]float32, w*h)
	for y := range h {
		v := (float64(y) + 0.5) / float64(h)
		for x := range w {
			mask[y*w+x] = float32(subject.at((float64(x)+0.5)/float64(w), v))
		}
	}
	return mask
}
