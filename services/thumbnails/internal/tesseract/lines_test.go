package tesseract

import (
	"image"
	"image/color"
	"image/draw"
	"slices"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// TestInkBoundsTheLines: a picture of a page of print gives the engine
// maxLines pages, not one per line, and the lines kept include those of
// the tallest letters (two headlines drawn twice as large among them).
func TestInkBoundsTheLines(t *testing.T) {
	small := image.NewGray(image.Rect(0, 0, 320, 240))
	draw.Draw(small, small.Rect, image.Black, image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.White), Face: basicfont.Face7x13}
	for row := range 20 {
		d.Dot = fixed.P(4, 12+row*12)
		d.DrawString("HOOK LINE TEXT HOOK LINE TEXT HOOK")
	}
	// Twice as large: 640×480 with capitals 18 px tall, and on top two
	// headlines of capitals 36 px tall.
	g := image.NewGray(image.Rect(0, 0, 640, 480))
	for y := range 480 {
		for x := range 640 {
			g.Pix[y*g.Stride+x] = small.Pix[(y/2)*small.Stride+x/2]
		}
	}
	big := image.NewGray(image.Rect(0, 0, 160, 24))
	d = font.Drawer{Dst: big, Src: image.NewUniform(color.White), Face: basicfont.Face7x13, Dot: fixed.P(2, 14)}
	d.DrawString("BIG NEWS TODAY")
	for _, top := range []int{150, 300} {
		draw.Draw(g, image.Rect(0, top, 640, top+100), image.Black, image.Point{}, draw.Src)
		for y := range 96 {
			for x := range 640 {
				g.Pix[(top+2+y)*g.Stride+x] = big.Pix[(y/4)*big.Stride+x/4]
			}
		}
	}

	all := inkLines(g)
	if len(all) <= maxLines {
		t.Fatalf("the page of print has %d lines, not more than %d: the test shows nothing", len(all), maxLines)
	}
	if pages := Ink(g); len(pages) != maxLines {
		t.Fatalf("%d pages, want %d", len(pages), maxLines)
	}
	kept := tallest(all, maxLines)
	headlines := 0
	for _, l := range all {
		if medianHeight(l) >= 30 {
			headlines++
			if !slices.ContainsFunc(kept, func(k []shape) bool { return k[0].box == l[0].box }) {
				t.Errorf("a headline line at %v is not read", l[0].box)
			}
		}
	}
	if headlines == 0 {
		t.Fatal("no headline line found")
	}
}
