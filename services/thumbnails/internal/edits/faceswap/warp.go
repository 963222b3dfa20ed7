package faceswap

import (
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/vision"
)

// warp samples source through toSource at the centre of every pixel of r
// (target coordinates) and returns the colours as interleaved float RGB,
// row-major over r. Samples are bilinear; outside the source they repeat
// its edge. A source face much larger than the target's is box-shrunk
// first, because bilinear sampling of every second or third pixel would
// alias skin texture into noise. Transparent parts of the source count as
// composited over black, as a face photo has none.
func warp(source image.Image, toSource similarity, r image.Rectangle) []float32 {
	sb := source.Bounds()
	need := mappedBounds(toSource, r).Inset(-2).Intersect(sb)
	if need.Empty() {
		// The face maps entirely outside the source; its nearest edge
		// pixels are what clamped sampling would repeat.
		c := toSource.apply(rectCentre(r))
		x := clamp(int(real(c)), sb.Min.X, sb.Max.X-1)
		y := clamp(int(imag(c)), sb.Min.Y, sb.Max.Y-1)
		need = image.Rect(x, y, x+1, y+1)
	}
	region := image.NewRGBA(image.Rect(0, 0, need.Dx(), need.Dy()))
	draw.Draw(region, region.Rect, source, need.Min, draw.Src)

	// Map target pixel centres into region's own pixel grid, scaled when
	// the region is shrunk.
	sx, sy := 1.0, 1.0
	if step := cmplxAbs(toSource.a); step > 2 {
		side := max(1, int(math.Ceil(float64(max(need.Dx(), need.Dy()))/step)))
		region = vision.RGBA8(region, side)
		sx = float64(region.Rect.Dx()) / float64(need.Dx())
		sy = float64(region.Rect.Dy()) / float64(need.Dy())
	}
	origin := complex(float64(need.Min.X), float64(need.Min.Y))

	w, h := r.Dx(), r.Dy()
	rw, rh := region.Rect.Dx(), region.Rect.Dy()
	out := make([]float32, 3*w*h)
	for y := range h {
		for x := range w {
			z := toSource.apply(complex(float64(r.Min.X+x)+0.5, float64(r.Min.Y+y)+0.5)) - origin
			u := real(z)*sx - 0.5
			v := imag(z)*sy - 0.5
			x0, y0 := math.Floor(u), math.Floor(v)
			fx, fy := float32(u-x0), float32(v-y0)
			ix0 := clamp(int(x0), 0, rw-1)
			ix1 := clamp(int(x0)+1, 0, rw-1)
			iy0 := clamp(int(y0), 0, rh-1)
			iy1 := clamp(int(y0)+1, 0, rh-1)
			p00 := region.Pix[iy0*region.Stride+4*ix0:]
			p10 := region.Pix[iy0*region.Stride+4*ix1:]
			p01 := region.Pix[iy1*region.Stride+4*ix0:]
			p11 := region.Pix[iy1*region.Stride+4*ix1:]
			o := out[3*(y*w+x):]
			for c := range 3 {
				top := float32(p00[c]) + fx*(float32(p10[c])-float32(p00[c]))
				bottom := float32(p01[c]) + fx*(float32(p11[c])-float32(p01[c]))
				o[c] = top + fy*(bottom-top)
			}
		}
	}
	return out
}

// mappedBounds is the integer bounding box of rectangle r mapped by s.
func mappedBounds(s similarity, r image.Rectangle) image.Rectangle {
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, p := range [4]image.Point{r.Min, {r.Max.X, r.Min.Y}, {r.Min.X, r.Max.Y}, r.Max} {
		z := s.apply(complex(float64(p.X), float64(p.Y)))
		minX, maxX = math.Min(minX, real(z)), math.Max(maxX, real(z))
		minY, maxY = math.Min(minY, imag(z)), math.Max(maxY, imag(z))
	}
	return image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY)))
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
