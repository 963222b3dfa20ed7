package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"
)

func solidPNG(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// upload presigns a PNG through the gateway and PUTs it straight to
// storage, as a browser would.
func (s *stack) upload(key, name string, data []byte) string {
	s.t.Helper()
	return s.uploadAs(key, name, "image/png", data)
}

// uploadAs is upload for a file of the given media type.
func (s *stack) uploadAs(key, name, fileType string, data []byte) string {
	s.t.Helper()
	st, body := s.do("POST", "/api/v1/uploads/presigned-url", key, map[string]any{"fileName": name, "fileType": fileType, "fileSize": len(data)})
	if st != 200 {
		s.t.Fatalf("presign: %d %v", st, body)
	}
	d := body["data"].(map[string]any)
	req, _ := http.NewRequest(http.MethodPut, d["uploadUrl"].(string), bytes.NewReader(data))
	req.Header.Set("Content-Type", fileType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		s.t.Fatalf("PUT to storage: %d", resp.StatusCode)
	}
	return d["publicUrl"].(string)
}

func TestAssetsThroughTheGateway(t *testing.T) {
	s := startStack(t)
	_, keyA := s.newOrg("pro")
	_, keyB := s.newOrg("pro")

	red := s.upload(keyA, "Red Reference.png", solidPNG(t, color.RGBA{255, 0, 0, 255}))
	blue := s.upload(keyA, "blue.png", solidPNG(t, color.RGBA{0, 0, 255, 255}))
	st, body := s.do("POST", "/api/v1/styles", keyA, map[string]any{"name": "Primary", "referenceImageUrls": []string{red, blue}})
	if st != 201 {
		t.Fatalf("create style: %d %v", st, body)
	}
	style := body["data"].(map[string]any)
	var hexes []string
	for _, sw := range style["profile"].(map[string]any)["palette"].([]any) {
		hexes = append(hexes, sw.(map[string]any)["hex"].(string))
	}
	if got := strings.Join(hexes, ","); !strings.Contains(got, "#ff0000") || !strings.Contains(got, "#0000ff") {
		t.Fatalf("palette %s lacks red and blue", got)
	}
	id := style["id"].(string)

	if st, body := s.do("GET", "/api/v1/styles?limit=10", keyA, nil); st != 200 || len(body["data"].([]any)) != 1 || body["pagination"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("list: %d %v", st, body)
	}
	// Another organization sees nothing and cannot use A's uploads.
	if st, body := s.do("GET", "/api/v1/styles/"+id, keyB, nil); st != 404 || body["code"] != "not_found" {
		t.Fatalf("B reads A's style: %d %v", st, body)
	}
	if st, _ := s.do("DELETE", "/api/v1/styles/"+id, keyB, nil); st != 404 {
		t.Fatalf("B deletes A's style: %d", st)
	}
	if st, body := s.do("POST", "/api/v1/styles", keyB, map[string]any{"name": "x", "referenceImageUrls": []string{red}}); st != 400 {
		t.Fatalf("B uses A's upload: %d %v", st, body)
	}
	// Server-side fetches never reach internal addresses.
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/x.png", "http://127.0.0.1:5432/x.png", "http://10.0.0.1/x.png"} {
		st, body := s.do("POST", "/api/v1/styles", keyA, map[string]any{"name": "ssrf", "referenceImageUrls": []string{u}})
		if st != 400 || !strings.Contains(body["error"].(string)+stringify(body["details"]), u) {
			t.Fatalf("%s: %d %v", u, st, body)
		}
	}
	if st, body := s.do("GET", "/api/v1/styles/not-a-uuid", keyA, nil); st != 400 {
		t.Fatalf("malformed id: %d %v", st, body)
	}
	if st, _ := s.do("DELETE", "/api/v1/styles/"+id, keyA, nil); st != 204 {
		t.Fatalf("delete: %d", st)
	}
}

func stringify(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				b.WriteString(k + " ")
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			b.WriteString(v + " ")
		}
	}
	walk(v)
	return b.String()
}
