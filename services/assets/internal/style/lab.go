package style

import (
	"fmt"
	"math"

	"hookline.dev/pkg/media/colour"
)

// srgbToLinear8 maps an 8-bit sRGB component to linear light, 0..1. A table
// because the tone metrics need it for every sample.
var srgbToLinear8 = func() (t [256]float64) {
	for i := range t {
		t[i] = colour.SRGBToLinear(float64(i) / 255)
	}
	return t
}()

// lab is a CIELAB colour (D65 white): L 0..100, a and b roughly −128..127.
// Euclidean distance in it (ΔE*76) approximates perceived difference well
// enough for clustering, unlike distance in sRGB, which over-separates
// greens and under-separates dark shades.
type lab [3]float64

// rgbToLab converts sRGB components in 0..255 (fractions allowed, as bin
// means are) to CIELAB.
func rgbToLab(r, g, b float64) lab {
	l, a, bb := colour.SRGB8ToLab(r, g, b)
	return lab{l, a, bb}
}

// hex converts c to the nearest in-gamut sRGB colour as "#rrggbb". Cluster
// centres are means of in-gamut colours and so are in gamut up to rounding;
// clamping only absorbs that rounding.
func (c lab) hex() string {
	rl, gl, bl := colour.LabToLinear(c[0], c[1], c[2])
	to8 := func(v float64) int {
		v = colour.LinearToSRGB(math.Max(0, math.Min(1, v)))
		return int(math.Round(v * 255))
	}
	return fmt.Sprintf("#%02x%02x%02x", to8(rl), to8(gl), to8(bl))
}

func dist2(p, q lab) float64 {
	d0, d1, d2 := p[0]-q[0], p[1]-q[1], p[2]-q[2]
	return d0*d0 + d1*d1 + d2*d2
}
