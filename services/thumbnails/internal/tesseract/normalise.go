package tesseract

import (
	"image"
	"image/draw"
)

// stretchTail is the share of pixels at each end of the luma histogram
// that Normalise lets clip: a few specular highlights or black borders
// must not keep the rest of the picture grey.
const stretchTail = 0.01

// maxGain is the most Normalise stretches the tones: it evens out a dim
// or hazy picture, but text too faint to stand out on its own (grey on
// grey) stays too faint to read, as it does for a viewer.
const maxGain = 2

// Normalise is the grey copy of img the engine reads: BT.709 luma,
// stretched linearly (at most maxGain times, about the middle of the
// range) so that the darkest and lightest 1% of the pixels reach black
// and white. Tesseract binarises with a global threshold;
// text over a dim or washed-out photo separates better once its tones
// span the range. The copy has img's size, with its origin at (0, 0).
func Normalise(img image.Image) *image.Gray {
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Rect.Min != (image.Point{}) {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	}
	w, h := b.Dx(), b.Dy()
	g := image.NewGray(image.Rect(0, 0, w, h))
	var hist [256]int
	for y := range h {
		src := rgba.Pix[y*rgba.Stride:]
		dst := g.Pix[y*g.Stride:]
		for x := range w {
			i := 4 * x
			// BT.709 in 16-bit fixed point.
			v := uint8((13933*uint32(src[i]) + 46871*uint32(src[i+1]) + 4732*uint32(src[i+2]) + 32768) >> 16) //nolint:gosec // G115: the weights sum to 65536, so at most 255
			dst[x] = v
			hist[v]++
		}
	}
	lo, hi := percentiles(&hist, w*h)
	if hi <= lo {
		return g
	}
	if (hi-lo)*maxGain < 255 {
		span := 255 / maxGain
		mid := (lo + hi) / 2
		lo, hi = mid-span/2, mid-span/2+span
		if lo < 0 {
			lo, hi = 0, span
		} else if hi > 255 {
			lo, hi = 255-span, 255
		}
	}
	var lut [256]uint8
	for v := range lut {
		s := (v - lo) * 255 / (hi - lo)
		lut[v] = uint8(min(255, max(0, s))) //nolint:gosec // G115: clamped to 0..255
	}
	for i, v := range g.Pix {
		g.Pix[i] = lut[v]
	}
	return g
}

// percentiles are the luma values below which stretchTail and above
// which stretchTail of the n pixels counted in hist lie.
func percentiles(hist *[256]int, n int) (lo, hi int) {
	cut := int(stretchTail * float64(n))
	seen := 0
	for lo = 0; lo < 255; lo++ {
		if seen += hist[lo]; seen > cut {
			break
		}
	}
	seen = 0
	for hi = 255; hi > 0; hi-- {
		if seen += hist[hi]; seen > cut {
			break
		}
	}
	return lo, hi
}
