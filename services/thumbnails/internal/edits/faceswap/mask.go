package faceswap

import (
	"image"
	"math"
)

// The replaced region, in fractions of the target's face box (which spans
// about hairline to mouth-and-chin, ears just outside): an ellipse from the
// forehead below the hairline to the chin, as wide as the cheeks. Hair,
// ears and the jaw line stay the target's, which is what makes a swapped
// face read as the target person's head with a new face.
const (
	maskCentreX = 0.5
	maskCentreY = 0.55
	maskRadiusX = 0.31
	maskRadiusY = 0.41
	// maskFeather is the Gaussian's σ: wide enough that the source's skin
	// texture fades into the target's over a few pores rather than at a
	// line, narrow enough that the target's hair and ears stay outside.
	maskFeather = 0.035
)

// mask is the feathered face region of a target: weight (0..1, row-major
// over rect) is how much of the swapped face a pixel shows. Every pixel
// outside rect, and every pixel of weight exactly 0, keeps the target's
// colour.
type mask struct {
	rect   image.Rectangle
	weight []float32
}

// faceMask returns the feathered ellipse of face box box, clipped to
// bounds. rect spans the ellipse grown by the feather's reach plus a pixel,
// so the solver sees the target's colour all around the region. Once done
// is closed the feathering stops and the weights are meaningless.
func faceMask(box, bounds image.Rectangle, done <-chan struct{}) mask {
	bw, bh := float64(box.Dx()), float64(box.Dy())
	cx := float64(box.Min.X) + maskCentreX*bw
	cy := float64(box.Min.Y) + maskCentreY*bh
	rx, ry := maskRadiusX*bw, maskRadiusY*bh
	sigma := maskFeather * bw
	reach := int(math.Ceil(3*sigma)) + 1
	rect := image.Rect(
		int(math.Floor(cx-rx)), int(math.Floor(cy-ry)),
		int(math.Ceil(cx+rx)), int(math.Ceil(cy+ry)),
	).Inset(-reach).Intersect(bounds)
	if rect.Empty() {
		return mask{}
	}
	w, h := rect.Dx(), rect.Dy()
	hard := make([]float32, w*h)
	for y := range h {
		dy := (float64(rect.Min.Y+y) + 0.5 - cy) / ry
		for x := range w {
			dx := (float64(rect.Min.X+x) + 0.5 - cx) / rx
			if dx*dx+dy*dy <= 1 {
				hard[y*w+x] = 1
			}
		}
	}
	return mask{rect: rect, weight: gaussianBlur(hard, w, h, sigma, done)}
}

// gaussianBlur returns p (a w×h plane) blurred by a Gaussian of standard
// deviation sigma pixels, separably, with the kernel cut at 3σ and the
// plane's edges repeated. Cutting the kernel keeps the blur of a region
// exactly zero beyond its reach, which is what lets Swap leave the rest of
// the picture untouched. Its cost grows with sigma as well as the plane:
// once done is closed (nil: never) it stops at the next row and returns
// an unfinished result, which the caller discards.
func gaussianBlur(p []float32, w, h int, sigma float64, done <-chan struct{}) []float32 {
	radius := int(math.Ceil(3 * sigma))
	if radius < 1 {
		return append([]float32(nil), p...)
	}
	kernel := make([]float32, 2*radius+1)
	var sum float32
	for i := range kernel {
		d := float64(i - radius)
		kernel[i] = float32(math.Exp(-d * d / (2 * sigma * sigma)))
		sum += kernel[i]
	}
	for i := range kernel {
		kernel[i] /= sum
	}
	tmp := make([]float32, w*h)
	out := make([]float32, w*h)
	for y := range h {
		if stopped(done) {
			return out
		}
		row := p[y*w : (y+1)*w]
		for x := range w {
			var acc float32
			for k, kv := range kernel {
				acc += kv * row[clamp(x+k-radius, 0, w-1)]
			}
			tmp[y*w+x] = acc
		}
	}
	for y := range h {
		if stopped(done) {
			return out
		}
		for x := range w {
			var acc float32
			for k, kv := range kernel {
				acc += kv * tmp[clamp(y+k-radius, 0, h-1)*w+x]
			}
			out[y*w+x] = acc
		}
	}
	return out
}

// stopped reports whether done is closed.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
