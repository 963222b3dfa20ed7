package faceswap

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/colour"
	"hookline.dev/pkg/testkit"
)

// TestWriteExamples writes the example reviewers look at
// (testdata/examples/edits/face-swap.jpg, and the two inputs side by side
// in face-swap-inputs.jpg); run with HOOKLINE_WRITE_EXAMPLES=1.
//
// There is one real face photo, so the two people are made from it: the
// target is the photo enlarged into a warm-lit 16:9 studio frame, the
// source a mirrored, tilted, cool-lit copy with blue irises on a dark
// background. The result keeps the target's frame, hair and light and
// shows the source's face: mirrored features, blue eyes.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	p := photo(t)
	target := studioFrame(p)
	blue := blueEyes(p)
	source := compose(blue, 560, 600, placement{mirror: true, scale: 1.25, angle: 0.1, at: complex(290, 300)},
		[3]float64{0.9, 0.97, 1.1},
		func(x, y int) color.NRGBA { return color.NRGBA{uint8(40 + x/20), 45, uint8(60 + y/12), 255} })
	tFace, sFace := detectOne(t, target), detectOne(t, source)
	got := swap(t, target, tFace, source, sFace)

	writeJPEG(t, filepath.Join(dir, "face-swap.jpg"), got, 88)

	// The inputs, each fitted into a 640×360 half.
	inputs := image.NewNRGBA(image.Rect(0, 0, 1280, 360))
	draw.Draw(inputs, inputs.Rect, image.NewUniform(color.NRGBA{24, 24, 28, 255}), image.Point{}, draw.Src)
	for i, img := range []*image.NRGBA{target, source} {
		w, h := img.Rect.Dx(), img.Rect.Dy()
		s := math.Min(640/float64(w), 360/float64(h))
		small := compose(img, int(float64(w)*s), int(float64(h)*s),
			placement{scale: s, at: complex(float64(w)*s/2, float64(h)*s/2)}, [3]float64{1, 1, 1},
			func(int, int) color.NRGBA { return color.NRGBA{} })
		at := image.Pt(640*i+(640-small.Rect.Dx())/2, (360-small.Rect.Dy())/2)
		draw.Draw(inputs, small.Rect.Add(at), small, image.Point{}, draw.Src)
	}
	writeJPEG(t, filepath.Join(dir, "face-swap-inputs.jpg"), inputs, 80)
}

func writeJPEG(t *testing.T, path string, img image.Image, quality int) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 150<<10 {
		t.Errorf("%s is %d KB", path, buf.Len()>>10)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// studioFrame puts the photo, enlarged to the frame's height, right of
// centre in a 1280×720 frame: a pale wall the photo's own backdrop fades
// into over 110 px at its sides, lit warm from the right, with a red and
// yellow banner on the left where a thumbnail's title would go.
func studioFrame(p *image.NRGBA) *image.NRGBA {
	const w, h = 1280, 720
	pw, ph := p.Rect.Dx(), p.Rect.Dy()
	scale := float64(h) / float64(ph)
	left := 760 - int(float64(pw)*scale/2)
	person := compose(p, int(float64(pw)*scale)+1, h, placement{scale: scale, at: complex(float64(pw)*scale/2, float64(h)/2)},
		[3]float64{1, 1, 1}, func(int, int) color.NRGBA { return color.NRGBA{} })
	sw := person.Rect.Dx()
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		v := float64(y) / h
		wall := [3]float64{238 - 30*v, 234 - 32*v, 232 - 34*v}
		for x := range w {
			c := wall
			// The photo's outermost rows and columns sample outside it.
			if px := x - left; px >= 0 && px < sw && person.NRGBAAt(px, y).A != 0 {
				k := math.Min(1, math.Min(float64(px), float64(sw-1-px))/110)
				k = k * k * (3 - 2*k)
				pc := person.NRGBAAt(px, y)
				c = [3]float64{c[0] + k*(float64(pc.R)-c[0]), c[1] + k*(float64(pc.G)-c[1]), c[2] + k*(float64(pc.B)-c[2])}
			}
			// Warm key light from the right, falling off to the left.
			light := 0.72 + 0.28*float64(x)/w
			c = [3]float64{c[0] * light * 1.05, c[1] * light * 0.92, c[2] * light * 0.8}
			// The banner: a red slab with a yellow rule, slanted.
			if u := float64(x) + 0.25*float64(y); u < 430 && y > 180 && y < 560 {
				c = [3]float64{205, 32, 38}
				if y > 470 && y < 490 {
					c = [3]float64{250, 205, 40}
				}
			}
			out.SetNRGBA(x, y, color.NRGBA{colour.Byte(float32(c[0])), colour.Byte(float32(c[1])), colour.Byte(float32(c[2])), 255})
		}
	}
	return out
}

// blueEyes returns a copy of the photo with its irises turned blue: the
// pixels within an iris's radius of each pupil keep their lightness and
// take a blue chroma, fading out at the rim, sparing the pupil and the
// catch-light.
func blueEyes(p *image.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(p.Rect)
	draw.Draw(out, out.Rect, p, image.Point{}, draw.Src)
	const radius = 8.0
	for _, pupil := range photoPupils {
		cx, cy := real(pupil), imag(pupil)
		for y := int(cy - radius); y <= int(cy+radius); y++ {
			for x := int(cx - radius); x <= int(cx+radius); x++ {
				d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
				if d > radius {
					continue
				}
				c := out.NRGBAAt(x, y)
				l, a, b := rgbToLab(float32(c.R), float32(c.G), float32(c.B))
				if l < 12 || l > 75 {
					continue
				}
				k := float32(math.Min(1, (radius-d)/2))
				l = l*(1+0.35*k) + 4*k
				a += k * (-4 - a)
				b += k * (-32 - b)
				r, g, bb := labToRGB(l, a, b)
				out.SetNRGBA(x, y, color.NRGBA{colour.Byte(r), colour.Byte(g), colour.Byte(bb), 255})
			}
		}
	}
	return out
}
