package media

import (
	"math"

	"hookline.dev/pkg/media/dsp"
)

// fft measures spectral flatness on frames of a fixed size with a Hann
// window.
type fft struct {
	n    int
	hann []float64
	buf  []complex128
}

func newFFT(n int) *fft {
	f := &fft{n: n, hann: make([]float64, n), buf: make([]complex128, n)}
	for i := range f.hann {
		f.hann[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1))
	}
	return f
}

// flatness returns the mean spectral flatness (geometric over arithmetic
// mean of the power spectrum, 0 for a pure tone, near 1 for white noise)
// of the whole frames of x; 0 if x is shorter than one frame.
func (f *fft) flatness(x []float64) float64 {
	var total float64
	frames := 0
	for off := 0; off+f.n <= len(x); off += f.n {
		total += f.frame(x[off : off+f.n])
		frames++
	}
	if frames == 0 {
		return 0
	}
	return total / float64(frames)
}

func (f *fft) frame(x []float64) float64 {
	a, n := f.buf, f.n
	for i := range n {
		a[i] = complex(x[i]*f.hann[i], 0)
	}
	dsp.FFT(a, false)
	var logSum, sum float64
	for k := 1; k < n/2; k++ {
		p := real(a[k])*real(a[k]) + imag(a[k])*imag(a[k]) + 1e-12
		logSum += math.Log(p)
		sum += p
	}
	bins := float64(n/2 - 1)
	return math.Exp(logSum/bins) / (sum / bins)
}
