package critique

import (
	"image"
	"image/color"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var grey = color.RGBA{R: 128, G: 128, B: 128, A: 255}

func scoreList(s Scores) map[string]float64 {
	return map[string]float64{"contrast": s.Contrast, "composition": s.Composition, "textReadability": s.TextReadability,
		"faceVisibility": s.FaceVisibility, "colorAppeal": s.ColorAppeal, "clickability": s.Clickability,
		"emotionalImpact": s.EmotionalImpact}
}

// checkShape asserts what every critique must hold: scores in 0..10 with
// one decimal, areas inside the w×h picture with intensity in 0..1, and
// non-empty wording.
func checkShape(t *testing.T, c Critique, w, h int) {
	t.Helper()
	all := scoreList(c.Scores)
	all["overall"] = c.OverallScore
	for name, v := range all {
		if v < 0 || v > 10 || math.Abs(v*10-math.Round(v*10)) > 1e-9 {
			t.Errorf("%s = %v, want 0..10 with one decimal", name, v)
		}
	}
	for _, a := range c.AttentionAreas {
		if a.X < 0 || a.X > float64(w) || a.Y < 0 || a.Y > float64(h) || a.Radius <= 0 || a.Radius > float64(max(w, h))/2 {
			t.Errorf("area %+v is not inside the %d×%d picture", a, w, h)
		}
		if a.Intensity < 0 || a.Intensity > 1 || a.Label == "" {
			t.Errorf("area %+v: want intensity 0..1 and a label", a)
		}
	}
	if len(c.AttentionAreas) > maxAreas {
		t.Errorf("%d attention areas, want at most %d", len(c.AttentionAreas), maxAreas)
	}
	if len(c.Improvements) == 0 || len(c.Improvements) > maxImprovements {
		t.Errorf("%d improvements, want 1..%d", len(c.Improvements), maxImprovements)
	}
	for _, list := range [][]string{c.Strengths, c.Weaknesses, c.Improvements, {c.Summary}} {
		for _, s := range list {
			if strings.TrimSpace(s) == "" {
				t.Errorf("empty text in %q", list)
			}
		}
	}
}

func TestPosterOutranksFlatGrey(t *testing.T) {
	p, box := poster(t, 1280, 720)
	good := analyze(t, p, faces(t, p), "")
	bad := analyze(t, flat(1280, 720, grey), nil, "")
	checkShape(t, good, 1280, 720)
	checkShape(t, bad, 1280, 720)
	g, b := scoreList(good.Scores), scoreList(bad.Scores)
	g["overall"], b["overall"] = good.OverallScore, bad.OverallScore
	for name := range g {
		if g[name] <= b[name] {
			t.Errorf("%s: poster %.1f, flat grey %.1f; want the poster higher", name, g[name], b[name])
		}
	}
	if len(good.Strengths) == 0 || len(bad.Weaknesses) == 0 || len(good.Weaknesses) >= len(bad.Weaknesses) {
		t.Errorf("poster: %d strengths, %d weaknesses; grey: %d weaknesses", len(good.Strengths), len(good.Weaknesses), len(bad.Weaknesses))
	}

	// The face's centre, found on the portrait alone and carried into the
	// poster by the placement, must lie in an area labelled "face".
	photo := facePhoto(t)
	alone := faces(t, photo)
	if len(alone) == 0 {
		t.Fatal("no face in the sample portrait")
	}
	k := float64(box.Dx()) / float64(photo.Bounds().Dx())
	cx := float64(box.Min.X) + k*float64(alone[0].Rect.Min.X+alone[0].Rect.Max.X)/2
	cy := float64(box.Min.Y) + k*float64(alone[0].Rect.Min.Y+alone[0].Rect.Max.Y)/2
	covered := slices.ContainsFunc(good.AttentionAreas, func(a Area) bool {
		return a.Label == "face" && math.Hypot(a.X-cx, a.Y-cy) <= a.Radius
	})
	if !covered {
		t.Errorf("no face area covers the face centre (%.0f, %.0f): %+v", cx, cy, good.AttentionAreas)
	}
	// The headline is salient too: an area labelled text lies on it.
	if !slices.ContainsFunc(good.AttentionAreas, func(a Area) bool { return a.Label == "text" && a.X > float64(box.Max.X) }) {
		t.Errorf("no text area right of the portrait: %+v", good.AttentionAreas)
	}
	if len(bad.AttentionAreas) != 0 {
		t.Errorf("flat grey has attention areas %+v", bad.AttentionAreas)
	}
}

// TestNeverNil: a picture with nothing to say still gets empty lists,
// which the API answers as [] rather than null, and a summary.
func TestNeverNil(t *testing.T) {
	c := analyze(t, flat(64, 36, grey), nil, "")
	for name, isNil := range map[string]bool{"strengths": c.Strengths == nil, "weaknesses": c.Weaknesses == nil,
		"improvements": c.Improvements == nil, "attentionAreas": c.AttentionAreas == nil} {
		if isNil {
			t.Errorf("%s is nil", name)
		}
	}
	if c.Summary == "" {
		t.Error("empty summary")
	}
}

func TestNicheChangesImprovements(t *testing.T) {
	p, _ := poster(t, 640, 360)
	fs := faces(t, p)
	plain := analyze(t, p, fs, "")
	byNiche := map[string]Critique{}
	for _, n := range []string{"gaming", "Personal Finance", "cooking recipes", "travel vlog"} {
		byNiche[n] = analyze(t, p, fs, n)
		if reflect.DeepEqual(byNiche[n].Improvements, plain.Improvements) {
			t.Errorf("niche %q gives the generic improvements %q", n, plain.Improvements)
		}
		// The niche words the advice; the measurements stay the same.
		if byNiche[n].Scores != plain.Scores || !reflect.DeepEqual(byNiche[n].AttentionAreas, plain.AttentionAreas) {
			t.Errorf("niche %q changed the measurements", n)
		}
	}
	if reflect.DeepEqual(byNiche["gaming"].Improvements, byNiche["Personal Finance"].Improvements) {
		t.Errorf("gaming and finance give the same improvements %q", byNiche["gaming"].Improvements)
	}
	if !strings.Contains(byNiche["gaming"].Summary, "gaming") || !strings.Contains(byNiche["Personal Finance"].Summary, "finance") {
		t.Errorf("summaries do not name the niche: %q, %q", byNiche["gaming"].Summary, byNiche["Personal Finance"].Summary)
	}
	// A niche without a profile gets the generic advice.
	if other := analyze(t, p, fs, "underwater basket weaving"); !reflect.DeepEqual(other, plain) {
		t.Errorf("an unknown niche changed the critique: %q vs %q", other.Improvements, plain.Improvements)
	}
}

func TestLoudColourIsAWeaknessForFinanceOnly(t *testing.T) {
	// Saturated primaries in bands: colourfulness far above finance's
	// ceiling.
	img := image.NewRGBA(image.Rect(0, 0, 320, 180))
	bands := []color.RGBA{{255, 0, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 255}, {0, 200, 0, 255}}
	for y := range 180 {
		for x := range 320 {
			img.SetRGBA(x, y, bands[x*len(bands)/320])
		}
	}
	m := measure(t, img, nil)
	if m.Colourfulness <= 90 {
		t.Fatalf("colourfulness %.0f; the test needs a loud picture", m.Colourfulness)
	}
	loud := func(c Critique) bool {
		return slices.ContainsFunc(c.Weaknesses, func(s string) bool { return strings.Contains(s, "loud") })
	}
	if !loud(analyze(t, img, nil, "finance")) || loud(analyze(t, img, nil, "gaming")) {
		t.Error("want the loud-colour weakness for finance and not for gaming")
	}
}

func TestDeterministic(t *testing.T) {
	p, _ := poster(t, 640, 360)
	fs := faces(t, p)
	first := analyze(t, p, fs, "tech review")
	for range 3 {
		if again := analyze(t, p, fs, "tech review"); !reflect.DeepEqual(again, first) {
			t.Fatalf("same input, different critique:\n%+v\n%+v", first, again)
		}
	}
}

func TestSubImageUsesSourceCoordinates(t *testing.T) {
	// A critique of a sub-image measures it from its own origin: its areas
	// are in the picture's pixels, not the parent's.
	p, _ := poster(t, 640, 360)
	big := image.NewRGBA(image.Rect(0, 0, 1000, 700))
	for i := range big.Pix {
		big.Pix[i] = 255
	}
	off := image.Pt(200, 300)
	for y := range 360 {
		copy(big.Pix[(y+off.Y)*big.Stride+4*off.X:], p.Pix[y*p.Stride:y*p.Stride+4*640])
	}
	sub := big.SubImage(image.Rectangle{Min: off, Max: off.Add(image.Pt(640, 360))})
	want := analyze(t, p, faces(t, p), "")
	if got := analyze(t, sub, faces(t, sub), ""); !reflect.DeepEqual(got, want) {
		t.Errorf("sub-image critique differs:\n%+v\n%+v", got, want)
	}
}

// TestCritiqueQuotesTheHeadline: the critique reads the words of a
// face-and-text thumbnail, quotes them, and scores the poster above a
// flat grey picture on every score.
func TestCritiqueQuotesTheHeadline(t *testing.T) {
	p, _ := astronautPoster(t, 1280, 720)
	good := analyze(t, p, faces(t, p), "")
	bad := analyze(t, flat(1280, 720, grey), nil, "")
	checkShape(t, good, 1280, 720)
	// Inter Display Black's capitals sit tight: the words must still be
	// read apart ("WEHAVE" was read once), and nothing else.
	read := strings.Join(good.Text.Words, " ")
	if read != "HOUSTON WE HAVE A PROBLEM" {
		t.Errorf("read %q, want the headline", read)
	}
	if !slices.ContainsFunc(append(good.Strengths, good.Weaknesses...), func(s string) bool {
		return strings.Contains(s, "'"+read+"'")
	}) {
		t.Errorf("the wording does not quote the headline: %q %q", good.Strengths, good.Weaknesses)
	}
	if len(bad.Text.Words) != 0 {
		t.Errorf("flat grey read %q", bad.Text.Words)
	}
	g, b := scoreList(good.Scores), scoreList(bad.Scores)
	g["overall"], b["overall"] = good.OverallScore, bad.OverallScore
	for name := range g {
		if g[name] <= b[name] {
			t.Errorf("%s: poster %.1f, flat grey %.1f; want the poster higher", name, g[name], b[name])
		}
	}
	t.Logf("poster %+v overall %.1f, read %q, mobile %q; grey %+v", good.Scores, good.OverallScore, good.Text.Words, good.Text.MobileWords, bad.Scores)
}
