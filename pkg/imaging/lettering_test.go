package imaging

import (
	"errors"
	"image"
	"image/color"
	"math"
	"testing"

	"hookline.dev/pkg/fonts"
)

var headline = Style{
	Font: fonts.Heavy, Fill: color.NRGBA{255, 255, 255, 255},
	Outline: color.NRGBA{0, 0, 0, 255}, OutlineWidth: 0.08, Shadow: 0.6,
}

func grey(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = 128
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	return m
}

// The block fits its box, and is as large as the box allows: its width
// or its height (or the size cap) is the limit.
func TestFitFillsTheBox(t *testing.T) {
	for _, c := range []struct {
		text     string
		box      image.Point
		maxLines int
		lines    int
	}{
		{"NEW RECORD", image.Pt(1000, 220), 2, 1},
		{"NEW RECORD", image.Pt(300, 400), 2, 2},
		{"THE BIGGEST MISTAKE EVERY BEGINNER MAKES", image.Pt(1000, 260), 2, 2},
		{"THE BIGGEST MISTAKE EVERY BEGINNER MAKES", image.Pt(1000, 260), 1, 1},
		{"Supercalifragilisticexpialidocious", image.Pt(200, 200), 2, 1},
	} {
		b, err := Fit(c.text, headline, c.box, c.maxLines, 1000)
		if err != nil {
			t.Fatal(err)
		}
		fp := b.Bounds()
		if fp.Dx() > c.box.X || fp.Dy() > c.box.Y {
			t.Errorf("%q in %v: footprint %v is larger", c.text, c.box, fp)
		}
		if float64(fp.Dx()) < 0.93*float64(c.box.X) && float64(fp.Dy()) < 0.93*float64(c.box.Y) {
			t.Errorf("%q in %v: footprint %v does not fill the box either way", c.text, c.box, fp)
		}
		if got := len(b.Lines()); got != c.lines {
			t.Errorf("%q in %v: %d lines %q, want %d", c.text, c.box, got, b.Lines(), c.lines)
		}
	}
	capped, err := Fit("HI", headline, image.Pt(1000, 1000), 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Size() != 50 {
		t.Errorf("size %.1f, want the cap of 50", capped.Size())
	}
	if _, err := Fit(" \t", headline, image.Pt(100, 100), 1, 50); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty text: %v", err)
	}
}

// Draw changes pixels only inside the footprint, clips at the edges, and
// draws a white fill inside a black outline.
func TestDrawStaysInFootprint(t *testing.T) {
	b, err := Fit("Wait for it", headline, image.Pt(500, 200), 2, 120)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []image.Point{{60, 40}, {-100, 250}, {500, 380}} {
		dst := grey(800, 500)
		if err := b.Draw(dst, at); err != nil {
			t.Fatal(err)
		}
		fp := b.Bounds().Add(at)
		white, black := 0, 0
		for y := range 500 {
			for x := range 800 {
				c := dst.NRGBAAt(x, y)
				if c == (color.NRGBA{128, 128, 128, 255}) {
					continue
				}
				if !image.Pt(x, y).In(fp) {
					t.Fatalf("at %v: (%d,%d) changed outside the footprint %v", at, x, y, fp)
				}
				switch {
				case c.R > 250:
					white++
				case c.R < 5:
					black++
				}
			}
		}
		visible := float64(fp.Intersect(dst.Rect).Dx()*fp.Intersect(dst.Rect).Dy()) / float64(fp.Dx()*fp.Dy())
		if at == (image.Point{60, 40}) && (white < 8000 || black < 4000) {
			t.Errorf("%d white fill and %d black outline pixels", white, black)
		}
		if visible < 0.5 && white > 8000 {
			t.Errorf("at %v only %.0f%% is visible but %d white pixels were drawn", at, 100*visible, white)
		}
	}
}

// A panel fills the box around the words with its colour.
func TestPanel(t *testing.T) {
	st := Style{Font: fonts.Heavy, Fill: color.NRGBA{255, 255, 255, 255}, Panel: color.NRGBA{0, 0, 0, 255}}
	b, err := Fit("BEFORE", st, image.Pt(300, 80), 1, 60)
	if err != nil {
		t.Fatal(err)
	}
	dst := grey(400, 120)
	if err := b.Draw(dst, image.Pt(10, 10)); err != nil {
		t.Fatal(err)
	}
	ink := b.Ink().Add(image.Pt(10, 10))
	black, white := 0, 0
	for y := ink.Min.Y; y < ink.Max.Y; y++ {
		for x := ink.Min.X; x < ink.Max.X; x++ {
			switch c := dst.NRGBAAt(x, y); {
			case c.R < 10:
				black++
			case c.R > 245:
				white++
			}
		}
	}
	if n := ink.Dx() * ink.Dy(); black+white < n*8/10 || white < n/5 {
		t.Errorf("over the words' box of %d px: %d panel and %d letter pixels", n, black, white)
	}
	// (Antialiased rims are neither.) Rounded corners: the footprint's corner is not painted.
	if c := dst.NRGBAAt(10, 10); c.R != 128 {
		t.Errorf("the panel's corner is square: %v", c)
	}
}

func TestDilate(t *testing.T) {
	m := image.NewAlpha(image.Rect(0, 0, 41, 41))
	m.Pix[20*41+20] = 255
	d := dilate(m, 6)
	for y := range 41 {
		for x := range 41 {
			r := math.Hypot(float64(x-20), float64(y-20))
			a := d.Pix[y*41+x]
			switch {
			case r <= 5.5 && a != 255:
				t.Fatalf("(%d,%d) at %.1f px is %d, want covered", x, y, r, a)
			case r >= 6.5 && a != 0:
				t.Fatalf("(%d,%d) at %.1f px is %d, want empty", x, y, r, a)
			}
		}
	}
}

func TestBlurKeepsMass(t *testing.T) {
	m := image.NewAlpha(image.Rect(0, 0, 60, 60))
	for y := 20; y < 40; y++ {
		for x := 20; x < 40; x++ {
			m.Pix[y*60+x] = 255
		}
	}
	sum := func() (s int) {
		for _, v := range m.Pix {
			s += int(v)
		}
		return s
	}
	before := sum()
	Blur(m, 3)
	if after := sum(); math.Abs(float64(after-before)) > 0.01*float64(before) {
		t.Errorf("blur changed the mass from %d to %d", before, after)
	}
	if m.Pix[20*60+20] > 200 || m.Pix[30*60+30] < 250 || m.Pix[17*60+30] == 0 {
		t.Error("the blur did not soften the square's edge only")
	}
}

func TestMissing(t *testing.T) {
	for text, want := range map[string]string{
		"Hello, wörld! 100%": "",
		"Привет Ελλάδα":      "",
		"fire 🔥 and 日本":      "🔥日本",
	} {
		got, err := Missing(fonts.Heavy, text)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%q: missing %q, want %q", text, string(got), want)
		}
	}
}
