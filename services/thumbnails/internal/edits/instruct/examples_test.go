package instruct

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
)

// TestWriteExamples writes the example edit reviewers look at
// (testdata/examples/edits/edit.jpg); run with HOOKLINE_WRITE_EXAMPLES=1.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	// The sample portrait at twice its size, as an upload would be.
	src := image.NewRGBA(image.Rect(0, 0, 2*photo.Bounds().Dx(), 2*photo.Bounds().Dy()))
	xdraw.CatmullRom.Scale(src, src.Rect, photo, photo.Bounds(), draw.Src, nil)
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	out := apply(t, `brighter and add text "NEW RECORD" top and add border gold`, src, det.Detect(src))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 88}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 150<<10 {
		t.Errorf("edit.jpg is %d KB", buf.Len()>>10)
	}
	if err := os.WriteFile(filepath.Join(dir, "edit.jpg"), buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: an example picture
		t.Fatal(err)
	}
}
