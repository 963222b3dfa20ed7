package matte

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// texturedDisc is issue 33's subject: a disc of radius r (a fraction of
// the frame's height), its colours a fine texture of every hue, off the
// middle by off (in fractions of the frame).
func texturedDisc(w, h int, off [2]float64, r float64, bg func(x, y int) color.RGBA) scene {
	cx, cy, r := float64(w)*(0.5+off[0]), float64(h)*(0.5+off[1]), float64(h)*r
	inside := func(x, y int) bool { return math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) <= r }
	fg := func(x, y int) color.RGBA {
		return color.RGBA{uint8(40 + x%50), uint8(200 - y%60), uint8((x * y) % 256), 255} //nolint:gosec // G115: small
	}
	return paint(w, h, bg, fg, inside)
}

// verticalGradient runs from a at the top to b at the bottom.
func verticalGradient(h int, a, b color.RGBA) func(x, y int) color.RGBA {
	return func(_, y int) color.RGBA {
		t := float64(y) / float64(h-1)
		l := func(p, q uint8) uint8 { return uint8(float64(p) + (float64(q)-float64(p))*t + 0.5) }
		return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
	}
}

// Issue 33: a plain subject on a plain or graded backdrop is cut out,
// wherever it is in the frame and whatever its texture; before, the disc
// came back unchanged and the rectangle in the corner wholly opaque.
func TestClassicalPlainBackdrop(t *testing.T) {
	const w, h = 640, 360
	blue := plainBackground(color.RGBA{30, 90, 200, 255})
	sky := verticalGradient(h, color.RGBA{20, 50, 130, 255}, color.RGBA{110, 180, 240, 255})
	rng := rand.New(rand.NewPCG(5, 6))
	grain := func(int, int) color.RGBA { return noisy(rng, color.RGBA{30, 90, 200, 255}, 10) }
	rect := func(x, y int) bool { return x >= 60 && x < 260 && y >= 50 && y < 220 }
	for name, s := range map[string]scene{
		"disc on flat blue":           texturedDisc(w, h, [2]float64{}, 1.0/3, blue),
		"disc on a vertical gradient": texturedDisc(w, h, [2]float64{}, 1.0/3, sky),
		"disc on a diagonal gradient": texturedDisc(w, h, [2]float64{0.2, 0.1}, 1.0/3, gradientBackground(w, h, color.RGBA{250, 150, 60, 255}, color.RGBA{60, 40, 140, 255})),
		"disc on grainy blue":         texturedDisc(w, h, [2]float64{}, 1.0/3, grain),
		"disc off the middle":         texturedDisc(w, h, [2]float64{-0.1875, -1.0 / 12}, 100.0/360, blue), // was wholly opaque
		"small disc":                  texturedDisc(w, h, [2]float64{}, 0.17, blue),                        // was wholly transparent
		"small disc in the corner":    texturedDisc(w, h, [2]float64{-0.25, -0.17}, 0.22, sky),
		"rectangle off the middle":    paint(w, h, blue, stripedShirt(rng), rect), // was wholly opaque
		"rectangle on a gradient":     paint(w, h, sky, stripedShirt(rng), rect),
		"disc cut by the bottom edge": texturedDisc(w, h, [2]float64{-0.1, 0.3}, 1.0/3, blue),
		"disc cut by the left edge":   texturedDisc(w, h, [2]float64{-0.45, 0}, 1.0/3, sky),
	} {
		t.Run(name, func(t *testing.T) {
			cut, err := Classical{}.Remove(t.Context(), s.img, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkCut(t, s, cut)
			if !Separated(cut) {
				t.Error("Separated: false")
			}
		})
	}
}

// A backdrop with nothing on it has no subject: the cut-out is wholly
// transparent, and Separated says so. Pure noise is no backdrop, and
// what the faceless seed makes of it separates nothing either.
func TestClassicalNoSubject(t *testing.T) {
	const w, h = 640, 360
	rng := rand.New(rand.NewPCG(7, 8))
	for name, c := range map[string]struct {
		bg    func(x, y int) color.RGBA
		clear bool
	}{
		"flat":     {plainBackground(color.RGBA{120, 130, 140, 255}), true},
		"gradient": {verticalGradient(h, color.RGBA{20, 50, 130, 255}, color.RGBA{110, 180, 240, 255}), true},
		"noise": {func(int, int) color.RGBA {
			return color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255} //nolint:gosec // G115: < 256
		}, false},
	} {
		t.Run(name, func(t *testing.T) {
			s := paint(w, h, c.bg, c.bg, func(int, int) bool { return false })
			cut, err := Classical{}.Remove(t.Context(), s.img, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 3; c.clear && i < len(cut.Pix); i += 4 {
				if cut.Pix[i] != 0 {
					t.Fatalf("pixel %d has alpha %d", i/4, cut.Pix[i])
				}
			}
			if Separated(cut) {
				t.Error("Separated: true for a picture without a subject")
			}
		})
	}
}

// Separated tells a cut-out from the picture unchanged and from nothing.
func TestSeparated(t *testing.T) {
	const w, h = 100, 50
	cut := image.NewNRGBA(image.Rect(0, 0, w, h))
	if Separated(cut) {
		t.Error("wholly transparent: separated")
	}
	for i := 3; i < len(cut.Pix); i += 4 {
		cut.Pix[i] = 255
	}
	if Separated(cut) {
		t.Error("wholly opaque: separated")
	}
	for x := range w {
		cut.Pix[4*x+3] = 0 // the first row (2%) cleared
	}
	if !Separated(cut) {
		t.Error("a subject over 98% of the picture: not separated")
	}
}

// BenchmarkRemovePlainDisc1280x720 times the classical remover on issue
// 33's disc on a vertical gradient at 1280×720, without faces: the
// backdrop model's path.
func BenchmarkRemovePlainDisc1280x720(b *testing.B) {
	s := texturedDisc(1280, 720, [2]float64{-0.1, 0}, 1.0/3, verticalGradient(720, color.RGBA{20, 50, 130, 255}, color.RGBA{110, 180, 240, 255}))
	benchRemove(b, s.img, nil)
}
