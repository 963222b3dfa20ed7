package imaging

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"hookline.dev/pkg/media/fonts"
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

// Case is applied word by word before the text is measured.
func TestCase(t *testing.T) {
	for c, want := range map[Case]string{
		AsWritten: "wAIT for IT", Upper: "WAIT FOR IT", Lower: "wait for it", Title: "Wait For It",
	} {
		st := headline
		st.Case = c
		b, err := Fit("wAIT  for IT", st, image.Pt(2000, 300), 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(b.Lines(), "/"); got != want {
			t.Errorf("case %d: %q, want %q", c, got, want)
		}
	}
}

// The highlighted word, and it only, takes the highlight colour, on
// whichever line it falls.
func TestHighlight(t *testing.T) {
	st := Style{Font: fonts.Heavy, Fill: color.NRGBA{255, 255, 255, 255}, Highlight: color.NRGBA{255, 0, 0, 255}}
	b, err := Fit("ONE TWO THREE", st, image.Pt(150, 2000), 3, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines()) != 3 {
		t.Fatalf("lines %q, want one word a line", b.Lines())
	}
	for word := -1; word < 3; word++ {
		dst := image.NewNRGBA(b.Bounds())
		if err := b.Highlight(word).Draw(dst, image.Point{}); err != nil {
			t.Fatal(err)
		}
		// Each line's third of the ink: red where the highlighted word
		// is, white elsewhere.
		ink := b.Ink()
		for line := range 3 {
			red, white := 0, 0
			for y := ink.Min.Y + line*ink.Dy()/3; y < ink.Min.Y+(line+1)*ink.Dy()/3; y++ {
				for x := ink.Min.X; x < ink.Max.X; x++ {
					switch c := dst.NRGBAAt(x, y); {
					case c.A == 255 && c.R == 255 && c.G == 0:
						red++
					case c.A == 255 && c.G == 255:
						white++
					}
				}
			}
			if want := line == word; (red > 100) != want || (white > 100) == want {
				t.Errorf("highlight %d, line %d: %d red and %d white pixels", word, line, red, white)
			}
		}
	}
}

// A taller leading sets the same lines further apart.
func TestLeading(t *testing.T) {
	heights := map[float64]int{}
	for _, l := range []float64{0.9, 1.3} {
		st := headline
		st.Leading = l
		b, err := Fit("NEW RECORD", st, image.Pt(300, 2000), 2, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Lines()) != 2 || b.Size() != 50 {
			t.Fatalf("leading %.1f: %q at %.1f", l, b.Lines(), b.Size())
		}
		heights[l] = b.Ink().Dy()
	}
	if d := heights[1.3] - heights[0.9]; d < 19 || d > 21 {
		t.Errorf("ink heights %v: 0.4 of 50 px more leading should add 20 px", heights)
	}
}

// A stub of a line under a long one is taken only when clearly larger.
func TestStubLine(t *testing.T) {
	b, err := Fit("SUPERCALIFRAGILISTIC IS", headline, image.Pt(1000, 1000), 2, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines()) != 1 {
		t.Errorf("lines %q: the stub won", b.Lines())
	}
}

// With the shadow outside, the body fills the box and the footprint
// reaches past it; the text is larger than when the shadow must fit.
func TestShadowOutside(t *testing.T) {
	box := image.Pt(600, 200)
	inside, err := Fit("NEW RECORD", headline, box, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	st := headline
	st.ShadowOutside = true
	outside, err := Fit("NEW RECORD", st, box, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	body, fp := outside.Body(), outside.Bounds()
	if body.Dx() > box.X || body.Dy() > box.Y || float64(body.Dx()) < 0.95*float64(box.X) && float64(body.Dy()) < 0.95*float64(box.Y) {
		t.Errorf("body %v does not fill the box %v", body, box)
	}
	if !body.In(fp) || fp.Dx() <= box.X {
		t.Errorf("footprint %v does not hold the body %v and the shadow past the box", fp, body)
	}
	if outside.Size() <= inside.Size()*1.05 {
		t.Errorf("size %.1f with the shadow outside, %.1f inside", outside.Size(), inside.Size())
	}
}

// A turned block is drawn turned about its footprint's centre; Render
// and Draw give the same picture.
func TestRotate(t *testing.T) {
	st := Style{Font: fonts.Heavy, Fill: color.NRGBA{255, 255, 255, 255}, Rotate: 90}
	b, err := Fit("LONG LINE", st, image.Pt(400, 100), 1, 60)
	if err != nil {
		t.Fatal(err)
	}
	fp := b.Bounds()
	if fp.Dx() < 3*fp.Dy() {
		t.Fatalf("footprint %v is not a long line", fp)
	}
	// The footprint centred in a square canvas, turned upright.
	side := fp.Dx() + 20
	at := image.Pt((side-fp.Dx())/2, (side-fp.Dy())/2)
	dst := image.NewRGBA(image.Rect(0, 0, side, side))
	if err := b.Draw(dst, at); err != nil {
		t.Fatal(err)
	}
	var inked image.Rectangle
	for y := range side {
		for x := range side {
			if dst.RGBAAt(x, y).A > 128 {
				inked = inked.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if inked.Dy() < 3*inked.Dx() {
		t.Errorf("ink %v is not upright", inked)
	}
	if c := image.Pt(side/2, side/2); abs(inked.Min.X+inked.Max.X-2*c.X) > 4 || abs(inked.Min.Y+inked.Max.Y-2*c.Y) > 4 {
		t.Errorf("ink %v is not centred on %v", inked, c)
	}
	l, err := b.Render()
	if err != nil {
		t.Fatal(err)
	}
	again := image.NewRGBA(dst.Rect)
	l.Draw(again, at)
	if !bytes.Equal(again.Pix, dst.Pix) {
		t.Error("Render then Layer.Draw differs from Draw")
	}
}

func abs(v int) int { return max(v, -v) }

// An unturned layer laid over a picture looks as the block drawn on it.
func TestLayerMatchesDraw(t *testing.T) {
	st := headline
	st.Panel = color.NRGBA{20, 40, 200, 255}
	b, err := Fit("Wait for it", st, image.Pt(500, 200), 2, 120)
	if err != nil {
		t.Fatal(err)
	}
	at := image.Pt(30, 20)
	direct := image.NewRGBA(image.Rect(0, 0, 600, 300))
	for i := range direct.Pix {
		direct.Pix[i] = []uint8{90, 140, 60, 255}[i%4]
	}
	layered := image.NewRGBA(direct.Rect)
	copy(layered.Pix, direct.Pix)
	if err := b.Draw(direct, at); err != nil {
		t.Fatal(err)
	}
	l, err := b.Render()
	if err != nil {
		t.Fatal(err)
	}
	l.Draw(layered, at)
	for i := range direct.Pix {
		if d := int(direct.Pix[i]) - int(layered.Pix[i]); d > 2 || d < -2 {
			t.Fatalf("byte %d: %d drawn, %d through a layer", i, direct.Pix[i], layered.Pix[i])
		}
	}
}
