package lettering

import (
	"image"
	"image/color"
	"testing"
)

// Text lands inside its box only, in both colours, and a longer text
// wraps rather than shrinking to nothing.
func TestDrawStaysInTheBox(t *testing.T) {
	for _, text := range []string{"HI", "A MUCH LONGER HEADLINE HERE"} {
		dst := image.NewNRGBA(image.Rect(0, 0, 400, 300))
		box := image.Rect(50, 100, 350, 200)
		if err := Draw(dst, box, text, color.NRGBA{255, 255, 255, 255}, color.NRGBA{0, 0, 255, 255}); err != nil {
			t.Fatal(err)
		}
		white, blue := 0, 0
		for y := range 300 {
			for x := range 400 {
				c := dst.NRGBAAt(x, y)
				if c.A == 0 {
					continue
				}
				if !image.Pt(x, y).In(box) {
					t.Fatalf("%q: pixel at (%d,%d) outside %v", text, x, y, box)
				}
				if c.R > 200 && c.B > 200 {
					white++
				} else if c.B > 200 {
					blue++
				}
			}
		}
		if white < 1500 || blue < 500 {
			t.Errorf("%q: %d fill and %d stroke pixels", text, white, blue)
		}
	}
}
