package faceswap

import (
	"math"
	"testing"
)

func TestLabMatchesReferenceValues(t *testing.T) {
	// Reference values from the CIE formulas with the sRGB primaries and
	// D65 white (as published in Lindbloom's and Ohta's tables).
	for _, c := range []struct {
		rgb, lab [3]float32
	}{
		{[3]float32{255, 255, 255}, [3]float32{100, 0, 0}},
		{[3]float32{0, 0, 0}, [3]float32{0, 0, 0}},
		{[3]float32{255, 0, 0}, [3]float32{53.24, 80.09, 67.20}},
		{[3]float32{0, 0, 255}, [3]float32{32.30, 79.19, -107.86}},
		{[3]float32{119, 119, 119}, [3]float32{50.03, 0, 0}},
	} {
		l, a, b := rgbToLab(c.rgb[0], c.rgb[1], c.rgb[2])
		got := [3]float32{l, a, b}
		for k := range 3 {
			if math.Abs(float64(got[k]-c.lab[k])) > 0.05 {
				t.Errorf("Lab%v = %.2f, want %.2f", c.rgb, got, c.lab)
				break
			}
		}
	}
}

func TestLabRoundTrip(t *testing.T) {
	worst := 0.0
	for r := float32(0); r <= 255; r += 8.5 {
		for g := float32(0); g <= 255; g += 8.5 {
			for b := float32(0.25); b <= 255; b += 8.5 {
				l, a, bb := rgbToLab(r, g, b)
				r2, g2, b2 := labToRGB(l, a, bb)
				worst = math.Max(worst, math.Max(math.Abs(float64(r2-r)), math.Max(math.Abs(float64(g2-g)), math.Abs(float64(b2-b)))))
			}
		}
	}
	if worst > 0.05 {
		t.Errorf("sRGB → Lab → sRGB is off by up to %.3f levels", worst)
	}
}

func TestTransferColourGivesTheTargetsStatistics(t *testing.T) {
	// A pale, cool "source face" and a warm, darker "target face" with a
	// different spread, both textured; half the pixels weigh half.
	const n = 4000
	src := make([]float32, 3*n)
	tgt := make([]float32, 3*n)
	weight := make([]float32, n)
	for i := range n {
		u := float32(math.Sin(float64(i)*0.37)) * float32(math.Cos(float64(i)*0.011))
		src[3*i], src[3*i+1], src[3*i+2] = 200+25*u, 190+20*u, 205+15*u
		tgt[3*i], tgt[3*i+1], tgt[3*i+2] = 170+40*u, 110+30*u, 80+20*u
		weight[i] = 1
		if i%2 == 1 {
			weight[i] = 0.5
		}
	}
	transferColour(src, tgt, weight)
	sMean, sStd := labStats(src, weight, rgbToLab)
	tMean, tStd := labStats(tgt, weight, rgbToLab)
	for k := range 3 {
		if math.Abs(sMean[k]-tMean[k]) > 0.5 || math.Abs(sStd[k]-tStd[k]) > 0.05*tStd[k]+0.1 {
			t.Errorf("channel %d: mean %.2f std %.2f, want the target's %.2f and %.2f", k, sMean[k], sStd[k], tMean[k], tStd[k])
		}
	}
}
