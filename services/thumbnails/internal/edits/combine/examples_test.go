package combine

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/edits/instruct"
)

// TestWriteExamples writes the example combines reviewers look at
// (testdata/examples/edits/combine-*.jpg); run with
// HOOKLINE_WRITE_EXAMPLES=1. The sample portrait is combined with edits
// of itself and, in picture-in-picture, with a drawn landscape.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	faces := det.Detect(photo)
	edited := func(prompt string) image.Image {
		p, err := instruct.Parse(prompt)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Apply(photo, faces, vision.Saliency(photo))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name, prompt string
		a, b         image.Image
		fa, fb       []vision.Face
	}{
		{"combine-before-after.jpg", "before and after", edited("much darker, much less saturated"), edited("more contrast, much more saturated, slightly brighter"), faces, faces},
		{"combine-versus.jpg", "Old me vs New me", edited("much less saturated"), edited("mirror, saturate, more contrast"), faces, mirrored(faces, photo.Bounds().Dx())},
		{"combine-pip.jpg", "picture-in-picture bottom-right", landscape(1280, 720), photo, nil, faces},
	} {
		l, err := Parse(c.prompt)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Combine(c.a, c.b, l, "16:9", c.fa, c.fb)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 88}); err != nil {
			t.Fatal(err)
		}
		if buf.Len() > 150<<10 {
			t.Errorf("%s is %d KB", c.name, buf.Len()>>10)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name), buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: an example picture
			t.Fatal(err)
		}
	}
}

func mirrored(faces []vision.Face, w int) []vision.Face {
	out := make([]vision.Face, len(faces))
	for i, f := range faces {
		out[i] = vision.Face{Rect: image.Rect(w-f.Rect.Max.X, f.Rect.Min.Y, w-f.Rect.Min.X, f.Rect.Max.Y), Score: f.Score}
	}
	return out
}

// landscape draws a game-like scene: a dusk sky with a sun over two
// ranges of hills.
func landscape(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	fw, fh := float64(w), float64(h)
	for y := range h {
		v := float64(y) / fh
		for x := range w {
			u := float64(x) / fw
			c := color.NRGBA{uint8(40 + 200*v), uint8(30 + 90*v), uint8(120 + 40*(1-v)), 255}
			if math.Hypot(u-0.3, (v-0.45)*fh/fw) < 0.08 {
				c = color.NRGBA{255, 214, 120, 255}
			}
			if v > 0.62+0.08*math.Sin(u*7) {
				c = color.NRGBA{70, uint8(60 + 40*u), 90, 255}
			}
			if v > 0.75+0.06*math.Sin(u*11+1) {
				c = color.NRGBA{25, uint8(50 + 30*v), 45, 255}
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}
