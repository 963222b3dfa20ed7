package mediatest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// HugePicture writes a one-second QuickTime file (MJPEG and AAC) whose
// frames declare a 16383×16383 picture, larger than ffmpeg will allocate:
// it probes, and decoding it fails every time.
func HugePicture(t testing.TB, dir string) string {
	t.Helper()
	small := filepath.Join(dir, "small-picture.mov")
	run(t, "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=16x16:r=5:d=1", "-f", "lavfi", "-i", "sine=d=1",
		"-c:v", "mjpeg", "-c:a", "aac", "-shortest", small)
	b, err := os.ReadFile(small) //nolint:gosec // G304: the test's own file
	if err != nil {
		t.Fatal(err)
	}
	// Each frame's start-of-frame header: length 17, 8 bits, height and
	// width 16.
	sof := []byte{0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10}
	huge := []byte{0xFF, 0xC0, 0x00, 0x11, 0x08, 0x3F, 0xFF, 0x3F, 0xFF}
	if bytes.Count(b, sof) == 0 {
		t.Fatal("no JPEG frame header to enlarge")
	}
	out := filepath.Join(dir, "huge-picture.mov")
	if err := os.WriteFile(out, bytes.ReplaceAll(b, sof, huge), 0o600); err != nil { //nolint:gosec // G703: a path in the test's own directory
		t.Fatal(err)
	}
	return out
}

// Truncated writes the first share (0..1) of file's bytes to a new file
// in dir: a download that ended early. The sources Video makes keep their
// index first, so the cut file still declares its whole length.
func Truncated(t testing.TB, file, dir string, share float64) string {
	t.Helper()
	b, err := os.ReadFile(file) //nolint:gosec // G304: the test's own file
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "truncated-"+filepath.Base(file))
	if err := os.WriteFile(out, b[:int(float64(len(b))*share)], 0o600); err != nil { //nolint:gosec // G703: a path in the test's own directory
		t.Fatal(err)
	}
	return out
}
