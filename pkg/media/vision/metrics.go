package vision

import (
	"image"
	"image/draw"
	"math"
)

// metricSide bounds the longer side the global metrics are measured at:
// contrast and colourfulness are statistics of the whole picture, which a
// box-filtered copy keeps while costing a fixed time for any input size.
const metricSide = 512

// RGBA8 returns img as 8-bit RGBA whose bounds start at (0,0), shrunk by
// area averaging (box filter) so that its longer side is at most maxSide
// (0: keep the size). The image is returned as is when it already has that
// form.
func RGBA8(img image.Image, maxSide int) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if maxSide > 0 && max(w, h) > maxSide {
		if w >= h {
			w, h = maxSide, max(1, h*maxSide/w)
		} else {
			w, h = max(1, w*maxSide/h), maxSide
		}
	}
	if m, ok := img.(*image.RGBA); ok && b.Min == (image.Point{}) && w == b.Dx() && h == b.Dy() {
		return m
	}
	full := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(full, full.Bounds(), img, b.Min, draw.Src)
	if w == b.Dx() && h == b.Dy() {
		return full
	}
	return boxShrink(full, w, h)
}

// boxShrink averages src (bounds at the origin) into w×h cells.
func boxShrink(src *image.RGBA, w, h int) *image.RGBA {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	sums := make([]uint32, 4*w*h)
	counts := make([]uint32, w*h)
	for y := range sh {
		cy := y * h / sh
		row := src.Pix[y*src.Stride:]
		for x := range sw {
			c := cy*w + x*w/sw
			i := 4 * x
			sums[4*c] += uint32(row[i])
			sums[4*c+1] += uint32(row[i+1])
			sums[4*c+2] += uint32(row[i+2])
			sums[4*c+3] += uint32(row[i+3])
			counts[c]++
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for c, n := range counts {
		if n == 0 {
			continue
		}
		for k := range 4 {
			out.Pix[4*c+k] = uint8((sums[4*c+k] + n/2) / n) //nolint:gosec // G115: mean of 8-bit samples
		}
	}
	return out
}

// RMSContrast is the standard deviation of the picture's relative
// luminance (BT.709 weights on 0..1 components), 0 for a flat picture and
// at most 0.5 for one half black, half white.
func RMSContrast(img image.Image) float64 {
	m := RGBA8(img, metricSide)
	var sum, sq float64
	n := float64(m.Rect.Dx() * m.Rect.Dy())
	for i := 0; i < len(m.Pix); i += 4 {
		l := (0.2126*float64(m.Pix[i]) + 0.7152*float64(m.Pix[i+1]) + 0.0722*float64(m.Pix[i+2])) / 255
		sum += l
		sq += l * l
	}
	mean := sum / n
	return math.Sqrt(max(0, sq/n-mean*mean))
}

// Colourfulness is Hasler and Süsstrunk's colourfulness metric (2003) on
// 8-bit components: σ_rgyb + 0.3·μ_rgyb over the opponent channels
// rg = R−G and yb = (R+G)/2 − B. 0 is grey; about 15 is "slightly",
// 33 "moderately", 59 "highly" and above 82 "extremely colourful".
func Colourfulness(img image.Image) float64 {
	m := RGBA8(img, metricSide)
	var srg, syb, qrg, qyb float64
	n := float64(m.Rect.Dx() * m.Rect.Dy())
	for i := 0; i < len(m.Pix); i += 4 {
		r, g, b := float64(m.Pix[i]), float64(m.Pix[i+1]), float64(m.Pix[i+2])
		rg := r - g
		yb := (r+g)/2 - b
		srg += rg
		syb += yb
		qrg += rg * rg
		qyb += yb * yb
	}
	mrg, myb := srg/n, syb/n
	vrg := max(0, qrg/n-mrg*mrg)
	vyb := max(0, qyb/n-myb*myb)
	return math.Sqrt(vrg+vyb) + 0.3*math.Sqrt(mrg*mrg+myb*myb)
}
