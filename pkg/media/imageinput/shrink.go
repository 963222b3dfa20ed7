package imageinput

import (
	"image"
	"image/draw"
)

// shrinkStrip is how many source rows are converted to RGBA at a time.
const shrinkStrip = 16

// shrink returns img box-filtered so that its longer side is at most
// maxSide, or img itself when it is small enough (or maxSide ≤ 0). The
// result is an *image.RGBA at the origin. Averaging happens on
// premultiplied values, the correct space for it.
func shrink(img image.Image, maxSide int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	long := max(w, h)
	if maxSide <= 0 || long <= maxSide || w <= 0 || h <= 0 {
		return img
	}
	nw, nh := max(1, w*maxSide/long), max(1, h*maxSide/long)
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))

	// Every source pixel falls in exactly one destination cell; a cell is
	// the plain mean of its pixels.
	colCell := make([]int, w)
	colCount := make([]uint32, nw)
	for x := range colCell {
		colCell[x] = x * nw / w
		colCount[colCell[x]]++
	}
	sums := make([]uint32, 4*nw)
	var rows uint32
	flush := func(cy int) {
		out := dst.Pix[cy*dst.Stride:]
		for cx := range nw {
			n := rows * colCount[cx]
			for c := range 4 {
				i := 4*cx + c
				if n > 0 {
					out[i] = uint8((sums[i] + n/2) / n) //nolint:gosec // G115: rounded mean of n 8-bit samples, at most 255
				}
				sums[i] = 0
			}
		}
		rows = 0
	}
	// Rows are converted a strip at a time with draw.Draw, which has fast
	// paths for every decoder output type.
	strip := image.NewRGBA(image.Rect(0, 0, w, shrinkStrip))
	cur := 0
	for y0 := 0; y0 < h; y0 += shrinkStrip {
		n := min(shrinkStrip, h-y0)
		draw.Draw(strip, image.Rect(0, 0, w, n), img, image.Pt(b.Min.X, b.Min.Y+y0), draw.Src)
		for yy := range n {
			if cy := (y0 + yy) * nh / h; cy != cur {
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
	return dst
}
