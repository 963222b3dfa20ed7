package libvips

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"testing"
)

// EncodeJPEG gives a JPEG of the picture's size and colours.
func TestEncodeJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	halves := map[image.Rectangle]color.RGBA{
		image.Rect(0, 0, 32, 48):  {200, 40, 30, 255},
		image.Rect(32, 0, 64, 48): {20, 60, 220, 255},
	}
	for r, c := range halves {
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
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
	for r, want := range halves {
		p := image.Pt((r.Min.X+r.Max.X)/2, r.Dy()/2)
		got := color.RGBAModel.Convert(out.At(p.X, p.Y)).(color.RGBA)
		for i, v := range [3]int{int(got.R) - int(want.R), int(got.G) - int(want.G), int(got.B) - int(want.B)} {
			if v > 6 || v < -6 {
				t.Errorf("at %v: %v, want %v (channel %d)", p, got, want, i)
			}
		}
	}
}
