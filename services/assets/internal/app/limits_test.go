package app_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image/color"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// bombPNG is a side×side 16-bit RGBA PNG of one colour: a few hundred
// kilobytes that decode to side²×8 bytes. It is written row by row, so
// the test never holds the pixels itself.
func bombPNG(t testing.TB, side int) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		out.Write(n[:])
		out.WriteString(typ)
		out.Write(data)
		binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(append([]byte(typ), data...)))
		out.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(side))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(side))
	ihdr[8], ihdr[9] = 16, 6 // 16 bits per sample, RGBA
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, 1+side*8) // filter byte 0, then transparent black
	for range side {
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// heapPeak samples HeapInuse every few milliseconds until stop is called
// and returns the peak above the level measured at the start (after a GC).
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak - base
	}
}

// TestDecompressionBombs sends ten 16-bit 6324×6324 PNGs (each under
// 1 MB, each 320 MB decoded, each inside the 5 MB and 40 MP limits) in one
// POST /styles: the answer is a 400 naming every reference, decided from
// the headers, and the service's heap never grows by anything close to
// one decoded image.
func TestDecompressionBombs(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	bomb := bombPNG(t, 6324)
	if len(bomb) > 1<<20 {
		t.Fatalf("bomb is %d bytes; the test wants a tiny file", len(bomb))
	}
	urls := make([]string, 10)
	for i := range urls {
		urls[i] = h.upload(org, fmt.Sprintf("bomb%d.png", i), "image/png", bomb)
	}

	stop := heapPeak()
	r := h.Do("POST", "/styles", org, map[string]any{"name": "bombs", "referenceImageUrls": urls})
	grew := stop()
	t.Logf("POST /styles with ten bombs: %d, heap peak +%d MiB", r.Status, grew>>20)
	if r.Status != 400 {
		t.Fatalf("status %d, want 400: %.300s", r.Status, r.Raw)
	}
	for i := range urls {
		f := fmt.Sprintf("referenceImageUrls[%d]", i)
		if got := r.Field(f); !strings.Contains(got, urls[i]) || !strings.Contains(got, "memory") {
			t.Errorf("fields.%s = %q, want the URL and the memory reason", f, got)
		}
	}
	if grew > 64<<20 {
		t.Errorf("heap grew by %d MiB while refusing; the images were decoded", grew>>20)
	}
	if r := h.Must(200, "GET", "/styles", org, nil); r.Page.Total != 0 {
		t.Errorf("%d styles after a refused create", r.Page.Total)
	}
}

// TestTextFields sends NUL, control characters and invalid UTF-8 in every
// text field of every assets endpoint: each is a 400 naming the field
// (NUL used to reach Postgres and answer 500), and nothing is stored.
// Descriptions keep line breaks and tabs; names refuse them.
func TestTextFields(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	png := testkit.SolidPNG(t, 16, 16, color.RGBA{10, 120, 200, 255})
	var face, style, brand, coll struct {
		ID string `json:"id"`
	}
	h.Must(201, "POST", "/faces", org, map[string]any{"name": "Ann", "imageUrls": []string{h.upload(org, "ann.jpg", "image/jpeg", testkit.FacePhoto(t))}}).Into(t, &face)
	h.Must(201, "POST", "/styles", org, map[string]any{"name": "Blue", "referenceImageUrls": []string{h.upload(org, "s.png", "image/png", png)}}).Into(t, &style)
	h.Must(201, "POST", "/brands", org, map[string]any{"name": "Acme", "colors": []string{"#123456"}}).Into(t, &brand)
	h.Must(201, "POST", "/collections", org, map[string]any{"name": "Picks"}).Into(t, &coll)
	ref := h.upload(org, "ref.png", "image/png", png)

	// Each body has one %s where the bad value goes, inside a JSON string.
	cases := []struct{ method, path, body, field string }{
		{"POST", "/uploads/presigned-url", `{"fileName":"%s","fileType":"image/png","fileSize":10}`, "fileName"},
		{"POST", "/uploads/presigned-url", `{"fileName":"a.png","fileType":"image/png%s","fileSize":10}`, "fileType"},
		{"POST", "/faces/upload-urls", `{"files":[{"fileName":"a.png","fileType":"image/png","fileSize":1},{"fileName":"%s","fileType":"image/png","fileSize":1}]}`, "files[1].fileName"},
		{"POST", "/faces", `{"name":"%s","imageUrls":["` + ref + `"]}`, "name"},
		{"POST", "/faces", `{"name":"x","imageUrls":["` + ref + `%s"]}`, "imageUrls[0]"},
		{"PATCH", "/faces/" + face.ID, `{"name":"%s"}`, "name"},
		{"POST", "/styles", `{"name":"%s","referenceImageUrls":["` + ref + `"]}`, "name"},
		{"POST", "/styles", `{"name":"x","description":"%s","referenceImageUrls":["` + ref + `"]}`, "description"},
		{"POST", "/styles", `{"name":"x","referenceImageUrls":["` + ref + `%s"]}`, "referenceImageUrls[0]"},
		{"PATCH", "/styles/" + style.ID, `{"name":"%s"}`, "name"},
		{"PATCH", "/styles/" + style.ID, `{"description":"%s"}`, "description"},
		{"POST", "/brands", `{"name":"%s","colors":["#fff"]}`, "name"},
		{"POST", "/brands", `{"name":"x","colors":["#fff%s"]}`, "colors[0]"},
		{"POST", "/brands", `{"name":"x","colors":["#fff"],"fonts":["Inter","%s"]}`, "fonts[1]"},
		{"POST", "/brands", `{"name":"x","colors":["#fff"],"logoUrl":"` + ref + `%s"}`, "logoUrl"},
		{"POST", "/brands", `{"domain":"example.com%s"}`, "domain"},
		{"PATCH", "/brands/" + brand.ID, `{"name":"%s"}`, "name"},
		{"PATCH", "/brands/" + brand.ID, `{"fonts":["%s"]}`, "fonts[0]"},
		{"POST", "/collections", `{"name":"%s"}`, "name"},
		{"POST", "/collections", `{"name":"x","description":"%s"}`, "description"},
		{"PATCH", "/collections/" + coll.ID, `{"name":"%s"}`, "name"},
		{"PATCH", "/collections/" + coll.ID, `{"description":"%s"}`, "description"},
		{"POST", "/collections/" + coll.ID + "/thumbnails", `{"thumbnailId":"%s"}`, "thumbnailId"},
		{"POST", "/collections/" + coll.ID + "/thumbnails", `{"thumbnailIds":["%s"]}`, "thumbnailIds[0]"},
	}
	bad := map[string]string{
		"NUL":          `a\u0000b`,
		"escape":       `a\u001b[31mb`,
		"C1":           `a\u0085b`,
		"invalid UTF8": "a\xff\xfeb",
		"surrogate":    `a\udc00b`,
	}
	for _, c := range cases {
		for what, v := range bad {
			r := h.Do(c.method, c.path, org, fmt.Sprintf(c.body, v))
			if r.Status != 400 || r.Code != "invalid_request" || r.Field(c.field) == "" {
				t.Errorf("%s %s with %s in %s: %d %s", c.method, c.path, what, c.field, r.Status, r.Raw)
			}
		}
	}
	for _, c := range []struct{ method, path, body, field string }{
		{"POST", "/collections", `{"name":"two\nlines"}`, "name"},
		{"POST", "/brands", `{"name":"tab\there","colors":["#fff"]}`, "name"},
		{"POST", "/uploads/presigned-url", `{"fileName":"a\nb.png","fileType":"image/png","fileSize":10}`, "fileName"},
	} {
		if r := h.Do(c.method, c.path, org, c.body); r.Status != 400 || !strings.Contains(r.Field(c.field), "single line") {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, r.Status, r.Raw)
		}
	}
	var multi struct {
		Description string `json:"description"`
	}
	h.Must(200, "PATCH", "/collections/"+coll.ID, org, map[string]any{"description": "line one\n\tline two"}).Into(t, &multi)
	if multi.Description != "line one\n\tline two" {
		t.Errorf("multi-line description stored as %q", multi.Description)
	}
	for path, want := range map[string]int{"/faces": 1, "/styles": 1, "/brands": 1, "/collections": 1} {
		if r := h.Must(200, "GET", path, org, nil); r.Page.Total != want {
			t.Errorf("GET %s: %d records, want %d", path, r.Page.Total, want)
		}
	}
}
