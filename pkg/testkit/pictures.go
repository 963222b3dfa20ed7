package testkit

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// SolidPNG is a w×h PNG of one colour.
func SolidPNG(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	return encodePNG(t, img)
}

// GradientPNG is a w×h PNG whose red grows to the right and green
// downwards: a picture without a face, and with no two rows alike.
func GradientPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255}) //nolint:gosec // G115: x < w and y < h keep both below 255
		}
	}
	return encodePNG(t, img)
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
