package style

import (
	"fmt"
	"math"
)

// srgbToLinear8 maps an 8-bit sRGB component to linear light, 0..1. A table
// because the tone metrics need it for every sample.
var srgbToLinear8 = func() (t [256]float64) {
	for i := range t {
		t[i] = srgbToLinear(float64(i) / 255)
	}
	return t
}()

// srgbToLinear undoes the sRGB transfer curve (IEC 61966-2-1) for v in 0..1.
func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// linearToSRGB applies the sRGB transfer curve to linear v in 0..1.
func linearToSRGB(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// lab is a CIELAB colour (D65 white): L 0..100, a and b roughly −128..127.
// Euclidean distance in it (ΔE*76) approximates perceived difference well
// enough for clustering, unlike distance in sRGB, which over-separates
// greens and under-separates dark shades.
type lab [3]float64

// D65 reference white in XYZ, Y normalised to 1.
const (
	whiteX = 0.95047
	whiteY = 1.0
	whiteZ = 1.08883
)

// labDelta is the breakpoint of CIELAB's piecewise cube root.
const labDelta = 6.0 / 29

func labF(t float64) float64 {
	if t > labDelta*labDelta*labDelta {
		return math.Cbrt(t)
	}
	return t/(3*labDelta*labDelta) + 4.0/29
}

func labFInv(t float64) float64 {
	if t > labDelta {
		return t * t * t
	}
	return 3 * labDelta * labDelta * (t - 4.0/29)
}

// rgbToLab converts sRGB components in 0..255 (fractions allowed, as bin
// means are) to CIELAB.
func rgbToLab(r, g, b float64) lab {
	rl, gl, bl := srgbToLinear(r/255), srgbToLinear(g/255), srgbToLinear(b/255)
	x := 0.4124564*rl + 0.3575761*gl + 0.1804375*bl
	y := 0.2126729*rl + 0.7151522*gl + 0.0721750*bl
	z := 0.0193339*rl + 0.1191920*gl + 0.9503041*bl
	fx, fy, fz := labF(x/whiteX), labF(y/whiteY), labF(z/whiteZ)
	return lab{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// hex converts c to the nearest in-gamut sRGB colour as "#rrggbb". Cluster
// centres are means of in-gamut colours and so are in gamut up to rounding;
// clamping only absorbs that rounding.
func (c lab) hex() string {
	fy := (c[0] + 16) / 116
	fx := fy + c[1]/500
	fz := fy - c[2]/200
	x, y, z := whiteX*labFInv(fx), whiteY*labFInv(fy), whiteZ*labFInv(fz)
	rl := 3.2404542*x - 1.5371385*y - 0.4985314*z
	gl := -0.9692660*x + 1.8760108*y + 0.0415560*z
	bl := 0.0556434*x - 0.2040259*y + 1.0572252*z
	to8 := func(v float64) int {
		v = linearToSRGB(math.Max(0, math.Min(1, v)))
		return int(math.Round(v * 255))
	}
	return fmt.Sprintf("#%02x%02x%02x", to8(rl), to8(gl), to8(bl))
}

func dist2(p, q lab) float64 {
	d0, d1, d2 := p[0]-q[0], p[1]-q[1], p[2]-q[2]
	return d0*d0 + d1*d1 + d2*d2
}
