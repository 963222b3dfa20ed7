package colour

import (
	"math"
	"testing"
)

// Reference values: CIELAB of the sRGB primaries and white (D65), as
// published by Lindbloom's calculator.
func TestLabReferences(t *testing.T) {
	for _, tc := range []struct{ r, g, b, l, a, bb float64 }{
		{255, 255, 255, 100, 0, 0},
		{255, 0, 0, 53.24, 80.09, 67.20},
		{0, 255, 0, 87.73, -86.18, 83.18},
		{0, 0, 255, 32.30, 79.19, -107.86},
		{0, 0, 0, 0, 0, 0},
	} {
		l, a, bb := SRGB8ToLab(tc.r, tc.g, tc.b)
		if math.Abs(l-tc.l) > 0.02 || math.Abs(a-tc.a) > 0.05 || math.Abs(bb-tc.bb) > 0.05 {
			t.Errorf("rgb(%v,%v,%v) = Lab(%.2f, %.2f, %.2f), want (%.2f, %.2f, %.2f)", tc.r, tc.g, tc.b, l, a, bb, tc.l, tc.a, tc.bb)
		}
	}
}

// The published matrices are inverses to about 2e-7, hence the tolerance.
func TestRoundTrips(t *testing.T) {
	for v := 0.0; v <= 1; v += 1.0 / 255 {
		if got := LinearToSRGB(SRGBToLinear(v)); math.Abs(got-v) > 1e-12 {
			t.Fatalf("transfer curve round trip of %v: %v", v, got)
		}
	}
	for _, c := range [][3]float64{{0.2, 0.5, 0.9}, {1, 1, 1}, {0.01, 0, 0.003}, {0.7, 0.7, 0.1}} {
		l, a, b := LinearToLab(c[0], c[1], c[2])
		r, g, bb := LabToLinear(l, a, b)
		if math.Abs(r-c[0]) > 1e-6 || math.Abs(g-c[1]) > 1e-6 || math.Abs(bb-c[2]) > 1e-6 {
			t.Errorf("Lab round trip of %v: %v %v %v", c, r, g, bb)
		}
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string][3]uint8{"#ff8000": {255, 128, 0}, "#f80": {255, 136, 0}, "navy": {20, 35, 90}, "#000": {0, 0, 0}} {
		c, ok := Parse(s)
		if !ok || c.R != want[0] || c.G != want[1] || c.B != want[2] || c.A != 255 {
			t.Errorf("%q: %v %v", s, c, ok)
		}
	}
	for _, s := range []string{"", "#", "#12", "#12345", "#gggggg", "ff8000", "#+12345", "sparkly", "Navy"} {
		if c, ok := Parse(s); ok {
			t.Errorf("%q parsed as %v", s, c)
		}
	}
}
