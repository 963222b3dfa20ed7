package combine

import (
	"image"
	"image/color"
	"testing"

	"hookline.dev/pkg/apierr"
)

func TestParse(t *testing.T) {
	for prompt, want := range map[string]string{
		"side by side":                 "side by side",
		"Put them side-by-side please": "side by side",
		"before and after":             "before and after",
		"Before/After":                 "before and after",
		"before vs after, stacked":     "before and after stacked",
		"iPhone vs Android":            "versus",
		"compare the two":              "versus",
		"versus top and bottom":        "versus stacked",
		"picture in picture":           "picture-in-picture bottom-right",
		"PiP in the top-left":          "picture-in-picture top-left",
		"inset bottom left":            "picture-in-picture bottom-left",
		"stacked":                      "side by side stacked",
	} {
		l, err := Parse(prompt)
		if err != nil || l.String() != want {
			t.Errorf("%q: %q %v, want %q", prompt, l.String(), err, want)
			continue
		}
		if again, err := Parse(l.String()); err != nil || again != l {
			t.Errorf("%q does not re-parse: %+v %v", l.String(), again, err)
		}
	}
	for _, prompt := range []string{"", "a collage of nine", "merge them artistically", "vsx"} {
		if _, err := Parse(prompt); !apierr.Is(err, apierr.UnsupportedPrompt) {
			t.Errorf("%q: %v, want unsupported_prompt", prompt, err)
		}
	}
}

func FuzzParseCombine(f *testing.F) {
	for _, s := range []string{"side by side", "before/after stacked", "a vs b", "pip top-right"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		if again, err := Parse(l.String()); err != nil || again != l {
			t.Fatalf("%q → %q → %+v %v", s, l.String(), again, err)
		}
	})
}

func flat(c color.RGBA, w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = c.R, c.G, c.B, 255
	}
	return m
}

var (
	redImg  = flat(color.RGBA{200, 30, 30, 255}, 800, 600)
	blueImg = flat(color.RGBA{30, 30, 200, 255}, 500, 900)
)

func isRed(c color.NRGBA) bool  { return c.R > 150 && c.B < 80 }
func isBlue(c color.NRGBA) bool { return c.B > 150 && c.R < 80 }

// share is the fraction of r's pixels that match.
func share(m *image.NRGBA, r image.Rectangle, match func(color.NRGBA) bool) float64 {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if match(m.NRGBAAt(x, y)) {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

func combine(t *testing.T, prompt, aspect string) (*image.NRGBA, Layout) {
	t.Helper()
	l, err := Parse(prompt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Combine(redImg, blueImg, l, aspect, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, l
}

func TestSplitGeometry(t *testing.T) {
	for _, tc := range []struct {
		prompt, aspect string
		w, h           int
		vertical       bool
	}{
		{"side by side", "16:9", 1280, 720, false},
		{"side by side stacked", "16:9", 1280, 720, true},
		{"side by side", "9:16", 720, 1280, true},
	} {
		m, l := combine(t, tc.prompt, tc.aspect)
		if m.Rect.Dx() != tc.w || m.Rect.Dy() != tc.h {
			t.Fatalf("%s %s: size %v", tc.prompt, tc.aspect, m.Rect)
		}
		first, second, _ := Halves(l, tc.aspect)
		if (first.Max.Y < tc.h) != tc.vertical {
			t.Errorf("%s %s: halves %v %v", tc.prompt, tc.aspect, first, second)
		}
		if a, b := share(m, first, isRed), share(m, second, isBlue); a < 0.99 || b < 0.99 {
			t.Errorf("%s %s: first half %.2f red, second %.2f blue", tc.prompt, tc.aspect, a, b)
		}
	}
}

func TestLabelsAndBadge(t *testing.T) {
	m, l := combine(t, "before and after", "16:9")
	first, second, _ := Halves(l, "16:9")
	whiteish := func(c color.NRGBA) bool { return c.R > 230 && c.G > 230 && c.B > 230 }
	for i, r := range []image.Rectangle{first, second} {
		label := image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+r.Dy()/4)
		rest := image.Rect(r.Min.X, r.Min.Y+r.Dy()/4, r.Max.X, r.Max.Y)
		if share(m, label, whiteish) < 0.02 || share(m, rest, whiteish) > 0 {
			t.Errorf("half %d: label %.3f white, rest %.3f", i, share(m, label, whiteish), share(m, rest, whiteish))
		}
	}
	v, _ := combine(t, "red vs blue", "16:9")
	centre := image.Rect(620, 340, 660, 380)
	if share(v, centre, isRed) > 0.9 || share(v, centre, isBlue) > 0 {
		t.Error("no badge in the centre")
	}
	badgeRed := func(c color.NRGBA) bool { return c.R > 220 && c.G > 40 && c.G < 80 }
	if share(v, image.Rect(640-60, 360-70, 640+60, 360-50), badgeRed) < 0.3 {
		t.Error("the VS disc is not red")
	}
}

func TestPictureInPicture(t *testing.T) {
	for corner, at := range map[string]image.Point{"bottom-right": {1280 - 38 - 384, 720 - 38 - 216}, "top-left": {38, 38}} {
		m, _ := combine(t, "pip "+corner, "16:9")
		inset := image.Rect(at.X, at.Y, at.X+384, at.Y+216)
		if s := share(m, inset, isBlue); s < 0.99 {
			t.Errorf("%s: inset %v is %.2f blue", corner, inset, s)
		}
		if s := share(m, image.Rect(500, 300, 700, 400), isRed); s < 0.99 {
			t.Errorf("%s: the first picture does not fill the rest (%.2f)", corner, s)
		}
	}
}
