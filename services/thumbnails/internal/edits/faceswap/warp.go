package faceswap

import (
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/media/vision"
)

// sample reads source at the points pts (one per pixel of grid, row-major,
// source coordinates x + iy, pixel centres at half-integers) for the
// pixels of r, which grid holds, and returns their colours as interleaved
// float RGB, row-major over r. Samples are bilinear; outside the
// source they repeat its edge. step is how many source pixels one grid
// pixel spans: a source face much larger than the target's (step above 2)
// is box-shrunk first, because bilinear sampling of every second or third
// pixel would alias skin texture into noise. Transparent parts of the
// source count as composited over black, as a face photo has none.
func sample(source image.Image, pts []complex128, grid, r image.Rectangle, step float64) []float32 {
	sb := source.Bounds()
	gw, w := grid.Dx(), r.Dx()
	// rows calls f with every point of r in order.
	rows := func(f func(i int, z complex128)) {
		for y := range r.Dy() {
			row := pts[(r.Min.Y-grid.Min.Y+y)*gw+r.Min.X-grid.Min.X:][:w]
			for x, z := range row {
				f(y*w+x, z)
			}
		}
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	rows(func(_ int, z complex128) {
		minX, maxX = math.Min(minX, real(z)), math.Max(maxX, real(z))
		minY, maxY = math.Min(minY, imag(z)), math.Max(maxY, imag(z))
	})
	need := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY))).
		Inset(-2).Intersect(sb)
	if need.Empty() {
		// The points lie entirely outside the source; its nearest edge
		// pixels are what clamped sampling would repeat.
		x := clamp(int((minX+maxX)/2), sb.Min.X, sb.Max.X-1)
		y := clamp(int((minY+maxY)/2), sb.Min.Y, sb.Max.Y-1)
		need = image.Rect(x, y, x+1, y+1)
	}
	region := image.NewRGBA(image.Rect(0, 0, need.Dx(), need.Dy()))
	draw.Draw(region, region.Rect, source, need.Min, draw.Src)

	// Source points in region's own pixel grid, scaled when the region
	// is shrunk.
	sx, sy := 1.0, 1.0
	if step > 2 {
		side := max(1, int(math.Ceil(float64(max(need.Dx(), need.Dy()))/step)))
		region = vision.RGBA8(region, side)
		sx = float64(region.Rect.Dx()) / float64(need.Dx())
		sy = float64(region.Rect.Dy()) / float64(need.Dy())
	}
	origin := complex(float64(need.Min.X), float64(need.Min.Y))
	rw, rh := region.Rect.Dx(), region.Rect.Dy()
	out := make([]float32, 3*w*r.Dy())
	rows(func(i int, z complex128) {
		z -= origin
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
		o := out[3*i:]
		for c := range 3 {
			top := float32(p00[c]) + fx*(float32(p10[c])-float32(p00[c]))
			bottom := float32(p01[c]) + fx*(float32(p11[c])-float32(p01[c]))
			o[c] = top + fy*(bottom-top)
		}
	})
	return out
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
