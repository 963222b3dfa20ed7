package captions

import (
	"image"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
	words := []Word{{0.2, 0.6, "what"}, {0.6, 1.0, "astronauts"}, {1.0, 1.4, "see"}}
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
