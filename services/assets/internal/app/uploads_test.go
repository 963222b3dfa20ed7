package app_test

import (
	"image/color"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestPresignedUploads(t *testing.T) {
	const ttl = 3 * time.Second
	h := newHarness(t, "HOOKLINE_UPLOAD_URL_TTL", ttl.String())
	org := newOrg()
	data := solidPNG(t, 40, 30, color.RGBA{200, 10, 10, 255})

	before := time.Now().UTC()
	p := h.presign(org, "../My Holiday Photo!!.PNG", "image/png", len(data))
	keyRE := regexp.MustCompile(`/orgs/` + org + `/uploads/[0-9a-f-]{36}-my-holiday-photo\.png$`)
	if !keyRE.MatchString(p.PublicURL) {
		t.Fatalf("public URL %s does not hold a sanitised key", p.PublicURL)
	}
	exp, err := time.Parse(time.RFC3339, p.ExpiresAt)
	if err != nil || !strings.HasSuffix(p.ExpiresAt, "Z") {
		t.Fatalf("expiresAt %q is not RFC 3339 UTC: %v", p.ExpiresAt, err)
	}
	if d := exp.Sub(before); d < ttl-2*time.Second || d > ttl+time.Second {
		t.Fatalf("expiresAt is %s after the request, want about %s", d, ttl)
	}

	t.Run("PUT with the signed type succeeds", func(t *testing.T) {
		if st, body := h.put(p.UploadURL, "image/png", data); st != 200 {
			t.Fatalf("PUT: %d %s", st, body)
		}
		st, got := h.fetch(p.PublicURL)
		if st != 200 || string(got) != string(data) {
			t.Fatalf("public read: %d, %d bytes", st, len(got))
		}
	})

	t.Run("PUT with another type is refused by storage", func(t *testing.T) {
		q := h.presign(org, "a.png", "image/png", 10)
		if st, _ := h.put(q.UploadURL, "image/jpeg", data); st != 403 {
			t.Fatalf("PUT with image/jpeg on a URL signed for image/png: %d, want 403", st)
		}
		if st, _ := h.put(q.UploadURL, "text/html", []byte("<script>")); st != 403 {
			t.Fatalf("PUT with text/html: %d, want 403", st)
		}
		if st, _ := h.fetch(q.PublicURL); st == 200 {
			t.Fatal("refused upload is readable")
		}
	})

	t.Run("PUT after expiry is refused by storage", func(t *testing.T) {
		q := h.presign(org, "late.jpg", "image/jpeg", 10)
		time.Sleep(ttl + 1500*time.Millisecond)
		if st, _ := h.put(q.UploadURL, "image/jpeg", data); st != 403 {
			t.Fatalf("PUT after expiry: %d, want 403", st)
		}
	})

	t.Run("validation", func(t *testing.T) {
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"fileName": "a.gif", "fileType": "image/gif", "fileSize": 10}, "fileType"},
			{map[string]any{"fileName": "a.webp", "fileType": "image/webp", "fileSize": 10}, "fileType"},
			{map[string]any{"fileName": "a.png", "fileType": "image/png", "fileSize": 0}, "fileSize"},
			{map[string]any{"fileName": "a.png", "fileType": "image/png", "fileSize": 5<<20 + 1}, "fileSize"},
			{map[string]any{"fileName": "", "fileType": "image/png", "fileSize": 10}, "fileName"},
			{map[string]any{"fileType": "image/png", "fileSize": 10}, "fileName"},
			{map[string]any{"fileName": "a.png", "fileType": "image/png", "fileSize": 1.5}, "fileSize"},
			{map[string]any{"fileName": "a.png", "fileType": "image/png", "fileSize": 10, "acl": "public"}, "acl"},
		} {
			r := h.must(400, "POST", "/uploads/presigned-url", org, c.body)
			if r.Code != "invalid_request" || r.field(c.field) == "" {
				t.Errorf("%v: want details.fields.%s, got %s", c.body, c.field, r.raw)
			}
		}
		h.must(400, "POST", "/uploads/presigned-url", org, "{not json")
		h.must(200, "POST", "/uploads/presigned-url", org, map[string]any{"fileName": "a.png", "fileType": "image/png", "fileSize": 5 << 20})
	})

	t.Run("face upload URLs", func(t *testing.T) {
		var out []presigned
		h.must(200, "POST", "/faces/upload-urls", org, map[string]any{"files": []map[string]any{
			{"fileName": "one.jpg", "fileType": "image/jpeg", "fileSize": 1000},
			{"fileName": "two.png", "fileType": "image/png", "fileSize": 2000},
		}}).into(t, &out)
		if len(out) != 2 || !strings.HasSuffix(out[0].PublicURL, "-one.jpg") || !strings.HasSuffix(out[1].PublicURL, "-two.png") || out[0].UploadURL == "" || out[1].ExpiresAt == "" {
			t.Fatalf("unexpected %+v", out)
		}
		if st, body := h.put(out[1].UploadURL, "image/png", data); st != 200 {
			t.Fatalf("PUT: %d %s", st, body)
		}
		r := h.must(400, "POST", "/faces/upload-urls", org, map[string]any{"files": []map[string]any{
			{"fileName": "one.jpg", "fileType": "image/jpeg", "fileSize": 1000},
			{"fileName": "two.gif", "fileType": "image/gif", "fileSize": 9 << 20},
		}})
		if r.field("files[1].fileType") == "" || r.field("files[1].fileSize") == "" {
			t.Fatalf("want both failures of files[1]: %s", r.raw)
		}
		h.must(400, "POST", "/faces/upload-urls", org, map[string]any{"files": []any{}})
		eleven := make([]map[string]any, 11)
		for i := range eleven {
			eleven[i] = map[string]any{"fileName": "x.png", "fileType": "image/png", "fileSize": 1}
		}
		if r := h.must(400, "POST", "/faces/upload-urls", org, map[string]any{"files": eleven}); r.field("files") == "" {
			t.Fatalf("11 files: %s", r.raw)
		}
	})
}

// TestFirstUseVerification uploads objects storage accepts but the API must
// not (6 MB, a text file named .png) and checks that every endpoint taking
// an image URL refuses them, naming the URL, and creates nothing.
func TestFirstUseVerification(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	// The presigned PUT does not bound the size; the first use does.
	big := append(solidPNG(t, 8, 8, color.White), make([]byte, 6<<20)...)
	bigURL := h.upload(org, "big.png", "image/png", big)
	textURL := h.upload(org, "notes.png", "image/png", []byte("this is a text file pretending to be a PNG\n"))
	missing := strings.Replace(textURL, "-notes.png", "-never.png", 1)

	for _, c := range []struct {
		path, field string
		body        func(u string) any
	}{
		{"/faces", "imageUrls[0]", func(u string) any { return map[string]any{"name": "x", "imageUrls": []string{u}} }},
		{"/styles", "referenceImageUrls[0]", func(u string) any { return map[string]any{"name": "x", "referenceImageUrls": []string{u}} }},
		{"/brands", "logoUrl", func(u string) any { return map[string]any{"name": "x", "colors": []string{"#fff"}, "logoUrl": u} }},
	} {
		for u, want := range map[string]string{bigURL: "larger than 5 MB", textURL: "not a JPEG or PNG", missing: "was not uploaded"} {
			r := h.must(400, "POST", c.path, org, c.body(u))
			if got := r.field(c.field); !strings.Contains(got, u) || !strings.Contains(got, want) {
				t.Errorf("POST %s with %s: fields.%s = %q, want the URL and %q", c.path, u, c.field, got, want)
			}
			if !strings.Contains(r.Error, u) {
				t.Errorf("message %q does not name the URL", r.Error)
			}
		}
		if r := h.must(200, "GET", c.path, org, nil); r.Page.Total != 0 {
			t.Errorf("GET %s: %d records after refused creates", c.path, r.Page.Total)
		}
	}
	for _, kind := range []string{"faces", "styles", "brands"} {
		if keys := h.objects("orgs/" + org + "/" + kind + "/"); len(keys) != 0 {
			t.Errorf("objects written for refused %s: %v", kind, keys)
		}
	}
	if evs := h.assetsEvents(); len(evs) != 0 {
		t.Errorf("events for refused creates: %d", len(evs))
	}
}
