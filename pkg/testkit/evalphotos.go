package testkit

import (
	"image"
	_ "image/jpeg" // the eval photos are JPEG and PNG
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvEvalPhotos overrides where the evaluation photographs are read from;
// by default ../shared/eval/photos beside the repository.
const EnvEvalPhotos = "HOOKLINE_EVAL_PHOTOS"

// EvalPhotosDir is the directory of the evaluation photographs: real
// pictures, with their sources in SOURCES.md, that the image engines are
// measured on. They are read from there, never copied into the
// repository. A missing directory fails the test: it is never skipped.
func EvalPhotosDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(EnvEvalPhotos); dir != "" {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			photos := filepath.Join(dir, "..", "shared", "eval", "photos")
			if _, err := os.Stat(photos); err != nil {
				t.Fatalf("testkit: the evaluation photographs are missing: %v (set %s)", err, EnvEvalPhotos)
			}
			return photos
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("testkit: no go.work in %s or above", wd)
		}
	}
}

// EvalPhotos lists the evaluation photographs by file name (the trimap and
// the reference matte of the plant are not photographs and are left out).
func EvalPhotos(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(EvalPhotosDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		ext := strings.ToLower(filepath.Ext(n))
		if (ext == ".png" || ext == ".jpg" || ext == ".jpeg") && !strings.Contains(n, "_matte") && !strings.Contains(n, "_trimap") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		t.Fatal("testkit: no evaluation photographs found")
	}
	return names
}

// EvalPhoto decodes the evaluation photograph name.
func EvalPhoto(t testing.TB, name string) image.Image {
	t.Helper()
	return decodeFile(t, filepath.Join(EvalPhotosDir(t), name))
}

// EvalPhotoBytes returns the evaluation photograph name as stored, for
// tests that upload it.
func EvalPhotoBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(EvalPhotosDir(t), name)) //nolint:gosec // G304: a test fixture path
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeFile(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path) //nolint:gosec // G304: a test fixture path
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("testkit: decode %s: %v", path, err)
	}
	return img
}
