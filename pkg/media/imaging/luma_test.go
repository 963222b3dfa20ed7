package imaging

import "testing"

// Rounded, Luma is exactly the integer Rec. 709 luma the filters index
// their tables with.
func TestLumaRounds(t *testing.T) {
	for r := range 256 {
		for g := range 256 {
			for b := range 256 {
				want := (2126*r + 7152*g + 722*b + 5000) / 10000
				if got := int(Luma(uint8(r), uint8(g), uint8(b)) + 0.5); got != want {
					t.Fatalf("%d,%d,%d: %d, want %d", r, g, b, got, want)
				}
			}
		}
	}
}
