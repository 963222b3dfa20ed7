package ffrender_test

import (
	"image"
	"path/filepath"
	"strings"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/mediatest"
)

// inkColumns are the leftmost and rightmost columns of img holding a pixel
// that differs clearly from the plain background, scanning rows from y0
// to y1; -1, -1 when there is none.
func inkColumns(img image.Image, plain image.Image, y0, y1 int) (left, right int) {
	left, right = -1, -1
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		for y := max(y0, b.Min.Y); y < min(y1, b.Max.Y); y++ {
			r1, g1, b1, _ := img.At(x, y).RGBA()
			r2, g2, b2, _ := plain.At(x, y).RGBA()
			if abs(int(r1)-int(r2))+abs(int(g1)-int(g2))+abs(int(b1)-int(b2)) > 3*6000 {
				if left < 0 {
					left = x
				}
				right = x
				break
			}
		}
	}
	return left, right
}

// A caption word of 300 letters and a hook of one 150-letter word stay
// inside the frame in every style: libass wraps only at spaces, so the
// captions package cuts such a word with an ellipsis. With
// HOOKLINE_WRITE_EXAMPLES=1 the bold still goes to testdata/examples.
func TestUnbreakableWordsStayInsideTheFrame(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 540, Height: 960, Scenes: []mediatest.Scene{{Colour: "#203040", Seconds: 3}}})
	r := &ffrender.Renderer{Preset: "ultrafast"}
	long := strings.Repeat("W", 40) + strings.Repeat("a", 260)
	render := func(name string, spec captions.Spec) string {
		return output(t, r, ffrender.Job{Source: src, SrcW: 540, SrcH: 960, HasAudio: true, Start: 0, End: 2, Width: 540, Height: 960,
			Dir: filepath.Join(dir, name), Text: spec})
	}
	plain := still(t, render("plain", captions.Spec{Style: captions.Clean}), 1.5)
	for _, st := range captions.Styles {
		out := render(string(st), captions.Spec{Style: st, Words: []captions.Word{
			{Start: 0, End: 1.9, Text: "look"}, {Start: 0.1, End: 1.9, Text: long}, {Start: 0.2, End: 1.9, Text: "here"},
		}, Hook: "Hook " + strings.Repeat("m", 150), HookSeconds: 1.9})
		img := still(t, out, 1.5)
		// The hook sits in the top fifth, the captions below the middle.
		for _, part := range []struct {
			name   string
			y0, y1 int
		}{{"hook", 60, 260}, {"captions", 480, 900}} {
			left, right := inkColumns(img, plain, part.y0, part.y1)
			t.Logf("%s %s: drawn from column %d to %d of 540", st, part.name, left, right)
			// Text that ran off would touch both edges; text dropped
			// rather than cut would be narrow.
			if left < 4 || right > 535 || right-left < 540*2/5 {
				t.Errorf("%s %s: drawn from column %d to %d of 540", st, part.name, left, right)
			}
		}
		if dir := testkit.ExamplesDirIfAsked(t); st == captions.Bold && dir != "" {
			save(t, img, dir, "long-word")
		}
	}
}
