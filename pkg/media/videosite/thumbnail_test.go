package videosite_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/safefetch"
)

func jpegOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 90, A: 255}) //nolint:gosec // a gradient
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestThumbnail(t *testing.T) {
	files := map[string][]byte{
		"/vi/hqOnly00001/hqdefault.jpg":     jpegOf(t, 480, 360),
		"/vi/hqOnly00001/maxresdefault.jpg": jpegOf(t, 120, 90), // the grey placeholder's size
		"/vi/maxres00001/maxresdefault.jpg": jpegOf(t, 1280, 720),
		"/vi/garbage0001/maxresdefault.jpg": []byte("<html>oops</html>"),
	}
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(b)
	}))
	defer host.Close()
	c := videosite.New(videosite.Config{ImageBase: host.URL, Fetch: safefetch.Config{AllowHosts: []string{"127.0.0.1"}}})
	for id, want := range map[string]string{"maxres00001": "maxres 1280x720", "hqOnly00001": "high 480x360"} {
		th, err := c.Thumbnail(t.Context(), id)
		if err != nil || fmt.Sprintf("%s %dx%d", th.Quality, th.Width, th.Height) != want || !strings.HasSuffix(th.URL, ".jpg") || len(th.Data) == 0 {
			t.Errorf("%s: %+v %v, want %s", id, th.Quality, err, want)
		}
	}
	if _, err := c.Thumbnail(t.Context(), "missing0001"); !errors.Is(err, videosite.ErrNoThumbnail) {
		t.Errorf("all missing: %v", err)
	}
	if _, err := c.Thumbnail(t.Context(), "garbage0001"); !errors.Is(err, videosite.ErrUnavailable) {
		t.Errorf("garbage: %v", err)
	}
	if _, err := c.Thumbnail(t.Context(), "bad id!"); !errors.Is(err, videosite.ErrInvalidURL) {
		t.Errorf("malformed id: %v", err)
	}
	host.Close()
	if _, err := c.Thumbnail(t.Context(), "maxres00001"); !errors.Is(err, videosite.ErrUnavailable) {
		t.Errorf("host down: %v", err)
	}
}
