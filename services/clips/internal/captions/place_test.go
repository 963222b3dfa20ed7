package captions

import (
	"image"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"hookline.dev/pkg/media/fonts"
)

// edges are the vertical extent an event's text may take, from its
// alignment and margin: a top-aligned block starts at its margin and
// runs down, a bottom-aligned one ends at its margin from the bottom.
func edges(t *testing.T, script, style string, height int) (top, bottom int, topAligned bool) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^Dialogue: \d+,[^,]*,[^,]*,` + style + `,,0,0,(\d+),,(.*)$`)
	m := re.FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("no %s event in\n%s", style, script)
	}
	mv, _ := strconv.Atoi(m[1])
	an := map[string]int{"Hook": 8, "Caption": 2}[style]
	if strings.HasPrefix(m[2], `{\an8}`) {
		an = 8
	} else if strings.HasPrefix(m[2], `{\an2}`) {
		an = 2
	}
	if mv == 0 {
		mv = map[string]int{"Hook": int(0.14 * float64(height)), "Caption": int(0.2 * float64(height))}[style]
	}
	if an == 8 {
		return mv, height, true
	}
	return 0, height - mv, false
}

func TestHookAndCaptionsAvoidFaces(t *testing.T) {
	words := []Word{{Start: 0.2, End: 0.6, Text: "what"}, {Start: 0.6, End: 1.0, Text: "astronauts"}, {Start: 1.0, End: 1.4, Text: "see"}}
	for _, c := range []struct {
		name string
		face FaceBox
	}{
		// A close-up whose forehead lies where the hook would be.
		{"close-up", FaceBox{Start: 0, End: 5, Box: image.Rect(80, 90, 460, 600), Features: image.Rect(80, 200, 460, 560)}},
		// The lower half of a split: a face where the captions would be.
		{"split-bottom", FaceBox{Start: 0, End: 5, Box: image.Rect(150, 560, 390, 860), Features: image.Rect(150, 620, 390, 840)}},
	} {
		s := Spec{Width: 540, Height: 960, Style: Bold, Words: words, Hook: "What astronauts see from orbit", HookSeconds: 2, Faces: []FaceBox{c.face}}
		script := ASS(s)
		for _, style := range []string{"Hook", "Caption"} {
			top, bottom, down := edges(t, script, style, 960)
			// The text runs from its edge away from it: it must start
			// beyond the face on that side.
			switch {
			case down && top < c.face.Box.Max.Y && top+60 > c.face.Box.Min.Y:
				t.Errorf("%s: the %s starts at y %d, inside the head %v", c.name, style, top, c.face.Box)
			case !down && bottom > c.face.Box.Min.Y && bottom-60 < c.face.Box.Max.Y:
				t.Errorf("%s: the %s ends at y %d, inside the head %v", c.name, style, bottom, c.face.Box)
			}
		}
		// Without the face, both keep their places.
		s.Faces = nil
		if plain := ASS(s); strings.Contains(plain, `{\an`) || regexp.MustCompile(`(?m)^Dialogue: \d+,[^,]*,[^,]*,\w+,,0,0,[1-9]`).MatchString(plain) {
			t.Errorf("%s: text moved with no face on screen", c.name)
		}
	}
}

func TestPlaceFallsBackToEyesAndMouth(t *testing.T) {
	// A head that fills the frame but for a band at the bottom: the
	// text goes below the mouth, over the chin, not over the features.
	s := Spec{Width: 540, Height: 960, Faces: []FaceBox{{Start: 0, End: 9, Box: image.Rect(0, 30, 540, 930), Features: image.Rect(60, 250, 480, 700)}}}
	sp := s.place(0, 1, spot{an: 8, marginV: 134}, 90, nil)
	top := sp.marginV
	if sp.an == 2 {
		top = 960 - sp.marginV - 90
	}
	if top < 700 && top+90 > 250 {
		t.Errorf("the block at y %d–%d covers the eyes and mouth (250–700)", top, top+90)
	}
}

// TestHookLeavesTheLogoFree: whatever the frame's shape, the hook's
// length and where the faces push it, the hook's box (its text between
// its margins, with the box's padding around) never reaches the logo's
// corner, so both are seen whole.
func TestHookLeavesTheLogoFree(t *testing.T) {
	re := regexp.MustCompile(`(?m)^Dialogue: \d+,[^,]*,[^,]*,Hook,,(\d+),(\d+),(\d+),,(.*)$`)
	for _, size := range []image.Point{{540, 960}, {1080, 1920}, {720, 1280}, {1080, 1080}, {1920, 1080}} {
		w, h := size.X, size.Y
		// The logo as the renderer places it: a square of 16 % of the
		// width, two frame borders in from the top-right corner.
		side, border := w*16/100/2*2, max(8, w/40)
		logo := image.Rect(w-side-2*border, 2*border, w-2*border, 2*border+side)
		for _, c := range []struct {
			name, hook string
			faces      []FaceBox
		}{
			{"short", "Solar?", nil},
			{"long", "The biggest solar mistake homeowners make every single summer", nil},
			{"one long word", strings.Repeat("Photovoltaic", 8), nil},
			// A close-up whose eyes push the hook up to the top.
			{"pushed up", "The biggest solar mistake?", []FaceBox{{Start: 0, End: 9, Box: image.Rect(w/6, h/6, w*5/6, h*5/6), Features: image.Rect(w/6, h/5, w*5/6, h*17/20)}}},
		} {
			s := Spec{Width: w, Height: h, Style: Energetic, Hook: c.hook, HookSeconds: 2, Faces: c.faces, Logo: logo}
			m := re.FindStringSubmatch(ASS(s))
			if m == nil {
				t.Fatalf("%dx%d %s: no hook event with its margins", w, h, c.name)
			}
			l, r, v := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
			hookSize, pad := math.Round(0.045*float64(h)), 0.02*float64(h)
			if l == 0 {
				l = w / 14
			}
			if r == 0 {
				r = w / 14
			}
			if v == 0 {
				v = int(0.14 * float64(h))
			}
			// The text centred between the margins, no wider than they
			// leave nor than all of it on one line (measured wider than
			// libass draws), widened by the box's padding.
			fit := newFitter(fonts.Heavy, hookSize, 1, float64(w-l-r), pad)
			widest := math.Min(float64(w-l-r), fit.measure(fit.fit(c.hook)))
			height := blockHeight(fit, fit.fit(c.hook), hookSize, pad)
			top := float64(v) - pad
			if strings.HasPrefix(m[4], `{\an2}`) {
				top = float64(h-v) - height
			}
			centre := float64(l+w-r) / 2
			box := image.Rect(int(centre-widest/2-pad), int(top), int(math.Ceil(centre+widest/2+pad)), int(math.Ceil(top+height)))
			if box.Overlaps(logo) {
				t.Errorf("%dx%d %s: the hook's box %v runs under the logo %v", w, h, c.name, box, logo)
			}
			if box.Min.X < 0 || float64(w-l-r) < float64(w)/2 {
				t.Errorf("%dx%d %s: the hook's box %v is cramped between margins %d and %d", w, h, c.name, box, l, r)
			}
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
