package dsp

import (
	"math"
	"math/cmplx"
	"testing"
)

func TestFFTRoundTrip(t *testing.T) {
	const n = 8
	g := make([]complex128, n*n)
	for i := range g {
		g[i] = complex(float64(i%7), float64(i%3))
	}
	orig := append([]complex128(nil), g...)
	FFT2(g, n, false)
	FFT2(g, n, true)
	for i := range g {
		if cmplx.Abs(g[i]-orig[i]) > 1e-9 {
			t.Fatalf("cell %d: %v, want %v", i, g[i], orig[i])
		}
	}
}

func TestFFTIsTheDFT(t *testing.T) {
	const n = 16
	a := make([]complex128, n)
	for i := range a {
		a[i] = complex(float64(i*i%7), float64(i%3))
	}
	want := make([]complex128, n)
	for k := range n {
		for j := range n {
			want[k] += a[j] * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/n))
		}
	}
	FFT(a, false)
	for k := range a {
		if cmplx.Abs(a[k]-want[k]) > 1e-9 {
			t.Fatalf("bin %d: %v, want %v", k, a[k], want[k])
		}
	}
}
