package imageinput

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
	"time"

	"hookline.dev/pkg/platform/safefetch"
)

func halves(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.NRGBA{0, 0, 255, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func TestShrink(t *testing.T) {
	small := halves(20, 10)
	if got := shrink(small, 20); got != image.Image(small) {
		t.Fatal("an image within the bound was copied")
	}
	if got := shrink(small, 0); got != image.Image(small) {
		t.Fatal("MaxSide 0 changed the image")
	}
	got := shrink(halves(300, 100), 30)
	if b := got.Bounds(); b.Dx() != 30 || b.Dy() != 10 {
		t.Fatalf("bounds %v", b)
	}
	for y := range 10 {
		if r, _, bl, _ := got.At(2, y).RGBA(); r>>8 != 255 || bl != 0 {
			t.Fatalf("left pixel not red: %v", got.At(2, y))
		}
		if r, _, bl, _ := got.At(27, y).RGBA(); r != 0 || bl>>8 != 255 {
			t.Fatalf("right pixel not blue: %v", got.At(27, y))
		}
	}
	// Tall images, odd sizes and non-origin bounds.
	sub := halves(301, 999).SubImage(image.Rect(1, 3, 301, 999))
	if b := shrink(sub, 100).Bounds(); b.Dx() != 30 || b.Dy() != 100 {
		t.Fatalf("tall bounds %v", b)
	}
}

func TestLoadShrinks(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, halves(640, 320), nil); err != nil {
		t.Fatal(err)
	}
	srv, host := site(t, map[string][]byte{"/big.jpg": buf.Bytes()})
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}, Timeout: 5 * time.Second}), MaxSide: 64}
	img, err := src.Load(context.Background(), "org", "f", srv.URL+"/big.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Img.Bounds(); b.Dx() != 64 || b.Dy() != 32 || !bytes.Equal(img.Data, buf.Bytes()) {
		t.Fatalf("bounds %v, data kept: %v", b, bytes.Equal(img.Data, buf.Bytes()))
	}
}

func BenchmarkShrink40MP(b *testing.B) {
	img := halves(8000, 5000)
	b.ResetTimer()
	for b.Loop() {
		shrink(img, 2048)
	}
}
