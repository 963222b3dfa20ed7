package vision

import (
	"image"
	"image/color"
	"math"
	"testing"
)

func fill(w, h int, f func(x, y int) color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, f(x, y))
		}
	}
	return m
}

func TestRMSContrast(t *testing.T) {
	grey := fill(640, 360, func(int, int) color.RGBA { return color.RGBA{128, 128, 128, 255} })
	if c := RMSContrast(grey); c > 1e-9 {
		t.Errorf("flat grey contrast %v, want 0", c)
	}
	halves := fill(640, 360, func(x, _ int) color.RGBA {
		if x < 320 {
			return color.RGBA{0, 0, 0, 255}
		}
		return color.RGBA{255, 255, 255, 255}
	})
	if c := RMSContrast(halves); math.Abs(c-0.5) > 0.01 {
		t.Errorf("black/white halves contrast %v, want 0.5", c)
	}
}

func TestColourfulness(t *testing.T) {
	grey := fill(2000, 1000, func(x, _ int) color.RGBA { v := uint8(x % 256); return color.RGBA{v, v, v, 255} })
	if c := Colourfulness(grey); c > 1e-6 {
		t.Errorf("grey ramp colourfulness %v, want 0", c)
	}
	muted := fill(400, 400, func(x, _ int) color.RGBA { return color.RGBA{140, 120, 110, 255} })
	vivid := fill(400, 400, func(x, _ int) color.RGBA {
		if x < 200 {
			return color.RGBA{255, 0, 0, 255}
		}
		return color.RGBA{0, 0, 255, 255}
	})
	cm, cv := Colourfulness(muted), Colourfulness(vivid)
	if !(cm > 0 && cv > 82 && cv > cm) {
		t.Errorf("muted %v, vivid %v: want 0 < muted < vivid, vivid extremely colourful", cm, cv)
	}
}

func TestRGBA8Shrinks(t *testing.T) {
	m := RGBA8(fill(1000, 10, func(int, int) color.RGBA { return color.RGBA{10, 20, 30, 255} }), 100)
	if m.Rect.Dx() != 100 || m.Rect.Dy() != 1 {
		t.Fatalf("size %v", m.Rect)
	}
	if got := m.RGBAAt(50, 0); got != (color.RGBA{10, 20, 30, 255}) {
		t.Errorf("pixel %v", got)
	}
}
