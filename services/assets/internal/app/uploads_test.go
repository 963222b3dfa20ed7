package app_test

import (
	"bytes"
	"image/color"
	"net"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
)

func TestPresignedUploads(t *testing.T) {
	const ttl = 3 * time.Second
	h := newHarness(t, "HOOKLINE_UPLOAD_URL_TTL", ttl.String())
	org := newOrg()
	data := testkit.SolidPNG(t, 40, 30, color.RGBA{200, 10, 10, 255})

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
		st, got := h.Fetch(p.PublicURL)
		if st != 200 || string(got) != string(data) {
			t.Fatalf("public read: %d, %d bytes", st, len(got))
		}
	})

	t.Run("PUT with another type is refused by storage", func(t *testing.T) {
		q := h.presign(org, "a.png", "image/png", len(data))
		if st, _ := h.put(q.UploadURL, "image/jpeg", data); st != 403 {
			t.Fatalf("PUT with image/jpeg on a URL signed for image/png: %d, want 403", st)
		}
		if st, _ := h.put(q.UploadURL, "text/html", []byte("<script>")); st != 403 {
			t.Fatalf("PUT with text/html: %d, want 403", st)
		}
		if st, _ := h.Fetch(q.PublicURL); st == 200 {
			t.Fatal("refused upload is readable")
		}
	})

	t.Run("PUT of another length is refused by storage", func(t *testing.T) {
		q := h.presign(org, "small.png", "image/png", 10)
		if st, _ := h.put(q.UploadURL, "image/png", append(bytes.Clone(data), make([]byte, 50<<20)...)); st != 403 {
			t.Fatalf("50 MB PUT on a URL for fileSize 10: %d, want 403", st)
		}
		if st, _ := h.put(q.UploadURL, "image/png", data[:9]); st != 403 {
			t.Fatalf("9-byte PUT on a URL for fileSize 10: %d, want 403", st)
		}
		if st, _ := h.Fetch(q.PublicURL); st == 200 {
			t.Fatal("refused upload is readable")
		}
	})

	t.Run("PUT after expiry is refused by storage", func(t *testing.T) {
		q := h.presign(org, "late.png", "image/png", len(data))
		time.Sleep(ttl + 1500*time.Millisecond)
		if st, _ := h.put(q.UploadURL, "image/png", data); st != 403 {
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
			r := h.Must(400, "POST", "/uploads/presigned-url", org, c.body)
			if r.Code != "invalid_request" || r.Field(c.field) == "" {
				t.Errorf("%v: want details.fields.%s, got %s", c.body, c.field, r.Raw)
			}
		}
		h.Must(400, "POST", "/uploads/presigned-url", org, "{not json")
		h.Must(200, "POST", "/uploads/presigned-url", org, map[string]any{"fileName": "a.png", "fileType": "image/png", "fileSize": 5 << 20})
	})

	t.Run("face upload URLs", func(t *testing.T) {
		var out []presigned
		h.Must(200, "POST", "/faces/upload-urls", org, map[string]any{"files": []map[string]any{
			{"fileName": "one.jpg", "fileType": "image/jpeg", "fileSize": 1000},
			{"fileName": "two.png", "fileType": "image/png", "fileSize": len(data)},
		}}).Into(t, &out)
		if len(out) != 2 || !strings.HasSuffix(out[0].PublicURL, "-one.jpg") || !strings.HasSuffix(out[1].PublicURL, "-two.png") || out[0].UploadURL == "" || out[1].ExpiresAt == "" {
			t.Fatalf("unexpected %+v", out)
		}
		if st, body := h.put(out[1].UploadURL, "image/png", data); st != 200 {
			t.Fatalf("PUT: %d %s", st, body)
		}
		r := h.Must(400, "POST", "/faces/upload-urls", org, map[string]any{"files": []map[string]any{
			{"fileName": "one.jpg", "fileType": "image/jpeg", "fileSize": 1000},
			{"fileName": "two.gif", "fileType": "image/gif", "fileSize": 9 << 20},
		}})
		if r.Field("files[1].fileType") == "" || r.Field("files[1].fileSize") == "" {
			t.Fatalf("want both failures of files[1]: %s", r.Raw)
		}
		h.Must(400, "POST", "/faces/upload-urls", org, map[string]any{"files": []any{}})
		eleven := make([]map[string]any, 11)
		for i := range eleven {
			eleven[i] = map[string]any{"fileName": "x.png", "fileType": "image/png", "fileSize": 1}
		}
		if r := h.Must(400, "POST", "/faces/upload-urls", org, map[string]any{"files": eleven}); r.Field("files") == "" {
			t.Fatalf("11 files: %s", r.Raw)
		}
	})
}

// TestUploadURLsUsePublicEndpoint: the service reaches storage as
// 127.0.0.1, clients as localhost (the same MinIO). Upload URLs are signed
// for the public host, a PUT there works, and the upload is then accepted
// as the caller's own image. (s3store's tests cover deriving the public
// endpoint from HOOKLINE_S3_PUBLIC_URL.)
func TestUploadURLsUsePublicEndpoint(t *testing.T) {
	endpoint := testkit.Bucket(t).Endpoint
	_, port, err := net.SplitHostPort(endpoint)
	if err != nil {
		t.Fatalf("%s=%q: %v", testkit.EnvS3Endpoint, endpoint, err)
	}
	h := newHarness(t, "HOOKLINE_S3_ENDPOINT", "127.0.0.1:"+port, "HOOKLINE_S3_PUBLIC_ENDPOINT", "http://localhost:"+port)
	org := newOrg()
	data := testkit.SolidPNG(t, 24, 24, color.RGBA{0, 90, 200, 255})
	p := h.presign(org, "blue.png", "image/png", len(data))
	if pu, err := url.Parse(p.UploadURL); err != nil || pu.Host != "localhost:"+port {
		t.Fatalf("upload URL %s is not on the public host localhost:%s", p.UploadURL, port)
	}
	if st, body := h.put(p.UploadURL, "image/png", data); st != 200 {
		t.Fatalf("PUT to the public host: %d %s", st, body)
	}
	h.Must(201, "POST", "/styles", org, map[string]any{"name": "Blue", "referenceImageUrls": []string{p.PublicURL}})
}

// TestFirstUseVerification puts objects under the uploads prefix that the
// API must not accept (6 MB, a text file named .png) and checks that every
// endpoint taking an image URL refuses them, naming the URL, creates
// nothing and deletes the refused object, which would otherwise stay
// publicly readable.
func TestFirstUseVerification(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	// Storage refuses a presigned PUT of another length (see
	// TestPresignedUploads), so the oversized object is written directly,
	// as storage without that check would have let a client do.
	big := append(testkit.SolidPNG(t, 8, 8, color.White), make([]byte, 6<<20)...)
	putBig := func() string {
		key := "orgs/" + org + "/uploads/" + newOrg() + "-big.png"
		return h.PutObject(key, "image/png", big)
	}
	putText := func() string {
		return h.upload(org, "notes.png", "image/png", []byte("this is a text file pretending to be a PNG\n"))
	}
	missing := h.presign(org, "never.png", "image/png", 10).PublicURL

	for _, c := range []struct {
		path, field string
		body        func(u string) any
	}{
		{"/faces", "imageUrls[0]", func(u string) any { return map[string]any{"name": "x", "imageUrls": []string{u}} }},
		{"/styles", "referenceImageUrls[0]", func(u string) any { return map[string]any{"name": "x", "referenceImageUrls": []string{u}} }},
		{"/brands", "logoUrl", func(u string) any { return map[string]any{"name": "x", "colors": []string{"#fff"}, "logoUrl": u} }},
	} {
		for _, tc := range []struct {
			url, want string
			deleted   bool
		}{
			{putBig(), "larger than 5 MB", true},
			{putText(), "not a JPEG or PNG", true},
			{missing, "was not uploaded", false},
		} {
			if tc.deleted {
				if st, _ := h.Fetch(tc.url); st != 200 {
					t.Fatalf("%s not readable before use: %d", tc.url, st)
				}
			}
			r := h.Must(400, "POST", c.path, org, c.body(tc.url))
			if got := r.Field(c.field); !strings.Contains(got, tc.url) || !strings.Contains(got, tc.want) {
				t.Errorf("POST %s with %s: fields.%s = %q, want the URL and %q", c.path, tc.url, c.field, got, tc.want)
			}
			if !strings.Contains(r.Error, tc.url) {
				t.Errorf("message %q does not name the URL", r.Error)
			}
			if st, _ := h.Fetch(tc.url); tc.deleted && st == 200 {
				t.Errorf("POST %s: refused upload %s is still public", c.path, tc.url)
			}
		}
		if r := h.Must(200, "GET", c.path, org, nil); r.Page.Total != 0 {
			t.Errorf("GET %s: %d records after refused creates", c.path, r.Page.Total)
		}
	}
	if keys := h.Objects("orgs/" + org + "/"); len(keys) != 0 {
		t.Errorf("objects left after refused creates: %v", keys)
	}
	if evs := h.StreamEvents(events.StreamAssets); len(evs) != 0 {
		t.Errorf("events for refused creates: %d", len(evs))
	}
}
