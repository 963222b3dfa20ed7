package combine

import (
	"image"
	"image/color"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision"
)

var (
	red  = color.NRGBA{220, 30, 30, 255}
	blue = color.NRGBA{30, 60, 220, 255}
	// marker is the small square at each picture's centre: a cover crop
	// keeps it at the centre of its half.
	marker = color.NRGBA{20, 200, 40, 255}
)

// flat is a w×h picture of c with a marker square at its centre.
func flat(c color.NRGBA, w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	s := min(w, h) / 12
	for y := range h {
		for x := range w {
			px := c
			if abs(x-w/2) < s && abs(y-h/2) < s {
				px = marker
			}
			copy(m.Pix[m.PixOffset(x, y):], []uint8{px.R, px.G, px.B, px.A})
		}
	}
	return m
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// near reports whether two colours are within the resampling's blur.
func near(a, b color.NRGBA) bool {
	d := func(x, y uint8) int { return abs(int(x) - int(y)) }
	return d(a.R, b.R) <= 12 && d(a.G, b.G) <= 12 && d(a.B, b.B) <= 12
}

// share is the fraction of the pixels of r (sampled every 3 px) near c.
func share(m *image.NRGBA, r image.Rectangle, c color.NRGBA) float64 {
	n, hit := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			n++
			if near(m.NRGBAAt(x, y), c) {
				hit++
			}
		}
	}
	return float64(hit) / float64(max(n, 1))
}

func combine(t *testing.T, prompt, aspect string) *image.NRGBA {
	t.Helper()
	l, err := Parse(prompt)
	if err != nil {
		t.Fatal(err)
	}
	// Pictures of other shapes and sizes than the halves: both are
	// cover-cropped, one enlarged, one reduced (through the box filter).
	out, err := Combine(flat(red, 600, 340), flat(blue, 1000, 1130), l, aspect, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkHalves asserts the split geometry: each half is its picture's
// colour, with the marker at its centre, and the divider between them
// is white.
func checkHalves(t *testing.T, out *image.NRGBA, first, divider, second image.Rectangle, label string) {
	t.Helper()
	for i, h := range []struct {
		r image.Rectangle
		c color.NRGBA
	}{{first, red}, {second, blue}} {
		if s := share(out, h.r, h.c); s < 0.8 {
			t.Errorf("%s: half %d %v is %.0f%% its picture's colour", label, i+1, h.r, 100*s)
		}
		c := image.Pt((h.r.Min.X+h.r.Max.X)/2, (h.r.Min.Y+h.r.Max.Y)/2)
		if got := out.NRGBAAt(c.X, c.Y); !near(got, marker) && label != "versus" {
			t.Errorf("%s: the centre of half %d is %v, not the marker", label, i+1, got)
		}
	}
	// Its first quarter: a badge may cover its middle.
	if divider.Dx() < divider.Dy() {
		divider.Max.Y = divider.Min.Y + divider.Dy()/4
	} else {
		divider.Max.X = divider.Min.X + divider.Dx()/4
	}
	if share(out, divider, color.NRGBA{255, 255, 255, 255}) < 0.99 {
		t.Errorf("%s: the divider %v is not white", label, divider)
	}
}

// The split of a 1280×720 canvas: a 6 px divider between 637 px halves.
var (
	leftHalf, verticalDivider, rightHalf   = image.Rect(0, 0, 637, 720), image.Rect(637, 0, 643, 720), image.Rect(643, 0, 1280, 720)
	topHalf, horizontalDivider, bottomHalf = image.Rect(0, 0, 1280, 357), image.Rect(0, 357, 1280, 363), image.Rect(0, 363, 1280, 720)
)

func TestSideBySideGeometry(t *testing.T) {
	out := combine(t, "side by side", "")
	if out.Bounds() != image.Rect(0, 0, 1280, 720) {
		t.Fatalf("canvas %v", out.Bounds())
	}
	checkHalves(t, out, leftHalf, verticalDivider, rightHalf, "side by side")
}

func TestStackedGeometry(t *testing.T) {
	out := combine(t, "top and bottom", "16:9")
	checkHalves(t, out, topHalf, horizontalDivider, bottomHalf, "stacked")
}

// On a portrait canvas a split is always one above the other.
func TestPortraitCanvas(t *testing.T) {
	for _, prompt := range []string{"side by side", "before and after", "versus", "pip"} {
		out := combine(t, prompt, "9:16")
		if out.Bounds() != image.Rect(0, 0, 720, 1280) {
			t.Fatalf("%s: canvas %v", prompt, out.Bounds())
		}
		if prompt == "side by side" {
			checkHalves(t, out, image.Rect(0, 0, 720, 637), image.Rect(0, 637, 720, 643), image.Rect(0, 643, 720, 1280), "9:16 side by side")
		}
	}
}

// whiteIn counts near-white pixels in r.
func whiteIn(m *image.NRGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := m.NRGBAAt(x, y); c.R > 230 && c.G > 230 && c.B > 230 {
				n++
			}
		}
	}
	return n
}

func TestBeforeAfterLabels(t *testing.T) {
	out := combine(t, "before/after", "")
	checkHalves(t, out, leftHalf, verticalDivider, rightHalf, "before/after")
	// Without faces the labels sit at the bottom of each half, centred:
	// white letters on a dark panel.
	for i, zone := range []image.Rectangle{image.Rect(100, 600, 530, 720), image.Rect(750, 600, 1180, 720)} {
		if n := whiteIn(out, zone); n < 800 {
			t.Errorf("half %d: %d white label pixels in %v", i+1, n, zone)
		}
		if dark := share(out, zone, color.NRGBA{17, 17, 20, 255}); dark > 0.5 {
			t.Errorf("half %d: the label panel is opaque", i+1)
		}
	}
	// "AFTER" is shorter than "BEFORE": fewer letter pixels.
	if b, a := whiteIn(out, image.Rect(0, 600, 630, 720)), whiteIn(out, image.Rect(650, 600, 1280, 720)); a >= b {
		t.Errorf("AFTER has %d white pixels, BEFORE %d", a, b)
	}
	// Side by side has no labels there.
	plain := combine(t, "side by side", "")
	if n := whiteIn(plain, image.Rect(100, 600, 530, 720)); n > 0 {
		t.Errorf("side by side has %d white pixels in the label zone", n)
	}
}

// Labels move to the top when faces fill the bottom of both halves.
func TestLabelsAvoidFaces(t *testing.T) {
	l, err := Parse("before and after")
	if err != nil {
		t.Fatal(err)
	}
	a, b := flat(red, 640, 720), flat(blue, 640, 720)
	low := []vision.Face{{Rect: image.Rect(170, 380, 470, 700)}}
	out, err := Combine(a, b, l, "16:9", low, low)
	if err != nil {
		t.Fatal(err)
	}
	top := whiteIn(out, image.Rect(0, 0, 630, 120)) + whiteIn(out, image.Rect(650, 0, 1280, 120))
	bottom := whiteIn(out, image.Rect(0, 600, 630, 720)) + whiteIn(out, image.Rect(650, 600, 1280, 720))
	if top < 1000 || bottom > 0 {
		t.Errorf("%d label pixels at the top, %d at the bottom: want them all at the top", top, bottom)
	}
}

func TestVersusBadge(t *testing.T) {
	out := combine(t, "versus", "")
	checkHalves(t, out, leftHalf, verticalDivider, rightHalf, "versus")
	// The badge covers the centre: neither picture's colour there, and
	// both yellow disc and dark letters within its radius (≈ 76 px).
	centre := image.Rect(600, 320, 680, 400)
	if s := share(out, centre, red) + share(out, centre, blue); s > 0.05 {
		t.Errorf("%.0f%% of the centre is a picture's colour: no badge", 100*s)
	}
	yellow, dark := 0, 0
	for y := 360 - 70; y < 360+70; y++ {
		for x := 640 - 70; x < 640+70; x++ {
			c := out.NRGBAAt(x, y)
			switch {
			case c.R > 230 && c.G > 170 && c.B < 60:
				yellow++
			case c.R < 60 && c.G < 60 && c.B < 60:
				dark++
			}
		}
	}
	if yellow < 8000 || dark < 1500 {
		t.Errorf("badge: %d yellow and %d dark pixels", yellow, dark)
	}
	// Away from the badge, the halves are untouched.
	if s := share(out, image.Rect(0, 0, 400, 200), red); s < 0.99 {
		t.Errorf("the first half's corner is %.0f%% red", 100*s)
	}
	// Named sides are labelled like before and after.
	named := combine(t, "cats vs dogs", "")
	if n := whiteIn(named, image.Rect(100, 600, 530, 720)); n < 500 {
		t.Errorf("%d white pixels of the CATS label", n)
	}
}

func TestPictureInPictureGeometry(t *testing.T) {
	for prompt, corner := range map[string]image.Point{
		"pip":                         {1, 1},
		"picture in picture top-left": {0, 0},
		"inset top right":             {1, 0},
		"pip bottom-left corner":      {0, 1},
	} {
		l, err := Parse(prompt)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Combine(flat(red, 600, 340), flat(blue, 800, 450), l, "16:9", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The inset: 30% of 1280 wide, 16:9, 25 px from the corner.
		w, h, m := 384, 216, 25
		x, y := m+corner.X*(1280-2*m-w), m+corner.Y*(720-2*m-h)
		checkInset(t, out, image.Rect(x, y, x+w, y+h), prompt)
	}
	// A portrait second picture keeps its shape, down to 3:4, at the
	// same area.
	l := Layout{Kind: PictureInPicture, Corner: BottomRight}
	for _, c := range []struct {
		w, h int
		want image.Point
	}{{400, 500, image.Pt(258, 322)}, {300, 600, image.Pt(249, 333)}} {
		out, err := Combine(flat(red, 600, 340), flat(blue, c.w, c.h), l, "16:9", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkInset(t, out, image.Rectangle{Min: image.Pt(1280-25, 720-25).Sub(c.want), Max: image.Pt(1280-25, 720-25)}, "portrait inset")
	}
}

// checkInset asserts the inset is where it should be, framed, with the
// first picture everywhere else.
func checkInset(t *testing.T, out *image.NRGBA, inset image.Rectangle, label string) {
	t.Helper()
	if s := share(out, inset, blue); s < 0.8 {
		t.Errorf("%s: the inset %v is %.0f%% blue", label, inset, 100*s)
	}
	c := image.Pt((inset.Min.X+inset.Max.X)/2, (inset.Min.Y+inset.Max.Y)/2)
	if got := out.NRGBAAt(c.X, c.Y); !near(got, marker) {
		t.Errorf("%s: the inset's centre is %v, not the marker", label, got)
	}
	// Just outside each side, its white frame; beyond, the first picture
	// (its shadow falls within 40 px of it; the marker's edges are
	// blended with red).
	for _, p := range []image.Point{{c.X, inset.Min.Y - 2}, {c.X, inset.Max.Y + 1}, {inset.Min.X - 2, c.Y}, {inset.Max.X + 1, c.Y}} {
		if got := out.NRGBAAt(p.X, p.Y); got != (color.NRGBA{255, 255, 255, 255}) {
			t.Errorf("%s: no frame at %v, just outside the inset %v: %v", label, p, inset, got)
		}
	}
	markerEdges := image.Rect(640-90, 360-90, 640+90, 360+90)
	rest := 0
	for y := 0; y < 720; y += 4 {
		for x := 0; x < 1280; x += 4 {
			if p := image.Pt(x, y); !p.In(inset.Inset(-40)) && !p.In(markerEdges) && !near(out.NRGBAAt(x, y), red) && !near(out.NRGBAAt(x, y), marker) {
				rest++
			}
		}
	}
	if rest > 0 {
		t.Errorf("%s: %d samples outside the inset are not the first picture", label, rest)
	}
}

// A face of the picture stays in its half when the half is a narrow
// window of a wide picture.
func TestHalvesKeepFaces(t *testing.T) {
	wide := flat(red, 1600, 600)
	face := image.Rect(1250, 200, 1450, 400)
	for y := face.Min.Y; y < face.Max.Y; y++ {
		for x := face.Min.X; x < face.Max.X; x++ {
			wide.SetNRGBA(x, y, color.NRGBA{250, 220, 180, 255})
		}
	}
	l, err := Parse("side by side")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Combine(wide, flat(blue, 100, 100), l, "16:9", []vision.Face{{Rect: face}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	skin := share(out, image.Rect(0, 0, 630, 720), color.NRGBA{250, 220, 180, 255})
	// The face is 200×200 of a 600 px tall crop scaled to 720: 240² px.
	want := 240.0 * 240 / (630 * 720)
	if math.Abs(skin-want) > 0.2*want {
		t.Errorf("the face covers %.3f of the half, want %.3f", skin, want)
	}
}

func TestUnknownAspect(t *testing.T) {
	if _, err := Combine(flat(red, 10, 10), flat(blue, 10, 10), Layout{Kind: SideBySide}, "4:3", nil, nil); err == nil {
		t.Error("4:3 accepted")
	}
}
