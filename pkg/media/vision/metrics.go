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
// area averaging (box filter, on premultiplied values) so that its longer
// side is at most maxSide (0: keep the size). The image is returned as is
// when it already has that form. A shrink converts rgbaStrip rows at a
// time, never the whole picture: a full-size copy of a 40 MP picture is
// 160 MB, and the critique's two readings made two at once.
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
	if w == b.Dx() && h == b.Dy() {
		full := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(full, full.Bounds(), img, b.Min, draw.Src)
		return full
	}
	return boxShrink(img, w, h)
}

// rgbaStrip is how many source rows boxShrink converts to RGBA at a time.
const rgbaStrip = 16

// boxShrink averages img into w×h cells (at the origin), each the
// rounded mean of the source pixels that fall in it.
func boxShrink(img image.Image, w, h int) *image.RGBA {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	colCell := make([]int, sw)
	colCount := make([]uint32, w)
	for x := range colCell {
		colCell[x] = x * w / sw
		colCount[colCell[x]]++
	}
	sums := make([]uint32, 4*w)
	var rows uint32
	flush := func(cy int) {
		dst := out.Pix[cy*out.Stride:]
		for cx := range w {
			n := rows * colCount[cx]
			for k := range 4 {
				i := 4*cx + k
				if n > 0 {
					dst[i] = uint8((sums[i] + n/2) / n) //nolint:gosec // G115: rounded mean of 8-bit samples
				}
				sums[i] = 0
			}
		}
		rows = 0
	}
	// draw.Draw has fast paths for every decoder's output type.
	strip := image.NewRGBA(image.Rect(0, 0, sw, min(rgbaStrip, sh)))
	cur := 0
	for y0 := 0; y0 < sh; y0 += rgbaStrip {
		n := min(rgbaStrip, sh-y0)
		draw.Draw(strip, image.Rect(0, 0, sw, n), img, image.Pt(b.Min.X, b.Min.Y+y0), draw.Src)
		for yy := range n {
			if cy := (y0 + yy) * h / sh; cy != cur {
				flush(cur)
				cur = cy
			}
			rows++
			row := strip.Pix[yy*strip.Stride:]
			for x, cx := range colCell {
				p, s := row[4*x:4*x+4], sums[4*cx:4*cx+4]
				s[0] += uint32(p[0])
				s[1] += uint32(p[1])
				s[2] += uint32(p[2])
				s[3] += uint32(p[3])
			}
		}
	}
	flush(cur)
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
