package matte

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
)

// TestWriteExamples writes the background-remove example
// (testdata/examples/edits/background-remove.png) for reviewers; run with
// HOOKLINE_WRITE_EXAMPLES=1. Package backdrop writes background-replace's.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	cut, err := Classical{}.Remove(t.Context(), photo, detector(t).Detect(photo))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, cut); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 150<<10 {
		t.Errorf("background-remove.png is %d KB", buf.Len()>>10)
	}
	if err := os.WriteFile(filepath.Join(dir, "background-remove.png"), buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: example pictures are public
		t.Fatal(err)
	}
	// Issue 22: the astronaut and the camera man, seeded by their
	// landmarks, and two pictures without a face, seeded by their frame.
	for photo, name := range map[string]string{"astronaut.png": "astronaut", "plant.jpg": "plant", "chelsea.png": "cat", "camera.png": "camera"} {
		img := testkit.EvalPhoto(t, photo)
		cut, err := Classical{}.Remove(t.Context(), img, landmarker(t).Detect(img))
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, cut); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "background-remove-"+name+".png"), buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: example pictures are public
			t.Fatal(err)
		}
	}
}
