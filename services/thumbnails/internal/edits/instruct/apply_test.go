package instruct

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"testing"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
)

// scene is a picture with something to measure in every way: a
// horizontal gradient of muted colours with a darker disc.
func scene(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			u, v := float64(x)/float64(w), float64(y)/float64(h)
			c := color.NRGBA{uint8(70 + 110*u), uint8(90 + 60*v), uint8(150 - 60*u), 255}
			if math.Hypot(float64(x)-0.65*float64(w), float64(y)-0.5*float64(h)) < 0.2*float64(h) {
				c = color.NRGBA{c.R / 2, c.G / 2, c.B/2 + 40, 255}
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

func apply(t *testing.T, prompt string, img image.Image, faces []vision.Face) *image.NRGBA {
	t.Helper()
	p, err := Parse(prompt)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(img, faces, vision.Saliency(img))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func meanLuma(img *image.NRGBA) float64 {
	var s float64
	for i := 0; i < len(img.Pix); i += 4 {
		s += imaging.Luma(img.Pix[i], img.Pix[i+1], img.Pix[i+2])
	}
	return s / float64(len(img.Pix)/4)
}

// Each adjustment moves its measure the right way, more with a stronger
// degree, and keeps the size.
func TestAdjustmentsMoveTheirMeasure(t *testing.T) {
	src := scene(320, 180)
	for _, c := range []struct {
		name    string
		measure func(*image.NRGBA) float64
		prompts []string // in increasing order of the measure
	}{
		{"mean luma", meanLuma, []string{"much darker", "darker", "slightly darker", "", "slightly brighter", "brighter", "much brighter"}},
		{"RMS contrast", func(m *image.NRGBA) float64 { return vision.RMSContrast(m) },
			[]string{"much less contrast", "less contrast", "slightly less contrast", "", "slightly more contrast", "more contrast", "much more contrast"}},
		{"colourfulness", func(m *image.NRGBA) float64 { return vision.Colourfulness(m) },
			[]string{"much less saturated", "desaturate", "slightly less saturated", "", "slightly more saturated", "saturate", "much more vivid"}},
	} {
		prev := math.Inf(-1)
		for _, prompt := range c.prompts {
			out := src
			if prompt != "" {
				out = apply(t, prompt, src, nil)
			}
			if out.Bounds() != src.Bounds() {
				t.Fatalf("%q changed the size to %v", prompt, out.Bounds())
			}
			v := c.measure(out)
			t.Logf("%s %q: %.4f", c.name, prompt, v)
			if v <= prev*1.01 {
				t.Errorf("%s after %q is %.4f, not above the previous %.4f", c.name, prompt, v, prev)
			}
			prev = v
		}
	}
}

// Saturating keeps each pixel's hue: the order of its channels.
func TestSaturateKeepsHue(t *testing.T) {
	src := scene(64, 36)
	out := apply(t, "much more saturated", src, nil)
	for i := 0; i < len(src.Pix); i += 4 {
		s, o := src.Pix[i:i+3], out.Pix[i:i+3]
		for a := range 3 {
			for b := range 3 {
				if s[a] > s[b]+2 && o[a] < o[b] {
					t.Fatalf("pixel %d: %v became %v", i/4, s, o)
				}
			}
		}
	}
}

func TestMirrorFlips(t *testing.T) {
	src := scene(97, 41) // odd width: the middle column stays
	out := apply(t, "flip horizontally", src, nil)
	w := src.Rect.Dx()
	for y := range src.Rect.Dy() {
		for x := range w {
			if out.NRGBAAt(x, y) != src.NRGBAAt(w-1-x, y) {
				t.Fatalf("(%d,%d) is %v, the source's (%d,%d) is %v", x, y, out.NRGBAAt(x, y), w-1-x, y, src.NRGBAAt(w-1-x, y))
			}
		}
	}
	if twice := apply(t, "mirror and mirror", src, nil); !bytes.Equal(twice.Pix, src.Pix) {
		t.Error("mirroring twice is not the source")
	}
}

// facePicture is the sample face photo at (x, y) of a w×h grey picture,
// with the faces found in it.
func facePicture(t *testing.T, w, h, x, y int) (*image.NRGBA, []vision.Face) {
	t.Helper()
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(m, m.Rect, image.NewUniform(color.NRGBA{96, 104, 112, 255}), image.Point{}, draw.Src)
	draw.Draw(m, photo.Bounds().Add(image.Pt(x, y)), photo, photo.Bounds().Min, draw.Src)
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	faces := det.Detect(m)
	if len(faces) == 0 {
		t.Fatal("no face found in the sample photo")
	}
	return m, faces
}

func TestCropKeepsTheFace(t *testing.T) {
	// The face low and to the right in a square picture.
	src, faces := facePicture(t, 1000, 1000, 600, 560)
	out := apply(t, "crop to 16:9", src, faces)
	if w, h := out.Rect.Dx(), out.Rect.Dy(); w != 1000 || h != 562 && h != 563 {
		t.Fatalf("16:9 of 1000×1000 is %d×%d", w, h)
	}
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	found := det.Detect(out)
	if len(found) == 0 {
		t.Fatal("the crop lost the face")
	}
	if d, s := found[0].Rect.Dx(), faces[0].Rect.Dx(); math.Abs(float64(d-s)) > 0.15*float64(s) {
		t.Errorf("the face in the crop is %d wide, in the source %d", d, s)
	}
}

// An edit's aspectRatio is a last crop, which follows the program's
// mirror: the face at the left of the source is at the right after it,
// and the 9:16 crop keeps it.
func TestCroppedTo(t *testing.T) {
	p, err := Parse("mirror")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.CroppedTo("9:16").String(); got != "mirror, crop to 9:16" {
		t.Errorf("%q", got)
	}
	if got := p.CroppedTo("").String(); got != "mirror" {
		t.Errorf("no aspect: %q", got)
	}
	src, faces := facePicture(t, 1600, 900, 80, 250)
	out, err := p.CroppedTo("9:16").Apply(src, faces, vision.Saliency(src))
	if err != nil {
		t.Fatal(err)
	}
	if out.Rect.Dx() != 506 || out.Rect.Dy() != 900 {
		t.Fatalf("size %v", out.Rect)
	}
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	if len(det.Detect(out)) == 0 {
		t.Error("the crop after the mirror lost the face")
	}
	if p.String() != "mirror" {
		t.Error("CroppedTo changed the program it was called on")
	}
}

// changedIn is the bounding box of the pixels that differ.
func changedIn(a, b *image.NRGBA) image.Rectangle {
	var r image.Rectangle
	for y := range a.Rect.Dy() {
		for x := range a.Rect.Dx() {
			if a.NRGBAAt(x, y) != b.NRGBAAt(x, y) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// whiteIn counts near-white pixels in r.
func whiteIn(m *image.NRGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := m.NRGBAAt(x, y); c.R > 235 && c.G > 235 && c.B > 235 {
				n++
			}
		}
	}
	return n
}

func TestAddTextStaysInItsBand(t *testing.T) {
	src := scene(640, 360) // no white in it
	for where, band := range map[string]image.Rectangle{
		"top":    image.Rect(0, 0, 640, 120),
		"bottom": image.Rect(0, 240, 640, 360),
		"":       image.Rect(0, 240, 640, 360),
		"left":   image.Rect(0, 0, 320, 360),
		"right":  image.Rect(320, 0, 640, 360),
	} {
		out := apply(t, `add text "NEW RECORD" `+where, src, nil)
		if out.Bounds() != src.Bounds() {
			t.Fatalf("%s: size %v", where, out.Bounds())
		}
		changed := changedIn(src, out)
		if !changed.In(band) {
			t.Errorf("%q: pixels changed in %v, outside the band %v", where, changed, band)
		}
		// The letters: white, and a large share of the band's width (or
		// height, in the narrow side bands).
		if n := whiteIn(out, band); n < 4000 {
			t.Errorf("%q: %d white pixels in the band", where, n)
		}
		if where == "top" || where == "bottom" {
			if changed.Dx() < 400 || changed.Dx() > 560 {
				t.Errorf("%q: the text spans %d px of 640, want about 80%%", where, changed.Dx())
			}
		}
	}
	// A long text wraps to two lines rather than shrinking to a thread.
	out := apply(t, `add text "THE BIGGEST MISTAKE EVERY BEGINNER MAKES" top`, src, nil)
	if changed := changedIn(src, out); changed.Dy() < 75 {
		t.Errorf("a long text is %d px tall: not wrapped", changed.Dy())
	}
}

// Text goes beside a face rather than over it when the band has room.
func TestAddTextLeavesFacesUncovered(t *testing.T) {
	// The face at the bottom right of a wide picture: bottom text goes
	// to its left.
	src, faces := facePicture(t, 1280, 720, 860, 320)
	out := apply(t, `add text "SO GOOD" bottom`, src, faces)
	changed := changedIn(src, out)
	if changed.Empty() || changed.Min.Y < 720-240 {
		t.Fatalf("the text changed %v, outside the bottom third", changed)
	}
	if changed.Overlaps(faces[0].Rect) {
		t.Errorf("the text %v covers the face %v", changed, faces[0].Rect)
	}
	if n := whiteIn(out, changed); n < 3000 {
		t.Errorf("%d white pixels of text", n)
	}
	// Without a position, text leaves a face filling the bottom alone and
	// goes to the top.
	src, faces = facePicture(t, 640, 600, 160, 200)
	out = apply(t, `add text "SO GOOD"`, src, faces)
	changed = changedIn(src, out)
	if changed.Empty() || changed.Max.Y > 200 {
		t.Errorf("the text changed %v: want it in the top third, above the face %v", changed, faces[0].Rect)
	}
}

func TestAddBorder(t *testing.T) {
	src := scene(300, 200)
	for prompt, want := range map[string]struct {
		c     color.NRGBA
		width int
	}{
		"add border gold":            {color.NRGBA{212, 175, 55, 255}, 6},
		"add a thin #ff0000 border":  {color.NRGBA{255, 0, 0, 255}, 3},
		"add a thick border in navy": {color.NRGBA{20, 35, 90, 255}, 10},
	} {
		out := apply(t, prompt, src, nil)
		if out.Bounds() != src.Bounds() {
			t.Fatalf("%q: size %v", prompt, out.Bounds())
		}
		w, h := src.Rect.Dx(), src.Rect.Dy()
		for y := range h {
			for x := range w {
				edge := min(x, y, w-1-x, h-1-y)
				got := out.NRGBAAt(x, y)
				switch {
				case edge < want.width && got != want.c:
					t.Fatalf("%q: (%d,%d) is %v, want the border %v", prompt, x, y, got, want.c)
				case edge >= want.width && got != src.NRGBAAt(x, y):
					t.Fatalf("%q: (%d,%d) inside the border changed", prompt, x, y)
				}
			}
		}
	}
}

// A picture whose bounds do not start at the origin is edited the same.
func TestApplyOffsetBounds(t *testing.T) {
	src := scene(200, 100)
	sub := src.SubImage(image.Rect(50, 20, 150, 80)).(*image.NRGBA)
	out := apply(t, "mirror", sub, nil)
	if out.Bounds() != image.Rect(0, 0, 100, 60) {
		t.Fatalf("bounds %v", out.Bounds())
	}
	if out.NRGBAAt(0, 0) != src.NRGBAAt(149, 20) {
		t.Error("the mirror of a sub-image is wrong")
	}
}
