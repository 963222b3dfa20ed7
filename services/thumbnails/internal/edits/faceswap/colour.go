package faceswap

import (
	"math"

	"hookline.dev/pkg/media/colour"
)

// maxStdRatio bounds how much the transfer may stretch or squeeze a
// channel's spread. A source face lit flat and a target in hard light (or
// the reverse) would otherwise have their noise amplified into blotches
// or their features flattened away.
const maxStdRatio = 2.5

// transferColour gives src (interleaved float sRGB, 0..255) the colour
// statistics of tgt, both measured over the face region weighted by
// weight: Reinhard et al.'s transfer, shifting and scaling each CIELAB
// channel so its mean and standard deviation become the target's. Lab
// separates lightness from the two chroma axes, so a source photographed
// under a different light or with a different skin tone takes the
// target's tone without its features changing shape.
func transferColour(src, tgt, weight []float32) {
	lab := make([]float32, len(src))
	for i := 0; i+2 < len(src); i += 3 {
		lab[i], lab[i+1], lab[i+2] = rgbToLab(src[i], src[i+1], src[i+2])
	}
	sMean, sStd := labStats(lab, weight, nil)
	tMean, tStd := labStats(tgt, weight, rgbToLab)
	var scale [3]float32
	for c := range 3 {
		k := 1.0
		if sStd[c] > 0 {
			k = tStd[c] / sStd[c]
		}
		scale[c] = float32(math.Min(maxStdRatio, math.Max(1/maxStdRatio, k)))
	}
	for i := 0; i+2 < len(src); i += 3 {
		var v [3]float32
		for c := range 3 {
			v[c] = (lab[i+c]-float32(sMean[c]))*scale[c] + float32(tMean[c])
		}
		src[i], src[i+1], src[i+2] = labToRGB(v[0], v[1], v[2])
	}
}

// labStats returns the weighted mean and standard deviation of each
// channel of p (interleaved, one weight per pixel), converting each pixel
// with convert first when it is not nil.
func labStats(p, weight []float32, convert func(r, g, b float32) (float32, float32, float32)) (mean, std [3]float64) {
	var sum, sq [3]float64
	var total float64
	for j, w := range weight {
		if w == 0 {
			continue
		}
		v := [3]float32{p[3*j], p[3*j+1], p[3*j+2]}
		if convert != nil {
			v[0], v[1], v[2] = convert(v[0], v[1], v[2])
		}
		for c := range 3 {
			sum[c] += float64(w) * float64(v[c])
			sq[c] += float64(w) * float64(v[c]) * float64(v[c])
		}
		total += float64(w)
	}
	if total == 0 {
		return mean, std
	}
	for c := range 3 {
		mean[c] = sum[c] / total
		std[c] = math.Sqrt(math.Max(0, sq[c]/total-mean[c]*mean[c]))
	}
	return mean, std
}

// rgbToLab converts an sRGB colour (components 0..255) to CIELAB (D65).
func rgbToLab(r, g, b float32) (l, a, bb float32) {
	L, A, B := colour.LinearToLab(linear(r), linear(g), linear(b))
	return float32(L), float32(A), float32(B)
}

// labToRGB converts CIELAB (D65) to sRGB components 0..255, not clamped:
// colours outside the gamut are clamped when written.
func labToRGB(l, a, b float32) (r, g, bb float32) {
	lr, lg, lb := colour.LabToLinear(float64(l), float64(a), float64(b))
	return encode(lr), encode(lg), encode(lb)
}

// The sRGB transfer curve is a power law, and math.Pow per channel per
// pixel was most of a swap's time. Both directions are tabulated finely
// enough that linear interpolation between entries is exact to a
// hundredth of a level.
const (
	linearSteps = 4 * 255 // entries per 0..255 of sRGB
	encodeSteps = 4096    // entries per 0..1 of linear light
)

var (
	linearTable = tabulate(linearSteps, func(v float64) float64 { return decodeSRGB(v * 255) })
	encodeTable = tabulate(encodeSteps, func(c float64) float64 { return encodeSRGB(c) })
)

func tabulate(steps int, f func(float64) float64) []float32 {
	t := make([]float32, steps+2) // one spare entry for the interpolation at the end
	for i := range t {
		t[i] = float32(f(float64(i) / float64(steps)))
	}
	return t
}

// lookup interpolates table t (steps entries per unit) at x in [0, 1].
func lookup(t []float32, steps int, x float64) float32 {
	p := x * float64(steps)
	i := int(p)
	f := float32(p - float64(i))
	return t[i] + f*(t[i+1]-t[i])
}

// linear decodes an sRGB component (0..255) to linear light (0..1).
func linear(v float32) float64 {
	if v <= 0 || v >= 255 {
		return decodeSRGB(float64(v))
	}
	return float64(lookup(linearTable, linearSteps, float64(v)/255))
}

// encode is the inverse of linear.
func encode(c float64) float32 {
	if c <= 0 || c >= 1 {
		return float32(encodeSRGB(c))
	}
	return lookup(encodeTable, encodeSteps, c)
}

func decodeSRGB(v float64) float64 { return colour.SRGBToLinear(v / 255) }

func encodeSRGB(c float64) float64 { return 255 * colour.LinearToSRGB(c) }
