package vision

import (
	"image"
	"math"
	"math/cmplx"

	"hookline.dev/pkg/media/dsp"
)

// SaliencySize is the side of the square the saliency map is computed on.
const SaliencySize = 64

// Saliency is a map of where the eye goes first, SaliencySize² values in
// 0..1 (row-major) over the whole image, by the spectral residual method
// (Hou & Zhang, 2007): the log amplitude spectrum of the grey image minus
// its local average is what is unexpected in the picture; transformed back
// with the original phase and smoothed, it peaks on the regions that stand
// out.
func Saliency(img image.Image) []float64 {
	const n = SaliencySize
	g := make([]complex128, n*n)
	b := img.Bounds()
	for y := range n {
		for x := range n {
			// Box average of the source pixels that fall in this cell.
			x0, x1 := b.Min.X+x*b.Dx()/n, b.Min.X+(x+1)*b.Dx()/n
			y0, y1 := b.Min.Y+y*b.Dy()/n, b.Min.Y+(y+1)*b.Dy()/n
			sum, cnt := 0.0, 0
			for yy := y0; yy < max(y1, y0+1); yy += max(1, (y1-y0)/4) {
				for xx := x0; xx < max(x1, x0+1); xx += max(1, (x1-x0)/4) {
					r, gg, bb, _ := img.At(xx, yy).RGBA()
					sum += 0.299*float64(r) + 0.587*float64(gg) + 0.114*float64(bb)
					cnt++
				}
			}
			g[y*n+x] = complex(sum/float64(cnt)/65535, 0)
		}
	}
	dsp.FFT2(g, n, false)
	logAmp := make([]float64, n*n)
	phase := make([]float64, n*n)
	for i, c := range g {
		logAmp[i] = math.Log(cmplx.Abs(c) + 1e-2) // a floor: exact zeros of a synthetic spectrum are no information
		phase[i] = cmplx.Phase(c)
	}
	avg := boxBlur(logAmp, n, 1)
	for i := range g {
		g[i] = cmplx.Exp(complex(logAmp[i]-avg[i], phase[i]))
	}
	dsp.FFT2(g, n, true)
	sal := make([]float64, n*n)
	for i, c := range g {
		a := cmplx.Abs(c)
		sal[i] = a * a
	}
	sal = boxBlur(boxBlur(sal, n, 2), n, 2)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range sal {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for i := range sal {
		if hi > lo {
			sal[i] = (sal[i] - lo) / (hi - lo)
		} else {
			sal[i] = 0
		}
	}
	return sal
}

// boxBlur averages each cell of an n×n map with its neighbours within r.
func boxBlur(m []float64, n, r int) []float64 {
	out := make([]float64, len(m))
	for y := range n {
		for x := range n {
			sum, cnt := 0.0, 0
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && xx < n && yy >= 0 && yy < n {
						sum += m[yy*n+xx]
						cnt++
					}
				}
			}
			out[y*n+x] = sum / float64(cnt)
		}
	}
	return out
}
