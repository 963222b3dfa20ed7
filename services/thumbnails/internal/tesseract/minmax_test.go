package tesseract

import (
	"image"
	"testing"
)

// TestMinMaxMatchesTheWindow checks the sliding extremes against the
// window scanned pixel by pixel, edges included.
func TestMinMaxMatchesTheWindow(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 37, 23))
	for i := range g.Pix {
		g.Pix[i] = uint8((i*7919 + i*i*31) % 251)
	}
	for _, r := range []int{1, 2, 5, 12} {
		lo, hi := minMax(g, r)
		for y := range 23 {
			for x := range 37 {
				a, b := uint8(0xff), uint8(0)
				for yy := max(0, y-r); yy <= min(22, y+r); yy++ {
					for xx := max(0, x-r); xx <= min(36, x+r); xx++ {
						a, b = min(a, g.Pix[yy*37+xx]), max(b, g.Pix[yy*37+xx])
					}
				}
				if lo[y*37+x] != a || hi[y*37+x] != b {
					t.Fatalf("r=%d (%d,%d): got %d..%d, want %d..%d", r, x, y, lo[y*37+x], hi[y*37+x], a, b)
				}
			}
		}
	}
}
