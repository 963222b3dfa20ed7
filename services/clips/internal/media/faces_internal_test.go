package media

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/mediatest"
)

// A frame the same as the one before has its faces copied; every frame
// ends with the faces a search of its own finds.
func TestSampleFacesRepeatedFrames(t *testing.T) {
	mediatest.Require(t)
	const w, h, scale = 480, 270, 2.0
	photo := filepath.Join(t.TempDir(), "face.jpg")
	if err := os.WriteFile(photo, testkit.FacePhoto(t), 0o600); err != nil {
		t.Fatal(err)
	}
	face, err := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-i", photo, //nolint:gosec // G204: a test's own file
		"-vf", "scale=480:270:force_original_aspect_ratio=decrease,pad=480:270:(ow-iw)/2:(oh-ih)/2,format=gray",
		"-frames:v", "1", "-f", "rawvideo", "pipe:").Output()
	if err != nil || len(face) != w*h {
		t.Fatalf("grey face frame: %d bytes, %v", len(face), err)
	}
	blank := make([]byte, w*h)
	other := bytes.Clone(face)
	other[0]++ // one pixel apart: searched, not copied
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	sampler := &facetrack.Sampler{Faces: det}
	frames := [][]byte{face, face, face, blank, blank, other, face}
	var got facetrack.Samples
	if err := sampleFaces(bytes.NewReader(bytes.Join(frames, nil)), w, h, scale, sampler, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Frames) != len(frames) {
		t.Fatalf("%d frames sampled, want %d", len(got.Frames), len(frames))
	}
	if len(got.Frames[0]) == 0 {
		t.Fatal("no face found in the photo")
	}
	// The detector's answer for each distinct frame, searched once: the
	// sampler keeps nothing between frames, so the same pixels give the
	// same faces.
	searched := map[string][]image.Rectangle{}
	for i, f := range frames {
		want, ok := searched[string(f)]
		if !ok {
			want = boxes(sampler.Frame(&image.Gray{Pix: f, Stride: w, Rect: image.Rect(0, 0, w, h)}, scale))
			searched[string(f)] = want
		}
		if !slices.Equal(boxes(got.Frames[i]), want) {
			t.Errorf("frame %d: faces %v, want %v", i, boxes(got.Frames[i]), want)
		}
	}
}

// boxes are the boxes of faces (their mouths, NaN unmeasured, aside).
func boxes(faces []facetrack.Face) []image.Rectangle {
	out := make([]image.Rectangle, len(faces))
	for i, f := range faces {
		out[i] = f.Box
	}
	return out
}
