package critique

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
)

// TestWriteExamples writes a face-and-text thumbnail (the astronaut
// portrait with "HOUSTON WE HAVE A PROBLEM") to testdata/examples/edits:
// the input picture and the picture with the attention areas drawn (faces
// cyan, others green, text regions yellow, the words OCR read magenta),
// for a reviewer to look at; httpapi writes the critique JSON of the
// input beside them. It runs only with HOOKLINE_WRITE_EXAMPLES=1.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	p, _ := astronautPoster(t, 1280, 720)
	input := jpegOf(t, p, 85)
	// The critique is of the JPEG as the service would load it.
	img, err := jpeg.Decode(bytes.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	m := measure(t, img, faces(t, img))
	t.Logf("read %q, at mobile size %q", m.Reading.Words, m.Reading.MobileWords)
	files := map[string][]byte{
		"critique-input.jpg": input,
		"critique-areas.jpg": jpegOf(t, overlay(img, m), 80),
	}
	for name, b := range files {
		if len(b) > 150<<10 {
			t.Errorf("%s is %d KB, want at most 150 KB", name, len(b)>>10)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func jpegOf(t *testing.T, img image.Image, quality int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// overlay draws m's attention areas as circles, its text regions as
// yellow boxes and the words OCR read as magenta boxes over a copy of img.
func overlay(img image.Image, m Metrics) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(x, y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	box := func(r image.Rectangle, c color.RGBA) {
		for x := r.Min.X; x < r.Max.X; x++ {
			out.SetRGBA(x, r.Min.Y, c)
			out.SetRGBA(x, r.Max.Y-1, c)
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			out.SetRGBA(r.Min.X, y, c)
			out.SetRGBA(r.Max.X-1, y, c)
		}
	}
	for _, t := range m.Text {
		box(t.Rect, color.RGBA{R: 255, G: 230, A: 255})
	}
	for _, w := range m.Reading.Boxes {
		box(w.Inset(-3), color.RGBA{R: 255, B: 255, A: 255})
	}
	for _, a := range m.Attention {
		c := color.RGBA{G: 230, A: 255}
		if a.Label == "face" {
			c = color.RGBA{G: 230, B: 255, A: 255}
		}
		steps := int(2*math.Pi*a.Radius) + 1
		for k := range steps {
			th := 2 * math.Pi * float64(k) / float64(steps)
			for d := -2.0; d <= 2; d++ {
				out.SetRGBA(int(a.X+(a.Radius+d)*math.Cos(th)), int(a.Y+(a.Radius+d)*math.Sin(th)), c)
			}
		}
	}
	return out
}
