// Package dsp holds the signal processing the media code shares: an
// in-place radix-2 FFT, in one and two dimensions.
package dsp

import (
	"math"
	"math/cmplx"
)

// FFT2 transforms an n×n grid in place (n a power of two), rows then
// columns; inverse scales by 1/n².
func FFT2(g []complex128, n int, inverse bool) {
	line := make([]complex128, n)
	for y := range n {
		FFT(g[y*n:(y+1)*n], inverse)
	}
	for x := range n {
		for y := range n {
			line[y] = g[y*n+x]
		}
		FFT(line, inverse)
		for y := range n {
			g[y*n+x] = line[y]
		}
	}
	if inverse {
		s := complex(1/float64(n*n), 0)
		for i := range g {
			g[i] *= s
		}
	}
}

// FFT is an in-place iterative radix-2 FFT of a power-of-two length;
// inverse does not scale.
func FFT(a []complex128, inverse bool) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, sign*2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := range size / 2 {
				u, v := a[start+k], a[start+k+size/2]*wk
				a[start+k], a[start+k+size/2] = u+v, u-v
				wk *= w
			}
		}
	}
}
