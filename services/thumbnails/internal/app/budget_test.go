package app_test

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// stripPNG is a w×h PNG of one colour: a few hundred bytes, whatever its
// shape.
func stripPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDegenerateShapesAreRefusedBeforeAnyCharge: a 1×10000 and a 10000×1
// picture, wherever a request names a picture, are a 400 naming the field
// from the picture's header (no decoding, no drawing), and nothing is
// reserved. Enlarged to cover a 1280×720 frame, the 1×10000 strip was
// 16 gigapixels of work.
func TestDegenerateShapesAreRefusedBeforeAnyCharge(t *testing.T) {
	site := testkit.ServeSite(t, map[string]testkit.File{
		"/tall.png": {ContentType: "image/png", Body: stripPNG(t, 1, 10_000)},
		"/wide.png": {ContentType: "image/png", Body: stripPNG(t, 10_000, 1)},
		"/face.jpg": {ContentType: "image/jpeg", Body: testkit.FacePhoto(t)},
	})
	h := newHarness(t, "HOOKLINE_FETCH_ALLOW_HOSTS", site.Host)
	org := h.openAccount("pro")
	face := site.URL + "/face.jpg"
	for _, strip := range []string{site.URL + "/tall.png", site.URL + "/wide.png"} {
		for _, tc := range []struct {
			name, path string
			body       map[string]any
			field      string
		}{
			{"reference image", "/thumbnails", map[string]any{"prompt": "x", "referenceImageUrls": []string{face, strip}}, "referenceImageUrls[1]"},
			{"face image", "/thumbnails/edit/face-swap", map[string]any{"imageUrl": face, "faceImageUrl": strip}, "faceImageUrl"},
			{"edit source", "/thumbnails/edit/background-replace", map[string]any{"imageUrl": strip, "backgroundPrompt": "a sunset beach"}, "imageUrl"},
			{"instructed edit source", "/thumbnails/edit", map[string]any{"imageUrl": strip, "prompt": "mirror"}, "imageUrl"},
			{"critique", "/thumbnails/critique", map[string]any{"imageUrl": strip}, "imageUrl"},
			{"text overlay", "/thumbnails/analyze/text-overlay", map[string]any{"imageUrl": strip, "originalPrompt": "x"}, "imageUrl"},
		} {
			t.Run(tc.name+strings.TrimPrefix(strip, site.URL), func(t *testing.T) {
				start := time.Now()
				r := h.Must(400, "POST", tc.path, org, tc.body)
				took := time.Since(start)
				if r.Code != "invalid_request" || !strings.Contains(r.Field(tc.field), "aspect ratio") {
					t.Fatalf("%s: want details.fields[%q] about the aspect ratio", r.Raw, tc.field)
				}
				// The refusal reads a header; the machine running the tests
				// is shared, hence the margin over the 100 ms it takes.
				if took > 2*time.Second {
					t.Errorf("refused after %s", took)
				}
				t.Logf("refused in %s", took)
			})
		}
	}
	if n := h.reservations(org); n != 0 {
		t.Fatalf("%d reservations made for refused pictures", n)
	}
	if b := h.balance(org); b != proCredits {
		t.Fatalf("balance %d, want %d", b, proCredits)
	}
}

// TestPictureBeyondTheMemoryBudget: an edit whose picture would need more
// memory than the whole image budget is a 400 naming the picture, before
// anything is decoded or reserved; the same edit of a smaller picture
// runs.
func TestPictureBeyondTheMemoryBudget(t *testing.T) {
	small, _, _ := discPicture(t, 320, 180, 120) // a subject to cut out: a flat picture is a 400 (issue 33)
	site := testkit.ServeSite(t, map[string]testkit.File{
		"/large.png": {ContentType: "image/png", Body: stripPNG(t, 4000, 4000)},
		"/small.png": {ContentType: "image/png", Body: small},
	})
	h := newHarness(t, "HOOKLINE_FETCH_ALLOW_HOSTS", site.Host, "HOOKLINE_IMAGE_MEMORY_MIB", "160")
	org := h.openAccount("pro")
	body := func(u string) map[string]any {
		return map[string]any{"imageUrl": u, "backgroundPrompt": "a sunset beach"}
	}
	r := h.Must(400, "POST", "/thumbnails/edit/background-replace", org, body(site.URL+"/large.png"))
	if !strings.Contains(r.Field("imageUrl"), "would need") {
		t.Fatalf("%s: want details.fields.imageUrl about memory", r.Raw)
	}
	if n := h.reservations(org); n != 0 {
		t.Fatalf("%d reservations made for a refused picture", n)
	}
	h.Must(201, "POST", "/thumbnails/edit/background-replace", org, body(site.URL+"/small.png"))
}
