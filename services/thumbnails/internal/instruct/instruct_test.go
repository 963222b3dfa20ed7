package instruct

import (
	"bytes"
	"image"
	"image/color"
	_ "image/jpeg" // the face photo
	"reflect"
	"testing"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/vision"
)

func TestParse(t *testing.T) {
	for prompt, want := range map[string]string{
		"brighter":                          "brighter",
		"Make it much darker.":              "much darker",
		"a bit brighter and more contrast":  "slightly brighter and more contrast",
		"saturate, crop to 9:16; mirror":    "saturate and crop to 9:16 and mirror",
		`add text "NEW RECORD" at the top`:  `add text "NEW RECORD" top`,
		`add text "and, then" left`:         `add text "and, then" left`,
		"add a thick gold border":           "add thick border in #d4af37",
		"add border in #ff0000":             "add border in #ff0000",
		"flip horizontally then desaturate": "mirror and desaturate",
		"less contrast":                     "less contrast",
	} {
		p, err := Parse(prompt)
		if err != nil {
			t.Errorf("%q: %v", prompt, err)
			continue
		}
		if p.String() != want {
			t.Errorf("%q: %q, want %q", prompt, p.String(), want)
		}
	}
	for _, prompt := range []string{"", "turn him into a cat", "brighter and fly", "add text top", `add text "" top`,
		"add border sparkly", "crop to 4:3", "add a red border in blue"} {
		if _, err := Parse(prompt); !apierr.Is(err, apierr.UnsupportedPrompt) {
			t.Errorf("%q: %v, want unsupported_prompt", prompt, err)
		}
	}
}

func FuzzParseInstruction(f *testing.F) {
	for _, s := range []string{"brighter", `add text "x" top and mirror`, "add thick navy border", "much darker, crop to 16:9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		q, err := Parse(p.String())
		if err != nil || !reflect.DeepEqual(p.String(), q.String()) {
			t.Fatalf("%q → %q does not re-parse: %v", s, p.String(), err)
		}
	})
}

func photo(t *testing.T) image.Image {
	img, _, err := image.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func meanLuma(img image.Image) float64 {
	m := vision.RGBA8(img, 0)
	var s float64
	for i := 0; i < len(m.Pix); i += 4 {
		s += 0.299*float64(m.Pix[i]) + 0.587*float64(m.Pix[i+1]) + 0.114*float64(m.Pix[i+2])
	}
	return s / float64(len(m.Pix)/4)
}

func run(t *testing.T, prompt string, img image.Image) *image.NRGBA {
	t.Helper()
	p, err := Parse(prompt)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(img, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTones(t *testing.T) {
	src := photo(t)
	l := meanLuma(src)
	if got := meanLuma(run(t, "brighter", src)); got <= l+5 {
		t.Errorf("brighter: %.1f → %.1f", l, got)
	}
	if got := meanLuma(run(t, "darker", src)); got >= l-5 {
		t.Errorf("darker: %.1f → %.1f", l, got)
	}
	if a, b := meanLuma(run(t, "slightly brighter", src)), meanLuma(run(t, "much brighter", src)); !(l < a && a < b) {
		t.Errorf("degrees out of order: %.1f %.1f %.1f", l, a, b)
	}
	c := vision.RMSContrast(src)
	if got := vision.RMSContrast(run(t, "more contrast", src)); got <= c*1.1 {
		t.Errorf("more contrast: %.3f → %.3f", c, got)
	}
	k := vision.Colourfulness(src)
	if got := vision.Colourfulness(run(t, "saturate", src)); got <= k*1.1 {
		t.Errorf("saturate: %.1f → %.1f", k, got)
	}
	if got := vision.Colourfulness(run(t, "desaturate", src)); got >= k*0.9 {
		t.Errorf("desaturate: %.1f → %.1f", k, got)
	}
}

func TestMirrorCropBorderText(t *testing.T) {
	src := photo(t)
	b := src.Bounds()
	m := run(t, "mirror", src)
	ref := vision.RGBA8(src, 0)
	for _, p := range []image.Point{{0, 0}, {10, 200}, {b.Dx() / 3, b.Dy() / 2}} {
		want := ref.RGBAAt(b.Dx()-1-p.X, p.Y)
		if got := m.NRGBAAt(p.X, p.Y); got.R != want.R || got.G != want.G || got.B != want.B {
			t.Errorf("mirror at %v: %v, want %v", p, got, want)
		}
	}

	d, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	sq := image.NewRGBA(image.Rect(0, 0, 1000, 1000))
	for i := range sq.Pix {
		sq.Pix[i] = 90
	}
	// The face photo placed low in a square canvas: the 16:9 crop keeps it.
	faceAt := image.Rect(300, 1000-b.Dy(), 300+b.Dx(), 1000)
	drawAt(sq, src, faceAt.Min)
	faces := d.Detect(sq)
	if len(faces) == 0 {
		t.Fatal("no face in the test canvas")
	}
	p, _ := Parse("crop to 16:9")
	out, err := p.Apply(sq, faces, vision.Saliency(sq))
	if err != nil {
		t.Fatal(err)
	}
	if out.Rect.Dx() != 1000 || out.Rect.Dy() != 563 {
		t.Fatalf("crop size %v", out.Rect)
	}
	if got := d.Detect(out); len(got) == 0 {
		t.Error("the crop lost the face")
	}

	bordered := run(t, "add thick gold border", src)
	if bordered.Rect.Size() != b.Size() {
		t.Fatalf("border changed the size: %v", bordered.Rect)
	}
	gold := color.NRGBA{212, 175, 55, 255}
	for _, p := range []image.Point{{0, 0}, {b.Dx() - 1, b.Dy() / 2}, {b.Dx() / 2, b.Dy() - 1}} {
		if got := bordered.NRGBAAt(p.X, p.Y); got != gold {
			t.Errorf("border at %v: %v", p, got)
		}
	}

	texted := run(t, `add text "HELLO" top`, src)
	band := textBox(texted.Rect, "top")
	changedIn, changedOut := 0, 0
	for y := range b.Dy() {
		for x := range b.Dx() {
			a, o := texted.NRGBAAt(x, y), ref.RGBAAt(x, y)
			if a.R != o.R || a.G != o.G || a.B != o.B {
				if image.Pt(x, y).In(band) {
					changedIn++
				} else {
					changedOut++
				}
			}
		}
	}
	if changedIn < 500 || changedOut != 0 {
		t.Errorf("text changed %d pixels in its band and %d outside", changedIn, changedOut)
	}
}

func drawAt(dst *image.RGBA, src image.Image, at image.Point) {
	b := src.Bounds()
	for y := range b.Dy() {
		for x := range b.Dx() {
			dst.Set(at.X+x, at.Y+y, src.At(b.Min.X+x, b.Min.Y+y))
		}
	}
}
