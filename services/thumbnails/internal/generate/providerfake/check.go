package providerfake

import (
	"bytes"
	"errors"
	"image/jpeg"
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// CheckThumbnail fails t unless res is a JPEG that decodes to exactly the
// size of aspect a, as every engine must answer.
func CheckThumbnail(t testing.TB, res engine.Result, a thumbnail.Aspect) {
	t.Helper()
	w, h := a.Size()
	img, err := jpeg.Decode(bytes.NewReader(res.Data))
	if err != nil {
		t.Fatalf("result does not decode as JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h || res.Width != w || res.Height != h || res.ContentType != "image/jpeg" {
		t.Fatalf("result %v (%dx%d %s), want %dx%d image/jpeg", b, res.Width, res.Height, res.ContentType, w, h)
	}
}

// CheckError fails t unless err is an error that wraps want among
// engine.ErrUnavailable, engine.ErrRejected and engine.ErrModelMissing
// (want nil: none, a plain fault) and does not show key.
func CheckError(t testing.TB, err, want error, key string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for _, sentinel := range []error{engine.ErrUnavailable, engine.ErrRejected, engine.ErrModelMissing} {
		if errors.Is(err, sentinel) != errors.Is(want, sentinel) {
			t.Errorf("err = %v; errors.Is(err, %q) = %v", err, sentinel, !errors.Is(want, sentinel))
		}
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("error %q shows the key", err)
	}
}
