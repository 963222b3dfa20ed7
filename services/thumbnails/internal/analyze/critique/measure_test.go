package critique

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/draw"

	"hookline.dev/pkg/media/fonts"
)

var (
	white = color.RGBA{R: 255, G: 255, B: 255, A: 255}
	black = color.RGBA{A: 255}
)

func TestTextIsReadWhenItStandsOut(t *testing.T) {
	// Grey on grey is found as text-like marks but not read; the same
	// words in high contrast are read at full and at mobile size.
	faint := measure(t, caption(t, 640, 360, color.RGBA{110, 110, 110, 255}, color.RGBA{140, 140, 140, 255}), nil)
	if len(faint.Text) == 0 || len(faint.Reading.Words) != 0 || Rate(faint).TextReadability != noTextScore {
		t.Errorf("grey on grey: regions %d, read %q, readability %.1f; want regions, no words, %.1f",
			len(faint.Text), faint.Reading.Words, Rate(faint).TextReadability, noTextScore)
	}
	for _, c := range []struct {
		name   string
		fg, bg color.RGBA
	}{{"white on blue", white, color.RGBA{30, 60, 160, 255}}, {"white on black", white, black}} {
		m := measure(t, caption(t, 640, 360, c.fg, c.bg), nil)
		// The lines are 37 px tall at 640×360, 10 px at mobile size:
		// most of the words survive there, not always all.
		if got := strings.Join(m.Reading.Words, " "); got != "READ THIS IF YOU CAN" || m.Reading.Survived < 0.75 {
			t.Errorf("%s: read %q, at mobile %q, survived %.2f", c.name, got, m.Reading.MobileWords, m.Reading.Survived)
		}
		if r := Rate(m).TextReadability; r != tenth(10*m.Reading.Survived) {
			t.Errorf("%s: readability %.1f, want 10 × %.2f", c.name, r, m.Reading.Survived)
		}
	}
}

func TestTextRegionsAreWhereTheTextIs(t *testing.T) {
	img := flat(640, 360, color.RGBA{20, 30, 90, 255})
	headline(t, img, fonts.Display, 80, image.Pt(300, 120), "BIG NEWS", white, nil, 0)
	m := measure(t, img, nil)
	if len(m.Text) != 1 {
		t.Fatalf("found %d text regions, want 1: %+v", len(m.Text), m.Text)
	}
	// Bebas Neue's capitals are 0.7 em tall: the line spans y ≈ 64..120
	// from x = 300.
	r := m.Text[0].Rect
	if r.Min.X < 280 || r.Min.X > 310 || r.Min.Y < 50 || r.Min.Y > 75 || r.Max.Y < 115 || r.Max.Y > 135 || r.Max.X < 450 {
		t.Errorf("text region %v, want about (300,64)-(540,120)", r)
	}
	if m.Text[0].ContrastRatio < 7 {
		t.Errorf("white on navy measured %.1f:1", m.Text[0].ContrastRatio)
	}
}

func TestTextShrinksOutOfLegibility(t *testing.T) {
	// The same words at a third of the size are read at full size and
	// lost at mobile size, where the big ones survive.
	big := measure(t, caption(t, 1280, 720, white, black), nil)
	small := flat(1280, 720, black)
	headline(t, small, fonts.Heavy, 720.0/21, image.Pt(128, 360), "READ THIS", white, nil, 0)
	headline(t, small, fonts.Heavy, 720.0/21, image.Pt(128, 400), "IF YOU CAN", white, nil, 0)
	m := measure(t, small, nil)
	if got := strings.Join(m.Reading.Words, " "); got != "READ THIS IF YOU CAN" {
		t.Fatalf("small text read %q at full size", got)
	}
	b, s := Rate(big).TextReadability, Rate(m).TextReadability
	t.Logf("big %.1f (mobile %q), small %.1f (mobile %q, lost %q)", b, big.Reading.MobileWords, s, m.Reading.MobileWords, m.Reading.Lost)
	if s >= b || s >= noTextScore || len(m.Reading.Lost) == 0 {
		t.Errorf("small text readability %.1f, big %.1f, lost %q; want small lower, below %.1f, and words lost", s, b, m.Reading.Lost, noTextScore)
	}
	c := Judge(m, "")
	if !slices.ContainsFunc(c.Weaknesses, func(w string) bool {
		return strings.Contains(w, "'READ THIS IF YOU CAN'") && strings.Contains(w, "mobile size")
	}) {
		t.Errorf("no weakness quoting the lost text: %q", c.Weaknesses)
	}
}

func TestNoTextInPhotoOrTexture(t *testing.T) {
	noise := image.NewRGBA(image.Rect(0, 0, 640, 360))
	for y := range 360 {
		for x := range 640 {
			v := uint8(hash(x, y) >> 24)
			noise.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	stripes := image.NewRGBA(image.Rect(0, 0, 640, 360))
	for y := range 360 {
		for x := range 640 {
			stripes.SetRGBA(x, y, [2]color.RGBA{black, white}[x/10%2])
		}
	}
	photo := facePhoto(t)
	for name, img := range map[string]image.Image{"portrait": photo, "noise": noise, "stripes": stripes} {
		m := measure(t, img, faces(t, img))
		if len(m.Text) != 0 || len(m.Reading.Words) != 0 {
			t.Errorf("%s: text regions %+v, words %q, want none", name, m.Text, m.Reading.Words)
		}
		if r := Rate(m).TextReadability; r != noTextScore {
			t.Errorf("%s: readability %.1f, want the no-text score %.1f", name, r, noTextScore)
		}
	}
}

// disc is a w×h dark-grey picture with a bright disc of radius r at (cx, cy).
func disc(w, h int, cx, cy, r float64) *image.RGBA {
	img := flat(w, h, color.RGBA{40, 40, 50, 255})
	for y := range h {
		for x := range w {
			if math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) <= r {
				img.SetRGBA(x, y, color.RGBA{250, 240, 220, 255})
			}
		}
	}
	return img
}

func TestAttentionFindsTheSubject(t *testing.T) {
	m := measure(t, disc(640, 360, 430, 120, 40), nil)
	if len(m.Attention) == 0 {
		t.Fatal("no attention area")
	}
	a := m.Attention[0]
	if math.Hypot(a.X-430, a.Y-120) > a.Radius || a.Label != "bright region" {
		t.Errorf("strongest area %+v, want a bright region over the disc at (430, 120)", a)
	}
	if a.Radius < 20 || a.Radius > 120 {
		t.Errorf("radius %.0f for a disc of radius 40", a.Radius)
	}
	// The same picture at twice the size has its areas at twice the
	// coordinates: they are in source pixels.
	m2 := measure(t, disc(1280, 720, 860, 240, 80), nil)
	b := m2.Attention[0]
	if math.Abs(b.X-2*a.X) > 8 || math.Abs(b.Y-2*a.Y) > 8 || math.Abs(b.Radius-2*a.Radius) > 12 {
		t.Errorf("at 2×: %+v, at 1×: %+v", b, a)
	}
}

func TestThirdsPreferPowerPoints(t *testing.T) {
	on := measure(t, disc(640, 360, 640.0/3, 120, 40), nil)
	centre := measure(t, disc(640, 360, 320, 180, 40), nil)
	corner := measure(t, disc(640, 360, 50, 310, 40), nil)
	if on.Thirds <= centre.Thirds || on.Thirds <= corner.Thirds {
		t.Errorf("thirds: on a power point %.2f, centred %.2f, in a corner %.2f", on.Thirds, centre.Thirds, corner.Thirds)
	}
	if Rate(on).Composition <= Rate(centre).Composition {
		t.Errorf("composition: on a power point %.1f, centred %.1f", Rate(on).Composition, Rate(centre).Composition)
	}
}

func TestClutterLowersComposition(t *testing.T) {
	simple := disc(640, 360, 640.0/3, 120, 60)
	busy := disc(640, 360, 640.0/3, 120, 60)
	// Small high-contrast squares all over the background.
	for y := 0; y < 360; y += 12 {
		for x := (y / 12 % 2) * 6; x < 640; x += 12 {
			draw.Draw(busy, image.Rect(x, y, x+5, y+5), image.NewUniform(color.RGBA{200, 200, 200, 255}), image.Point{}, draw.Src)
		}
	}
	s, b := measure(t, simple, nil), measure(t, busy, nil)
	if b.EdgeDensity <= 2*s.EdgeDensity || Rate(b).Composition >= Rate(s).Composition {
		t.Errorf("edge density simple %.3f busy %.3f; composition simple %.1f busy %.1f",
			s.EdgeDensity, b.EdgeDensity, Rate(s).Composition, Rate(b).Composition)
	}
	if !slices.ContainsFunc(analyze(t, busy, nil, "").Weaknesses, func(w string) bool { return len(w) > 0 && w[:6] == "A busy" }) {
		t.Errorf("no busy-frame weakness: %q", analyze(t, busy, nil, "").Weaknesses)
	}
}

// portrait places the sample portrait, scaled to height fh, with its top
// left at (x, y) on a w×h grey picture.
func portrait(t *testing.T, w, h, fh, x, y int) *image.RGBA {
	t.Helper()
	img := flat(w, h, color.RGBA{90, 110, 130, 255})
	p := facePhoto(t)
	fw := fh * p.Bounds().Dx() / p.Bounds().Dy()
	draw.CatmullRom.Scale(img, image.Rect(x, y, x+fw, y+fh), p, p.Bounds(), draw.Src, nil)
	return img
}

func TestFaceVisibility(t *testing.T) {
	measure := func(img image.Image) Metrics {
		m := measure(t, img, faces(t, img))
		if m.Faces == 0 {
			t.Fatal("no face found")
		}
		return m
	}
	large := measure(portrait(t, 640, 360, 340, 60, 10))
	small := measure(portrait(t, 640, 360, 130, 60, 20))
	low := measure(portrait(t, 640, 360, 130, 60, 225))
	cut := measure(portrait(t, 640, 360, 340, -60, 10))
	if large.Face.Share <= 3*small.Face.Share {
		t.Errorf("face share large %.3f, small %.3f", large.Face.Share, small.Face.Share)
	}
	if !cut.Face.CutOff || large.Face.CutOff || low.Face.Height <= 2.0/3 || small.Face.Height > 2.0/3 {
		t.Errorf("cut off %+v / large %+v / low %+v / small %+v", cut.Face, large.Face, low.Face, small.Face)
	}
	if large.Face.EyeContrast < goodEyeContrast {
		t.Errorf("eye band contrast %.3f of the sample's open eyes, want ≥ %.2f", large.Face.EyeContrast, goodEyeContrast)
	}
	v := func(m Metrics) float64 { return Rate(m).FaceVisibility }
	if !(v(large) > v(small) && v(small) > v(low) && v(large) > v(cut)) {
		t.Errorf("face visibility: large %.1f, small %.1f, low %.1f, cut off %.1f", v(large), v(small), v(low), v(cut))
	}
	if Rate(large).EmotionalImpact <= Rate(small).EmotionalImpact {
		t.Errorf("emotional impact: close-up %.1f, small face %.1f", Rate(large).EmotionalImpact, Rate(small).EmotionalImpact)
	}
}

func TestFormulasAsDocumented(t *testing.T) {
	// A reader recomputes the scores from the package documentation.
	m := Metrics{
		Contrast: 0.125, Colourfulness: 35, Brightness: 0.875, Saturation: 0.3, Warmth: 0.07,
		EdgeDensity: 0.01, Thirds: 0.5, Faces: 1,
		Face:    FaceMetrics{Share: 0.015, Height: 0.5, EyeContrast: 0.05},
		Reading: Reading{Words: []string{"HALF", "READ"}, Survived: 0.25},
	}
	s := Rate(m)
	want := Scores{
		Contrast:        5,                                                           // 10·0.125/0.25
		Composition:     5,                                                           // 10·(0.6·0.5 + 0.4·0.01/0.02)
		TextReadability: 2.5,                                                         // 10·0.25
		FaceVisibility:  6.5,                                                         // 10·(0.45·√(0.015/0.06) + 0.30·1 + 0.25·0.05/0.10)
		ColorAppeal:     5,                                                           // 10·(0.8·35/70 + 0.2·(1 − (0.375−0.25)/0.25))
		Clickability:    4.9,                                                         // 0.25·5 + 0.20·5 + 0.25·6.5 + 0.20·2.5 + 0.10·5 = 4.875
		EmotionalImpact: 10 * (0.30*math.Sqrt(0.1) + 0.20*0.5 + 0.10*0.2 + 0.20*0.5), // rounded below; no landmarks, no expression
	}
	want.EmotionalImpact = math.Round(want.EmotionalImpact*10) / 10
	if s != want {
		t.Errorf("scores %+v, want %+v", s, want)
	}
	overall := 0.15*5 + 0.15*5 + 0.15*2.5 + 0.15*6.5 + 0.10*5 + 0.20*4.9 + 0.10*want.EmotionalImpact
	if got := Overall(s); got != math.Round(overall*10)/10 {
		t.Errorf("overall %.1f, want %.1f", got, overall)
	}
	if Rate(Metrics{Faces: 0, EdgeDensity: 0.5}).FaceVisibility != 0 || simplicity(0.5) != 0 {
		t.Error("no face must score 0 and a cluttered frame no simplicity")
	}
	if math.Abs(thirdsBaseline-0.228) > 0.01 {
		t.Errorf("thirds baseline %.3f", thirdsBaseline)
	}
}
