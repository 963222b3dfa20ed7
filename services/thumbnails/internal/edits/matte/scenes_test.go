package matte

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/draw"

	"hookline.dev/pkg/testkit"
)

// scene is a synthetic picture with the subject's true mask.
type scene struct {
	img  *image.RGBA
	mask []bool
}

// paint fills img with bg(x, y), then draws every pixel where inside(x, y)
// with fg(x, y) and records the mask.
func paint(w, h int, bg, fg func(x, y int) color.RGBA, inside func(x, y int) bool) scene {
	s := scene{img: image.NewRGBA(image.Rect(0, 0, w, h)), mask: make([]bool, w*h)}
	for y := range h {
		for x := range w {
			c := bg(x, y)
			if inside(x, y) {
				c = fg(x, y)
				s.mask[y*w+x] = true
			}
			s.img.SetRGBA(x, y, c)
		}
	}
	return s
}

// person is a head-and-shoulders silhouette: an elliptical head, a neck,
// and shoulders that run out of the bottom of the frame.
type person struct {
	cx, headY, headRX, headRY float64
	neckW, shoulderY, bodyRX  float64
	h                         float64
}

func newPerson(w, h int) person {
	fw, fh := float64(w), float64(h)
	return person{
		cx: fw / 2, headY: 0.36 * fh, headRX: 0.16 * fh, headRY: 0.21 * fh,
		neckW: 0.09 * fh, shoulderY: 0.70 * fh, bodyRX: 0.55 * fh, h: fh,
	}
}

func (p person) inHead(x, y int) bool {
	dx, dy := (float64(x)+0.5-p.cx)/p.headRX, (float64(y)+0.5-p.headY)/p.headRY
	return dx*dx+dy*dy <= 1
}

func (p person) inside(x, y int) bool {
	fx, fy := float64(x)+0.5, float64(y)+0.5
	if p.inHead(x, y) {
		return true
	}
	if fy > p.headY && fy < p.shoulderY+10 && math.Abs(fx-p.cx) < p.neckW {
		return true
	}
	// Shoulders: the top half of an ellipse whose centre is below the
	// frame.
	ry := p.h - p.shoulderY + 0.25*p.h
	dx, dy := (fx-p.cx)/p.bodyRX, (fy-(p.h+0.25*p.h))/ry
	return dx*dx+dy*dy <= 1
}

// noisy adds seeded uniform noise of ±amp to every channel of c.
func noisy(rng *rand.Rand, c color.RGBA, amp int) color.RGBA {
	j := func(v uint8) uint8 {
		return uint8(min(max(int(v)+rng.IntN(2*amp+1)-amp, 0), 255)) //nolint:gosec // G115: clamped
	}
	return color.RGBA{j(c.R), j(c.G), j(c.B), 255}
}

// stripedShirt is a two-colour striped, noisy fill: a subject of more
// than one colour, with texture.
func stripedShirt(rng *rand.Rand) func(x, y int) color.RGBA {
	return func(x, y int) color.RGBA {
		if (x+y)/14%2 == 0 {
			return noisy(rng, color.RGBA{200, 40, 50, 255}, 12)
		}
		return noisy(rng, color.RGBA{245, 220, 90, 255}, 12)
	}
}

func plainBackground(c color.RGBA) func(x, y int) color.RGBA {
	return func(int, int) color.RGBA { return c }
}

// gradientBackground runs diagonally from a to b across a w×h frame.
func gradientBackground(w, h int, a, b color.RGBA) func(x, y int) color.RGBA {
	return func(x, y int) color.RGBA {
		t := (float64(x)/float64(w) + float64(y)/float64(h)) / 2
		l := func(p, q uint8) uint8 { return uint8(float64(p) + (float64(q)-float64(p))*t + 0.5) }
		return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
	}
}

// personScene draws a person whose head is the real face photograph
// (scaled into the head ellipse) and whose body is a striped shirt.
func personScene(t testing.TB, w, h int, bg func(x, y int) color.RGBA) scene {
	t.Helper()
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	p := newPerson(w, h)
	// The photo's head spans about x 45..275, y 10..380 of 320×400: map
	// that box onto the head ellipse's bounding box.
	headBox := image.Rect(int(p.cx-p.headRX), int(p.headY-p.headRY), int(p.cx+p.headRX), int(p.headY+p.headRY))
	face := image.NewRGBA(headBox)
	draw.CatmullRom.Scale(face, headBox, photo, image.Rect(45, 10, 275, 380), draw.Src, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	shirt := stripedShirt(rng)
	fg := func(x, y int) color.RGBA {
		if p.inHead(x, y) {
			return face.RGBAAt(x, y)
		}
		if float64(y) < p.shoulderY {
			return noisy(rng, color.RGBA{214, 160, 130, 255}, 6) // neck
		}
		return shirt(x, y)
	}
	return paint(w, h, bg, fg, p.inside)
}

// blobScene draws a faceless, salient subject in the middle: a
// five-lobed blob in three noisy colours.
func blobScene(w, h int, bg func(x, y int) color.RGBA) scene {
	rng := rand.New(rand.NewPCG(3, 4))
	cx, cy, r := float64(w)*0.5, float64(h)*0.5, float64(h)*0.3
	inside := func(x, y int) bool {
		dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
		a := math.Atan2(dy, dx)
		return math.Hypot(dx, dy) <= r*(0.8+0.2*math.Cos(5*a))
	}
	fg := func(x, y int) color.RGBA {
		switch {
		case float64(y) < cy-r/3:
			return noisy(rng, color.RGBA{30, 170, 70, 255}, 10)
		case float64(y) < cy+r/3:
			return noisy(rng, color.RGBA{250, 200, 30, 255}, 10)
		default:
			return noisy(rng, color.RGBA{120, 40, 160, 255}, 10)
		}
	}
	return paint(w, h, bg, fg, inside)
}

// iou is the intersection over union of alpha > 0.5 and the mask.
func iou(cut *image.NRGBA, mask []bool) float64 {
	w := cut.Rect.Dx()
	inter, union := 0, 0
	for i, m := range mask {
		a := cut.Pix[(i/w)*cut.Stride+(i%w)*4+3] > 127
		if a && m {
			inter++
		}
		if a || m {
			union++
		}
	}
	return float64(inter) / float64(max(union, 1))
}

// drawScaled draws src scaled into r of dst.
func drawScaled(dst *image.RGBA, r image.Rectangle, src image.Image) {
	draw.CatmullRom.Scale(dst, r, src, src.Bounds(), draw.Src, nil)
}
