package faceswap

import (
	"math"
	"testing"
)

// On a disc whose edge carries a harmonic function, the membrane is that
// function: x² − y² and xy are harmonic for the five-point Laplacian too,
// so the discrete solution is exact and any error is the solver's.
func TestSolveMembraneReproducesHarmonicFunctions(t *testing.T) {
	const w, h = 181, 157
	cx, cy, r := 90.0, 78.0, 70.0
	harmonic := [3]func(x, y float64) float64{
		func(x, y float64) float64 { return ((x-cx)*(x-cx) - (y-cy)*(y-cy)) / 40 },
		func(x, y float64) float64 { return (x - cx) * (y - cy) / 25 },
		func(x, y float64) float64 { return 3*x - 2*y + 100 },
	}
	val := make([]float32, 3*w*h)
	free := make([]bool, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			free[i] = math.Hypot(float64(x)-cx, float64(y)-cy) < r
			if !free[i] {
				for c, f := range harmonic {
					val[3*i+c] = float32(f(float64(x), float64(y)))
				}
			}
		}
	}
	solveMembrane(val, free, w, h, nil)
	for c, f := range harmonic {
		worst := 0.0
		for y := range h {
			for x := range w {
				if free[y*w+x] {
					worst = math.Max(worst, math.Abs(float64(val[3*(y*w+x)+c])-f(float64(x), float64(y))))
				}
			}
		}
		// The functions span hundreds of levels over the disc; the result
		// is written in whole levels.
		if worst > 0.25 {
			t.Errorf("channel %d: largest error %.3f", c, worst)
		}
	}
}

// Every free cell ends as the mean of its four neighbours.
func TestSolveMembraneIsHarmonicOnAnIrregularRegion(t *testing.T) {
	const w, h = 150, 130
	val := make([]float32, 3*w*h)
	free := make([]bool, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			// An ellipse with a notch, and rough boundary values.
			dx, dy := (float64(x)-75)/60, (float64(y)-65)/50
			notch := x > 70 && x < 80 && y < 40
			free[i] = dx*dx+dy*dy < 1 && !notch
			for c := range 3 {
				val[3*i+c] = float32((x*31+y*17+c*53)%97) + float32(c*40)
			}
		}
	}
	solveMembrane(val, free, w, h, nil)
	worst := 0.0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			if !free[i] {
				continue
			}
			for c := range 3 {
				mean := (val[3*(i-1)+c] + val[3*(i+1)+c] + val[3*(i-w)+c] + val[3*(i+w)+c]) / 4
				worst = math.Max(worst, math.Abs(float64(val[3*i+c]-mean)))
			}
		}
	}
	if worst > 0.02 {
		t.Errorf("largest residual %.3f (values span 0..177)", worst)
	}
}
