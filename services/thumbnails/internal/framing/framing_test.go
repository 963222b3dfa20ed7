package framing

import (
	"image"
	"image/color"
	"math"
	"testing"

	"hookline.dev/pkg/vision"
)

func TestWindowShapes(t *testing.T) {
	b := image.Rect(0, 0, 1000, 1000)
	for aspect, want := range map[string]image.Point{"16:9": {1000, 563}, "9:16": {563, 1000}} {
		r := Window(b, Ratio(aspect), nil, nil)
		if r.Size() != want || !r.In(b) {
			t.Errorf("%s: %v", aspect, r)
		}
	}
	wide := Window(image.Rect(0, 0, 1920, 1080), 16.0/9, nil, nil)
	if wide != image.Rect(0, 0, 1920, 1080) {
		t.Errorf("a 16:9 picture cropped to 16:9 is itself, got %v", wide)
	}
}

func TestWindowKeepsFaces(t *testing.T) {
	b := image.Rect(0, 0, 1000, 1000)
	low := []vision.Face{{Rect: image.Rect(600, 800, 700, 900)}}
	r := Window(b, 16.0/9, low, nil)
	if !low[0].Rect.In(r) {
		t.Errorf("face %v outside the crop %v", low[0].Rect, r)
	}
	// Two faces that fit are both kept; centred between them.
	two := []vision.Face{{Rect: image.Rect(100, 100, 200, 200)}, {Rect: image.Rect(100, 500, 200, 600)}}
	r = Window(b, 16.0/9, two, nil)
	if !two[0].Rect.In(r) || !two[1].Rect.In(r) {
		t.Errorf("faces %v outside the crop %v", two, r)
	}
}

func TestCropFollowsSaliency(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 900, 900))
	for y := range 900 {
		for x := range 900 {
			c := color.RGBA{120, 120, 120, 255}
			if math.Hypot(float64(x-450), float64(y-780)) < 60 {
				c = color.RGBA{250, 30, 30, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	out := Crop(img, "16:9", nil, vision.Saliency(img))
	if out.Bounds().Dx() != 900 || out.Bounds().Dy() != 506 {
		t.Fatalf("size %v", out.Bounds())
	}
	// The red disc near the bottom is inside the crop (π·60² ≈ 11300 px).
	red := 0
	for y := range out.Bounds().Dy() {
		for x := range out.Bounds().Dx() {
			if c := out.NRGBAAt(x, y); c.R > 200 && c.G < 80 {
				red++
			}
		}
	}
	if want := 10700; red < want {
		t.Errorf("%d red pixels kept, want ≥ %d", red, want)
	}
}
