package vision

import (
	"image"
	"image/color"
	"math"
	"runtime"
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

// A shrink never copies the whole picture: a 3000×2000 YCbCr picture
// (24 MB as RGBA) shrunk to 512 px allocates a small fraction of that,
// and its cells are the means of the source's pixels.
func TestRGBA8ShrinksWithoutAFullCopy(t *testing.T) {
	src := image.NewYCbCr(image.Rect(0, 0, 3000, 2000), image.YCbCrSubsampleRatio420)
	for i := range src.Y {
		src.Y[i] = uint8(i % 3000 * 255 / 2999) // a ramp from black to white, left to right
	}
	for i := range src.Cb {
		src.Cb[i], src.Cr[i] = 128, 128
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := RGBA8(src, 512)
	runtime.ReadMemStats(&after)
	if m.Rect.Dx() != 512 || m.Rect.Dy() != 341 {
		t.Fatalf("size %v", m.Rect)
	}
	if got, full := after.TotalAlloc-before.TotalAlloc, uint64(4*3000*2000); got > full/8 {
		t.Errorf("allocated %d bytes, a full RGBA copy is %d", got, full)
	}
	if l, r := m.RGBAAt(0, 100).R, m.RGBAAt(511, 100).R; l > 5 || r < 250 {
		t.Errorf("ramp ends %d and %d, want about 0 and 255", l, r)
	}
}
