package ffrender_test

import (
	"image"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/mediatest"
)

// TestEnergeticHighlightsWordByWord: in the energetic style the word
// being spoken is lit (a yellow box behind it) while it is spoken and the
// next one takes over when it starts: sampled in the middle of each word
// of a line, the lit pixels sit further right each time, and before the
// line nothing is lit. The light is a filled box with the word in dark
// ink on it, not yellow letters, which would read as a keyword's colour.
func TestEnergeticHighlightsWordByWord(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 540, Height: 960, Scenes: []mediatest.Scene{{Colour: "navy", Seconds: 4}}})
	ws := []captions.Word{{Start: 1, End: 1.5, Text: "rockets"}, {Start: 1.6, End: 2.1, Text: "fly"}, {Start: 2.2, End: 2.9, Text: "higher"}}
	r := &ffrender.Renderer{Preset: "ultrafast"}
	out := output(t, r, ffrender.Job{Source: src, SrcW: 540, SrcH: 960, HasAudio: true, Start: 0, End: 4, Width: 540, Height: 960,
		Dir: filepath.Join(dir, "job"), Text: captions.Spec{Style: captions.Energetic, Words: ws}})
	if _, n := litCentre(still(t, out, 0.5)); n > 0 {
		t.Errorf("%d lit pixels before the line is spoken", n)
	}
	last := -1.0
	examples := testkit.ExamplesDirIfAsked(t)
	for i, w := range ws {
		img := still(t, out, (w.Start+w.End)/2)
		x, n := litCentre(img)
		if n < 200 {
			t.Fatalf("word %q: %d lit pixels while it is spoken", w.Text, n)
		}
		if x <= last+20 {
			t.Errorf("word %d %q: the light is at x=%.0f, not right of the previous word's %.0f", i, w.Text, x, last)
		}
		if fill, ink := boxed(img, isLit); fill < 0.5 || ink < 0.1 {
			t.Errorf("word %d %q: the light fills %.2f of its bounds with %.2f dark ink: not a box behind the word", i, w.Text, fill, ink)
		}
		last = x
		if examples != "" && i == 1 {
			save(t, img, examples, "energetic-word-by-word")
		}
	}
}

// TestEnergeticKeywordsKeepTheirColour: a keyword keeps its colour
// (green) while other words are spoken, beside the spoken word's yellow
// box; spoken itself, its box takes the keyword's colour.
func TestEnergeticKeywordsKeepTheirColour(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 540, Height: 960, Scenes: []mediatest.Scene{{Colour: "navy", Seconds: 3}}})
	ws := []captions.Word{{Start: 0.5, End: 1.2, Text: "rockets"}, {Start: 1.3, End: 2.2, Text: "fly"}}
	r := &ffrender.Renderer{Preset: "ultrafast"}
	out := output(t, r, ffrender.Job{Source: src, SrcW: 540, SrcH: 960, HasAudio: true, Start: 0, End: 3, Width: 540, Height: 960,
		Dir: filepath.Join(dir, "job"), Text: captions.Spec{Style: captions.Energetic, Words: ws, Keywords: []string{"rockets"}, Emphasis: true}})

	spoken := still(t, out, 0.85)
	if _, n := litCentre(spoken); n > 0 {
		t.Errorf("the keyword spoken: %d yellow pixels, want its box in its own colour", n)
	}
	if fill, ink := boxed(spoken, isKeyword); fill < 0.5 || ink < 0.1 {
		t.Errorf("the keyword spoken: its colour fills %.2f of its bounds with %.2f dark ink: not a box", fill, ink)
	}

	next := still(t, out, 1.75)
	lit, n := litCentre(next)
	green, g := centre(next, isKeyword)
	if n < 200 || g < 100 {
		t.Fatalf("the next word spoken: %d lit and %d keyword pixels", n, g)
	}
	if green >= lit-20 {
		t.Errorf("the keyword's colour (x=%.0f) is not left of the spoken word's box (x=%.0f)", green, lit)
	}
	if fill, _ := boxed(next, isKeyword); fill > 0.5 {
		t.Errorf("the keyword no longer spoken still fills %.2f of its bounds: boxed, not coloured", fill)
	}
}

// isLit is the energetic style's spoken-word yellow (#FFF000); isKeyword
// its keywords' green (#60FF60).
func isLit(r, g, b uint32) bool     { return r > 0xd8 && g > 0xc8 && b < 0x60 }
func isKeyword(r, g, b uint32) bool { return r < 0xa0 && g > 0xd8 && b < 0xa0 }

// litCentre is the mean x of the energetic style's active-word yellow
// pixels of img, and how many there are.
func litCentre(img image.Image) (float64, int) { return centre(img, isLit) }

// centre is the mean x of the pixels of img in a colour, and how many
// there are.
func centre(img image.Image, in func(r, g, b uint32) bool) (float64, int) {
	sum, n := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if in(r>>8, g>>8, bl>>8) {
				sum += x
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

// boxed measures the pixels of img in a colour: the share of their
// bounds they fill (a box fills most of it, letters far less) and the
// share of dark ink there (letters on a box).
func boxed(img image.Image, in func(r, g, b uint32) bool) (fill, ink float64) {
	var bounds image.Rectangle
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); in(r>>8, g>>8, bl>>8) {
				bounds = bounds.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	dark := 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); max(r, g, bl)>>8 < 0x40 {
				dark++
			}
		}
	}
	area := float64(bounds.Dx() * bounds.Dy())
	return float64(n) / area, float64(dark) / area
}
