package libvips

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// EncodeJPEG gives a JPEG of the picture's size and colours.
func TestEncodeJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			c := color.RGBA{200, 40, 30, 255}
			if x >= 32 {
				c = color.RGBA{20, 60, 220, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	data, err := EncodeJPEG(img, 90)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if out.Bounds() != img.Rect {
		t.Fatalf("decoded %v, want %v", out.Bounds(), img.Rect)
	}
	for _, p := range []image.Point{{8, 24}, {56, 24}} {
		r, g, b, _ := out.At(p.X, p.Y).RGBA()
		want := img.RGBAAt(p.X, p.Y)
		for i, v := range [3]int{int(r >> 8), int(g >> 8), int(b >> 8)} {
			if d := v - int([3]uint8{want.R, want.G, want.B}[i]); d > 6 || d < -6 {
				t.Errorf("at %v: %d,%d,%d, want %v", p, r>>8, g>>8, b>>8, want)
				break
			}
		}
	}
}
