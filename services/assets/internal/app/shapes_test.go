package app_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"
)

// TestDegenerateShapesAreRefused: a 1×10000 and a 10000×1 upload as a
// face's picture, a style's reference or a brand's logo are a 400 naming
// the field from the picture's header, and nothing is stored.
func TestDegenerateShapesAreRefused(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	shapes := map[string]image.Rectangle{"tall": image.Rect(0, 0, 1, 10_000), "wide": image.Rect(0, 0, 10_000, 1)}
	for name, r := range shapes {
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(r)); err != nil {
			t.Fatal(err)
		}
		// A refused upload is deleted, so each request names its own.
		upload := func(use string) string {
			return h.upload(org, fmt.Sprintf("%s-%s.png", name, use), "image/png", buf.Bytes())
		}
		for _, tc := range []struct {
			path  string
			body  map[string]any
			field string
		}{
			{"/faces", map[string]any{"name": "Ann", "imageUrls": []string{upload("face")}}, "imageUrls[0]"},
			{"/styles", map[string]any{"name": "Strip", "referenceImageUrls": []string{upload("style")}}, "referenceImageUrls[0]"},
			{"/brands", map[string]any{"name": "Strip", "colors": []string{"#123"}, "logoUrl": upload("logo")}, "logoUrl"},
		} {
			start := time.Now()
			resp := h.Must(400, "POST", tc.path, org, tc.body)
			if !strings.Contains(resp.Field(tc.field), "aspect ratio") {
				t.Errorf("%s %s: %s, want details.fields[%q] about the aspect ratio", name, tc.path, resp.Raw, tc.field)
			}
			t.Logf("%s %s refused in %s", name, tc.path, time.Since(start))
		}
	}
	for _, path := range []string{"/faces", "/styles", "/brands"} {
		if r := h.Must(200, "GET", path, org, nil); r.Page.Total != 0 {
			t.Errorf("%d records under %s after refused creates", r.Page.Total, path)
		}
	}
}
