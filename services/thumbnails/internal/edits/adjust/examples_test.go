package adjust

import (
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/encode"
)

// TestWriteExamples writes the example edits reviewers look at
// (testdata/examples/edits); run with HOOKLINE_WRITE_EXAMPLES=1. The
// source of color-enhance and the filters is written beside them.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	write := func(name string, out encode.Picture) {
		decoded(t, out)
		if len(out.Data) > 150<<10 {
			t.Errorf("%s is %d KB", name, len(out.Data)>>10)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out.Data, 0o644); err != nil { //nolint:gosec // G306: an example picture
			t.Fatal(err)
		}
	}
	asJPEG := func(img image.Image) encode.Picture {
		out, err := encode.Encode(img, false)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	src := portraitOnScene(t)
	source := asJPEG(src)
	write("color-filter-source.jpg", source)

	enhanced, err := ColorEnhance(source.Data, Vibrant, Strong)
	if err != nil {
		t.Fatal(err)
	}
	write("color-enhance-vibrant-strong.jpg", enhanced)

	// The middle of the portrait, enlarged: eyes, brows and hair show
	// what the sharpening does.
	face := facePhoto(t)
	crop := image.NewRGBA(image.Rect(0, 0, 200, 150))
	draw.Draw(crop, crop.Rect, face, face.Bounds().Min.Add(image.Pt(60, 110)), draw.Src)
	up, err := Upscale(asJPEG(crop).Data, 2)
	if err != nil {
		t.Fatal(err)
	}
	write("upscale-2x.jpg", up)

	faces := detectFaces(t, src)
	for name, prompt := range map[string]string{
		"filter-sepia.jpg":           "apply a sepia filter",
		"filter-duotone.jpg":         "duotone navy gold",
		"filter-blur-background.jpg": "blur the background",
	} {
		write(name, asJPEG(ApplyFilter(src, mustFilter(t, prompt), faces)))
	}
}
