package renderer_test

import (
	"image"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/renderer"
)

// TestEnergeticHighlightsWordByWord: in the energetic style the word
// being spoken is lit (yellow) while it is spoken and the next one takes
// over when it starts: sampled in the middle of each word of a line, the
// lit pixels sit further right each time, and before the line nothing is
// lit.
func TestEnergeticHighlightsWordByWord(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 540, Height: 960, Scenes: []mediatest.Scene{{Colour: "navy", Seconds: 4}}})
	ws := []captions.Word{{Start: 1, End: 1.5, Text: "rockets"}, {Start: 1.6, End: 2.1, Text: "fly"}, {Start: 2.2, End: 2.9, Text: "higher"}}
	r := &renderer.Renderer{Preset: "ultrafast"}
	out := output(t, r, renderer.Job{Source: src, SrcW: 540, SrcH: 960, HasAudio: true, Start: 0, End: 4, Width: 540, Height: 960,
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
		last = x
		if examples != "" && i == 1 {
			save(t, img, examples, "energetic-word-by-word")
		}
	}
}

// litCentre is the mean x of the energetic style's active-word yellow
// (#FFF000) pixels of img, and how many there are.
func litCentre(img image.Image) (float64, int) {
	sum, n := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 0xd8 && g>>8 > 0xc8 && bl>>8 < 0x60 {
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
