package overlay

import (
	"context"
	"image"
	"math"
	"regexp"
	"strconv"
	"testing"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
	"hookline.dev/services/thumbnails/internal/tesseract"
)

var (
	plainReason = regexp.MustCompile(`; (\S+) text on its (dark|mid-tone|light) background \(relative luminance ([0-9.]+)\) contrasts ([0-9.]+):1$`)
	plateReason = regexp.MustCompile(`; its (dark|mid-tone|light) background \(relative luminance ([0-9.]+)\) gives no colour more than ([0-9.]+):1, too little to read, so (\S+) text on a (\S+) plate contrasts ([0-9.]+):1$`)
)

// TestSuggestionsOnRealPhotos runs the overlay as the service does (dlib
// faces, the words OCR reads) on every evaluation photo, and holds
// each suggestion to its words: the region it names is clear of every
// face; the lightness it gives the background is the one measured here,
// over every pixel of the region; the text colour it names is the colour
// it suggests, never dark on a dark background nor light on a light one;
// and the contrast it quotes is the one measured, at least 4.5:1.
func TestSuggestionsOnRealPhotos(t *testing.T) {
	if testing.Short() {
		t.Skip("finds faces and reads text on every evaluation photo: make test runs it")
	}
	det, err := dlib.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer det.Close()
	ocr, err := tesseract.New(tesseract.DefaultDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ocr.Close() }()
	seen := 0
	for _, name := range testkit.EvalPhotos(t) {
		t.Run(name, func(t *testing.T) {
			img := testkit.EvalPhoto(t, name)
			faces := det.Detect(img)
			boxes, err := critique.TextBoxes(context.Background(), ocr, img)
			if err != nil {
				t.Fatal(err)
			}
			ss := Suggest(Input{Img: img, Faces: faces, Text: boxes, Saliency: vision.Saliency(img),
				Prompt: "What NASA never told you about the shuttle program"})
			if len(ss) < 3 {
				t.Fatalf("%d suggestions", len(ss))
			}
			for _, s := range ss {
				if !contractPlacements[s.Placement] {
					t.Errorf("placement %q is not one of the contract's", s.Placement)
				}
				seen++
				box := s.Box
				if !box.In(img.Bounds()) || box.Dx()*box.Dy() < img.Bounds().Dx()*img.Bounds().Dy()/20 {
					t.Errorf("%s: box %v", s.Placement, box)
				}
				for _, fc := range faces {
					if fc.Rect.Overlaps(box) {
						t.Errorf("%s %v covers the face at %v", s.Placement, box, fc.Rect)
					}
				}
				checkWording(t, s, lumaOver(img, box))
			}
		})
	}
	if seen == 0 {
		t.Fatal("no photo checked")
	}
}

func checkWording(t *testing.T, s Suggestion, bg float64) {
	t.Helper()
	var (
		bgWord, colorWord string
		quotedBg, quoted  float64
		behind            = bg // what the text is read against
	)
	if m := plainReason.FindStringSubmatch(s.Reason); m != nil {
		colorWord, bgWord = m[1], m[2]
		quotedBg, quoted = num(t, m[3]), num(t, m[4])
	} else if m := plateReason.FindStringSubmatch(s.Reason); m != nil {
		bgWord, quotedBg, colorWord = m[1], num(t, m[2]), m[4]
		quoted = num(t, m[6])
		best := 0.0
		for _, hex := range []string{"#FFFFFF", "#FFD400", "#111111", "#FF3B30"} {
			best = math.Max(best, ratioOf(bg, lumaHex(t, hex)))
		}
		if best >= minContrast || math.Abs(best-num(t, m[3])) > 0.1 {
			t.Errorf("%s: says the picture gives at most %s:1, measured %.2f:1", s.Placement, m[3], best)
		}
		behind = lumaHex(t, "#111111")
		if m[5] != "near-black" || !regexp.MustCompile(`#111111 plate`).MatchString(s.Styling) {
			t.Errorf("%s: plate %q, styling %q", s.Placement, m[5], s.Styling)
		}
	} else {
		t.Fatalf("%s: reason %q says neither", s.Placement, s.Reason)
	}
	if math.Abs(quotedBg-bg) > 0.02 {
		t.Errorf("%s: says luminance %.2f, measured %.3f", s.Placement, quotedBg, bg)
	}
	band := func(l float64) string {
		switch {
		case l < 0.1:
			return "dark"
		case l > 0.4:
			return "light"
		}
		return "mid-tone"
	}
	if want := band(bg); bgWord != want && band(bg-0.01) != bgWord && band(bg+0.01) != bgWord {
		t.Errorf("%s: calls a background of luminance %.3f %s", s.Placement, bg, bgWord)
	}
	names := map[string]string{"white": "#FFFFFF", "yellow": "#FFD400", "near-black": "#111111", "red": "#FF3B30"}
	if names[colorWord] != s.Color {
		t.Errorf("%s: names %s for %s", s.Placement, colorWord, s.Color)
	}
	text := lumaHex(t, s.Color)
	if band(text) == bgWord && bgWord != "mid-tone" {
		t.Errorf("%s: %s text (luminance %.2f) on a %s background", s.Placement, colorWord, text, bgWord)
	}
	got := ratioOf(behind, text)
	if math.Abs(got-quoted) > 0.15 || quoted < minContrast {
		t.Errorf("%s: quotes %.1f:1, measured %.2f:1", s.Placement, quoted, got)
	}
}

// lumaOver is the mean WCAG relative luminance of every pixel of img in r.
func lumaOver(img image.Image, r image.Rectangle) float64 {
	sum, n := 0.0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sum += 0.2126*colour.SRGBToLinear(float64(cr)/65535) + 0.7152*colour.SRGBToLinear(float64(cg)/65535) +
				0.0722*colour.SRGBToLinear(float64(cb)/65535)
			n++
		}
	}
	return sum / float64(n)
}

func lumaHex(t *testing.T, hex string) float64 {
	t.Helper()
	c, ok := colour.ParseHex(hex)
	if !ok {
		t.Fatalf("colour %q", hex)
	}
	return 0.2126*colour.SRGBToLinear(float64(c.R)/255) + 0.7152*colour.SRGBToLinear(float64(c.G)/255) +
		0.0722*colour.SRGBToLinear(float64(c.B)/255)
}

func ratioOf(a, b float64) float64 { return (math.Max(a, b) + 0.05) / (math.Min(a, b) + 0.05) }

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// contractPlacements are the placements the API contract allows.
var contractPlacements = map[string]bool{"top": true, "bottom": true, "left": true, "right": true, "center": true,
	"top-left": true, "top-right": true, "bottom-left": true, "bottom-right": true}
