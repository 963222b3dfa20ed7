package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hookline.dev/pkg/testkit"
)

func jpegSized(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x), G: 80, B: uint8(y), A: 255}) //nolint:gosec // a gradient
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// extract-videosite through the gateway against a fake image host: the
// best quality there is (maxres missing → high), none → 404, a
// non-video address → 400, the host down → 503; free.
func TestExtractVideoSiteThroughTheGateway(t *testing.T) {
	s := startStack(t)
	files := map[string][]byte{
		"/vi/bestQuality/maxresdefault.jpg": jpegSized(t, 1280, 720),
		"/vi/onlyHighQua/maxresdefault.jpg": jpegSized(t, 120, 90), // the grey placeholder
		"/vi/onlyHighQua/hqdefault.jpg":     jpegSized(t, 480, 360),
	}
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := files[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(host.Close)
	s.restartThumbnails("HOOKLINE_VIDEOSITE_IMAGE_BASE="+host.URL, "HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	for url, want := range map[string]map[string]any{
		"https://www.youtube.com/watch?v=bestQuality&t=42s": {"quality": "maxres", "width": float64(1280), "videoId": "bestQuality"},
		"https://youtu.be/onlyHighQua":                      {"quality": "high", "width": float64(480), "videoId": "onlyHighQua"},
		"https://www.youtube.com/shorts/onlyHighQua":        {"quality": "high", "height": float64(360)},
	} {
		d := s.must(200, "POST", "/api/v1/thumbnails/extract-videosite", key, map[string]any{"videoSiteUrl": url})
		for k, v := range want {
			if d[k] != v {
				t.Errorf("%s: %s = %v, want %v (%v)", url, k, d[k], v, d)
			}
		}
		resp, err := http.Get(d["imageUrl"].(string)) //nolint:gosec,noctx // our own MinIO
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stored copy %v: %v", d["imageUrl"], err)
		}
		_ = resp.Body.Close()
	}
	if st, b := s.do("POST", "/api/v1/thumbnails/extract-videosite", key, map[string]any{"videoSiteUrl": "https://youtu.be/missingThum"}); st != 404 || b["code"] != "not_found" {
		t.Errorf("no thumbnail: %d %v", st, b)
	}
	for _, body := range []map[string]any{{"videoSiteUrl": "https://example.com/video.mp4"}, {"videoSiteUrl": "not a url"}, {}} {
		if st, b := s.do("POST", "/api/v1/thumbnails/extract-videosite", key, body); st != 400 || fieldOf(b, "videoSiteUrl") == nil {
			t.Errorf("%v: %d %v", body, st, b)
		}
	}
	host.Close()
	if st, b := s.do("POST", "/api/v1/thumbnails/extract-videosite", key, map[string]any{"videoSiteUrl": "https://youtu.be/bestQuality"}); st != 503 {
		t.Errorf("host down: %d %v", st, b)
	}
	if total := s.total(key); total != 500 {
		t.Errorf("extract-videosite charged: %v", total)
	}
}

// Text overlay suggestions through the gateway, for a picture served from
// a local host: placements away from the face, texts from the prompt,
// free; bad input is 400.
func TestTextOverlayThroughTheGateway(t *testing.T) {
	s := startStack(t)
	photo := testkit.FacePhoto(t)
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/face.jpg":
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(photo)
		case "/anim.gif":
			w.Header().Set("Content-Type", "image/gif")
			_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(host.Close)
	s.restartThumbnails("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)
	d := s.must(200, "POST", "/api/v1/thumbnails/analyze/text-overlay", key, map[string]any{
		"imageUrl": host.URL + "/face.jpg", "originalPrompt": `a man shocked by his power bill, headline "BILL SHOCK"`, "faceName": "Dan"})
	ss := d["suggestions"].([]any)
	if len(ss) < 3 || len(ss) > 5 {
		t.Fatalf("suggestions %v", d)
	}
	texts := ""
	for _, it := range ss {
		texts += it.(map[string]any)["text"].(string) + "|"
	}
	if !strings.Contains(texts, "BILL SHOCK") || !strings.Contains(texts, "DAN") {
		t.Errorf("texts %s", texts)
	}
	for body, field := range map[string]map[string]any{
		"originalPrompt": {"imageUrl": host.URL + "/face.jpg"},
		"imageUrl":       {"imageUrl": host.URL + "/anim.gif", "originalPrompt": "x"},
		"imageUrl ":      {"imageUrl": "http://10.0.0.1/a.jpg", "originalPrompt": "x"},
	} {
		if st, b := s.do("POST", "/api/v1/thumbnails/analyze/text-overlay", key, field); st != 400 || fieldOf(b, strings.TrimSpace(body)) == nil {
			t.Errorf("%v: %d %v", field, st, b)
		}
	}
	if total := s.total(key); total != 500 {
		t.Errorf("text overlay charged: %v", total)
	}
}
