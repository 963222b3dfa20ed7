package e2e

import (
	"bytes"
	"image"
	_ "image/jpeg" // decode edit results
	_ "image/png"  // decode edit results
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// getImage downloads an edit's picture and decodes it.
func getImage(t *testing.T, url string) (image.Image, string) {
	t.Helper()
	resp, err := http.Get(url) //nolint:gosec,noctx // our own MinIO
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	img, _, err := image.Decode(&b)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return img, resp.Header.Get("Content-Type")
}

// chroma is the mean |R−G| + |G−B| of img: 0 for a grey picture.
func chroma(img image.Image) float64 {
	b := img.Bounds()
	var sum float64
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bb, _ := img.At(x, y).RGBA()
			sum += math.Abs(float64(r>>8)-float64(g>>8)) + math.Abs(float64(g>>8)-float64(bb>>8))
		}
	}
	return sum / float64((b.Dx()/3+1)*(b.Dy()/3+1))
}

// The eight edits and the critique through the gateway: each answers the
// edit result with a picture of the measured kind, free ones cost 0 and
// paid ones 1; every refusal (a prompt outside the grammar, the either/or
// rule, faceless pictures, a GIF, a file over 5 MB, a private address, an
// unknown field, a result over 40 MP, another organization's face) is a
// 400 or 404 that costs nothing; free edits work at 0 credits.
func TestEditsThroughTheGateway(t *testing.T) {
	s := startStack(t)
	photo := testkit.FacePhoto(t)
	files := map[string][]byte{
		"/face.jpg":  photo,
		"/plain.jpg": jpegSized(t, 640, 360),
		"/wide.jpg":  jpegSized(t, 2000, 1300),
		"/anim.gif":  []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"),
		"/huge.jpg":  append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte{0}, 6<<20)...),
	}
	// A JPEG whose headers parse but whose scan data is garbage: libvips
	// reads these edits' pixels, and must refuse it like Go's decoder.
	bad := jpegSized(t, 640, 360)
	sos := bytes.LastIndex(bad, []byte{0xFF, 0xDA})
	files["/corrupt.jpg"] = append(bad[:sos+20:sos+20], bytes.Repeat([]byte{0xFF}, len(bad)-sos-20)...)
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", map[bool]string{true: "image/gif", false: "image/jpeg"}[strings.HasSuffix(r.URL.Path, ".gif")])
		_, _ = w.Write(b)
	}))
	t.Cleanup(host.Close)
	s.restartThumbnails("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)
	own := s.uploadAs(key, "face.jpg", "image/jpeg", photo)
	srcImg, _, err := image.Decode(bytes.NewReader(photo))
	if err != nil {
		t.Fatal(err)
	}
	pw, ph := srcImg.Bounds().Dx(), srcImg.Bounds().Dy()
	gen := s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "a parent for edits"})
	s.waitTotal(key, 499)

	type call struct {
		path   string
		body   map[string]any
		cost   float64
		prompt string
		check  func(t *testing.T, d map[string]any, img image.Image, ct string)
	}
	size := func(w, h int) func(*testing.T, map[string]any, image.Image, string) {
		return func(t *testing.T, _ map[string]any, img image.Image, _ string) {
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Errorf("size %v, want %dx%d", b, w, h)
			}
		}
	}
	calls := []call{
		{"color-enhance", map[string]any{"imageUrl": gen["imageUrl"], "preset": "vibrant", "intensity": "strong"}, 0, "color-enhance: vibrant, strong",
			func(t *testing.T, d map[string]any, img image.Image, ct string) {
				size(1280, 720)(t, d, img, ct)
				if d["parentId"] != gen["id"] {
					t.Errorf("parentId %v, want the generated thumbnail %v", d["parentId"], gen["id"])
				}
			}},
		{"upscale", map[string]any{"imageUrl": own, "scale": "2x"}, 0, "upscale: 2x", size(2*pw, 2*ph)},
		{"filter", map[string]any{"imageUrl": host.URL + "/face.jpg", "filterPrompt": "black and white"}, 0, "black and white",
			func(t *testing.T, d map[string]any, img image.Image, ct string) {
				size(pw, ph)(t, d, img, ct)
				if c := chroma(img); c > 3 {
					t.Errorf("grayscale chroma %.1f", c)
				}
			}},
		{"background-remove", map[string]any{"imageUrl": own}, 0, "",
			func(t *testing.T, d map[string]any, img image.Image, ct string) {
				size(pw, ph)(t, d, img, ct)
				if _, _, _, a := img.At(1, 1).RGBA(); ct != "image/png" || a != 0 {
					t.Errorf("content type %s, corner alpha %d: want a transparent PNG", ct, a)
				}
			}},
		{"", map[string]any{"imageUrl": own, "prompt": `brighter and add text "HELLO" top`, "aspectRatio": "16:9"}, 1, `brighter and add text "HELLO" top`,
			func(t *testing.T, _ map[string]any, img image.Image, _ string) {
				if b := img.Bounds(); math.Abs(float64(b.Dx())/float64(b.Dy())-16.0/9) > 0.01 {
					t.Errorf("16:9 crop is %v", b)
				}
			}},
		{"face-swap", map[string]any{"imageUrl": own, "faceImageUrl": host.URL + "/face.jpg"}, 1, "", size(pw, ph)},
		{"background-replace", map[string]any{"imageUrl": own, "backgroundPrompt": "sunset beach"}, 1, "sunset beach", size(pw, ph)},
		{"combine", map[string]any{"imageUrl1": own, "imageUrl2": gen["imageUrl"], "prompt": "before and after"}, 1, "before and after", size(1280, 720)},
	}
	var editID string
	for _, c := range calls {
		path := "/api/v1/thumbnails/edit"
		if c.path != "" {
			path += "/" + c.path
		}
		d := s.must(201, "POST", path, key, c.body)
		if d["creditsCost"] != c.cost || d["kind"] != "edit" || d["id"] == nil || c.prompt != "" && d["prompt"] != c.prompt || d["prompt"] == "" {
			t.Errorf("%s: %v", path, d)
		}
		if op := map[string]string{"": "edit"}[c.path]; op == "" && d["operation"] != c.path || op != "" && d["operation"] != op {
			t.Errorf("%s: operation %v", path, d["operation"])
		}
		img, ct := getImage(t, d["imageUrl"].(string))
		c.check(t, d, img, ct)
		editID = d["id"].(string)
	}
	got := s.must(200, "GET", "/api/v1/thumbnails/"+editID, key, nil)
	if got["operation"] != "combine" || got["params"].(map[string]any)["prompt"] != "before and after" {
		t.Errorf("stored edit %v", got)
	}
	cr := s.must(200, "POST", "/api/v1/thumbnails/critique", key, map[string]any{"imageUrl": own, "niche": "gaming"})
	scores, _ := cr["scores"].(map[string]any)
	if len(scores) != 7 || cr["creditsCost"] != float64(1) || len(cr["attentionAreas"].([]any)) == 0 || cr["summary"] == "" {
		t.Errorf("critique %v", cr)
	}
	s.waitTotal(key, 494) // 4 paid edits and the critique

	// A repeated request (same Idempotency-Key) is answered once and paid once.
	h := map[string]string{"Content-Type": "application/json", "Idempotency-Key": "swap-once"}
	body := []byte(`{"imageUrl":"` + own + `","faceImageUrl":"` + host.URL + `/face.jpg"}`)
	r1, a := s.send("POST", "/api/v1/thumbnails/edit/face-swap", key, h, body)
	r2, b := s.send("POST", "/api/v1/thumbnails/edit/face-swap", key, h, body)
	if r1.StatusCode != 201 || r2.StatusCode != 201 || !bytes.Equal(a, b) {
		t.Fatalf("replay: %d %d", r1.StatusCode, r2.StatusCode)
	}
	s.waitTotal(key, 493)

	// Refusals: every one a 400 (or 404) naming what is wrong, none charged.
	refusals := []struct {
		path, code, field string
		body              map[string]any
	}{
		{"filter", "unsupported_prompt", "", map[string]any{"imageUrl": own, "filterPrompt": "make it look like an oil painting"}},
		{"", "unsupported_prompt", "", map[string]any{"imageUrl": own, "prompt": "turn him into a cat"}},
		{"combine", "unsupported_prompt", "", map[string]any{"imageUrl1": own, "imageUrl2": own, "prompt": "a collage of nine"}},
		{"background-replace", "unsupported_prompt", "", map[string]any{"imageUrl": own, "backgroundPrompt": "qwerty zxcv"}},
		{"face-swap", "invalid_request", "faceId", map[string]any{"imageUrl": own, "faceImageUrl": own, "faceId": "6f1c1d9e-0000-4000-8000-000000000000"}},
		{"face-swap", "invalid_request", "faceImageUrl", map[string]any{"imageUrl": own}},
		{"face-swap", "invalid_request", "imageUrl", map[string]any{"imageUrl": host.URL + "/plain.jpg", "faceImageUrl": own}},
		{"face-swap", "invalid_request", "faceImageUrl", map[string]any{"imageUrl": own, "faceImageUrl": host.URL + "/plain.jpg"}},
		{"upscale", "invalid_request", "scale", map[string]any{"imageUrl": host.URL + "/wide.jpg", "scale": "4x"}},
		{"upscale", "invalid_request", "scale", map[string]any{"imageUrl": own, "scale": "3x"}},
		{"upscale", "invalid_request", "imageUrl", map[string]any{"imageUrl": host.URL + "/huge.jpg", "scale": "2x"}},
		{"color-enhance", "invalid_request", "imageUrl", map[string]any{"imageUrl": host.URL + "/anim.gif", "preset": "warm"}},
		{"color-enhance", "invalid_request", "imageUrl", map[string]any{"imageUrl": host.URL + "/corrupt.jpg", "preset": "warm"}},
		{"upscale", "invalid_request", "imageUrl", map[string]any{"imageUrl": host.URL + "/corrupt.jpg", "scale": "2x"}},
		{"color-enhance", "invalid_request", "preset", map[string]any{"imageUrl": own, "preset": "sparkly"}},
		{"background-remove", "invalid_request", "imageUrl", map[string]any{"imageUrl": "http://10.0.0.1/a.jpg"}},
		{"background-remove", "invalid_request", "", map[string]any{"imageUrl": own, "format": "png"}},
		{"combine", "invalid_request", "imageUrl2", map[string]any{"imageUrl1": own, "prompt": "side by side"}},
		{"", "invalid_request", "aspectRatio", map[string]any{"imageUrl": own, "prompt": "mirror", "aspectRatio": "4:3"}},
	}
	for _, c := range refusals {
		path := "/api/v1/thumbnails/edit"
		if c.path != "" {
			path += "/" + c.path
		}
		st, b := s.do("POST", path, key, c.body)
		if st != 400 || b["code"] != c.code || c.field != "" && fieldOf(b, c.field) == nil {
			t.Errorf("%s %v: %d %v, want 400 %s naming %q", path, c.body, st, b, c.code, c.field)
		}
	}
	if st, b := s.do("POST", "/api/v1/thumbnails/critique", key, map[string]any{"imageUrl": own, "niche": strings.Repeat("n", 101)}); st != 400 || fieldOf(b, "niche") == nil {
		t.Errorf("long niche: %d %v", st, b)
	}

	// Another organization's face is not found, though it exists there.
	_, other := s.newOrg("pro")
	s.waitTotal(other, 500)
	theirs := s.uploadAs(other, "them.jpg", "image/jpeg", photo)
	face := s.must(201, "POST", "/api/v1/faces", other, map[string]any{"name": "Them", "imageUrls": []string{theirs}})
	testkit.Eventually(t, 20*time.Second, "the face reaches the read model", func() bool {
		st, _ := s.do("POST", "/api/v1/thumbnails/edit/face-swap", other, map[string]any{"imageUrl": theirs, "faceId": face["id"]})
		return st == 201
	})
	if st, b := s.do("POST", "/api/v1/thumbnails/edit/face-swap", key, map[string]any{"imageUrl": own, "faceId": face["id"]}); st != 404 || b["code"] != "not_found" {
		t.Errorf("another organization's face: %d %v", st, b)
	}
	s.waitTotal(key, 493)

	// At 0 credits free edits work, paid ones are 402 and bad ones 400.
	_, broke := s.newOrg("payg")
	mine := s.uploadAs(broke, "face.jpg", "image/jpeg", photo)
	s.must(201, "POST", "/api/v1/thumbnails/edit/filter", broke, map[string]any{"imageUrl": mine, "filterPrompt": "sepia"})
	if st, b := s.do("POST", "/api/v1/thumbnails/edit/combine", broke, map[string]any{"imageUrl1": mine, "imageUrl2": mine, "prompt": "side by side"}); st != 402 || b["code"] != "insufficient_credits" {
		t.Errorf("paid edit at 0 credits: %d %v", st, b)
	}
	if st, b := s.do("POST", "/api/v1/thumbnails/edit/combine", broke, map[string]any{"imageUrl1": mine, "imageUrl2": mine, "prompt": "a collage"}); st != 400 || b["code"] != "unsupported_prompt" {
		t.Errorf("bad paid edit at 0 credits: %d %v", st, b)
	}
	if st, b := s.do("POST", "/api/v1/thumbnails/critique", broke, map[string]any{"imageUrl": mine}); st != 402 {
		t.Errorf("critique at 0 credits: %d %v", st, b)
	}
}
