// Package colour is the colour science the services share: the sRGB
// transfer curve (IEC 61966-2-1) and CIELAB with the D65 white of sRGB
// (CIE 15:2004). Assets clusters style palettes in Lab, thumbnails grades
// pictures and matches skin tones in it. Callers that convert every pixel
// tabulate these functions; the definitions live here once.
package colour

import "math"

// SRGBToLinear decodes an sRGB component in 0..1 to linear light.
func SRGBToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// LinearToSRGB encodes a linear-light component in 0..1 as sRGB.
func LinearToSRGB(c float64) float64 {
	if c <= 0.0031308 {
		return 12.92 * c
	}
	return 1.055*math.Pow(c, 1/2.4) - 0.055
}

// The D65 white in CIE XYZ (Y = 1).
const (
	whiteX = 0.95047
	whiteZ = 1.08883
)

// The CIE Lab companding function's breakpoint and slope (CIE 15:2004).
const (
	labEpsilon = 216.0 / 24389
	labKappa   = 24389.0 / 27
)

func labF(t float64) float64 {
	if t > labEpsilon {
		return math.Cbrt(t)
	}
	return (labKappa*t + 16) / 116
}

func labFInv(f float64) float64 {
	if t := f * f * f; t > labEpsilon {
		return t
	}
	return (116*f - 16) / labKappa
}

// LinearToLab converts linear-light sRGB (components 0..1) to CIELAB:
// L 0..100, a and b roughly −128..127.
func LinearToLab(r, g, b float64) (l, a, bb float64) {
	x := (0.4124564*r + 0.3575761*g + 0.1804375*b) / whiteX
	y := 0.2126729*r + 0.7151522*g + 0.0721750*b
	z := (0.0193339*r + 0.1191920*g + 0.9503041*b) / whiteZ
	fx, fy, fz := labF(x), labF(y), labF(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// LabToLinear converts CIELAB to linear-light sRGB, not clamped: a colour
// outside the sRGB gamut has components outside 0..1.
func LabToLinear(l, a, b float64) (r, g, bb float64) {
	fy := (l + 16) / 116
	x, y, z := labFInv(fy+a/500)*whiteX, labFInv(fy), labFInv(fy-b/200)*whiteZ
	return 3.2404542*x - 1.5371385*y - 0.4985314*z,
		-0.9692660*x + 1.8760108*y + 0.0415560*z,
		0.0556434*x - 0.2040259*y + 1.0572252*z
}

// SRGB8ToLab converts 8-bit sRGB components (0..255; fractions allowed,
// as means of components are) to CIELAB.
func SRGB8ToLab(r, g, b float64) (l, a, bb float64) {
	return LinearToLab(SRGBToLinear(r/255), SRGBToLinear(g/255), SRGBToLinear(b/255))
}

// Byte rounds a channel value in 0..255 to the nearest byte, clamping
// what falls outside (filters and blends overshoot).
func Byte(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
