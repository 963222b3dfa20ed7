package testkit

import (
	"image"
	// The evaluation photos are PNG and JPEG.
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"testing"
)

// EvalPhoto decodes one of the shared evaluation photographs,
// ../shared/eval/photos/<name> beside the repository (the directory of
// go.work): ordinary pictures the image engines were not designed
// around. A missing photo fails the test.
func EvalPhoto(t testing.TB, name string) image.Image {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := ""
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			root = dir
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("testkit: no go.work in %s or above", wd)
		}
	}
	f, err := os.Open(filepath.Join(root, "..", "shared", "eval", "photos", name)) //nolint:gosec // G304: a shared test photo
	if err != nil {
		t.Fatalf("testkit: evaluation photo: %v", err)
	}
	defer func() { _ = f.Close() }() // read-only: nothing to lose on close
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("testkit: decoding %s: %v", name, err)
	}
	return img
}
