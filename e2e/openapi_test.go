package e2e

import (
	"bytes"
	"image/color"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// send is do for requests that need their own headers or a body that is
// not a JSON value; the response passes the OpenAPI contract too.
func (s *stack) send(method, path, bearer string, header map[string]string, body []byte) (*http.Response, []byte) {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if body == nil {
		req, _ = http.NewRequest(method, s.base+path, nil)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// must is do that requires a status and returns data.
func (s *stack) must(status int, method, path, bearer string, body any) map[string]any {
	s.t.Helper()
	st, b := s.do(method, path, bearer, body)
	if st != status {
		s.t.Fatalf("%s %s: %d %v, want %d", method, path, st, b, status)
	}
	d, _ := b["data"].(map[string]any)
	return d
}

// TestOpenAPIContract drives every built endpoint through the gateway, in
// success and in its usual failures, so that the contract transport holds
// each of their responses to the OpenAPI document; it also checks the
// document's own endpoints.
func TestOpenAPIContract(t *testing.T) {
	s := startStack(t)
	orgID, key := s.newOrg("pro")
	none := map[string]string(nil)

	t.Run("meta", func(t *testing.T) {
		resp, doc := s.send("GET", "/api/v1/openapi.json", "", none, nil)
		if resp.StatusCode != 200 || resp.Header.Get("ETag") == "" || !bytes.Contains(doc, []byte(`"openapi":"3.1.0"`)) {
			t.Fatalf("openapi.json without authentication: %d %v", resp.StatusCode, resp.Header)
		}
		if again, _ := s.send("GET", "/api/v1/openapi.json", "", map[string]string{"If-None-Match": resp.Header.Get("ETag")}, nil); again.StatusCode != 304 {
			t.Fatalf("revalidation: %d", again.StatusCode)
		}
		resp, page := s.send("GET", "/docs", "", none, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(page, []byte("/api/v1/clips/renders/{renderId}")) {
			t.Fatalf("docs: %d %v", resp.StatusCode, resp.Header)
		}
		s.must(200, "GET", "/healthz", "", nil)
		s.must(200, "GET", "/readyz", "", nil)
	})

	t.Run("admin", func(t *testing.T) {
		expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		k := s.must(201, "POST", "/admin/v1/organizations/"+orgID+"/keys", adminToken, map[string]any{"name": "expiring", "expiresAt": expires})
		if k["expiresAt"] == nil || !strings.HasPrefix(k["key"].(string), "hk_live_") {
			t.Fatalf("key %v", k)
		}
		if d := s.must(200, "GET", "/api/v1/auth/verify", k["key"].(string), nil); d["organization"].(map[string]any)["id"] != orgID {
			t.Fatalf("verify %v", d)
		}
		s.must(204, "DELETE", "/admin/v1/keys/"+k["id"].(string), adminToken, nil)
		s.must(204, "DELETE", "/admin/v1/keys/"+k["id"].(string), adminToken, nil)
		s.must(401, "GET", "/api/v1/auth/verify", k["key"].(string), nil)
		s.must(404, "DELETE", "/admin/v1/keys/00000000-0000-4000-8000-000000000000", adminToken, nil)
		s.must(400, "DELETE", "/admin/v1/keys/not-a-uuid", adminToken, nil)
		s.must(401, "DELETE", "/admin/v1/keys/"+k["id"].(string), "", nil)
		s.must(400, "POST", "/admin/v1/organizations", adminToken, map[string]any{"name": "x", "tier": "platinum"})
		s.must(400, "POST", "/admin/v1/organizations/"+orgID+"/keys", adminToken, map[string]any{"name": "x", "expiresAt": "tomorrow"})
		s.must(404, "POST", "/admin/v1/organizations/00000000-0000-4000-8000-000000000000/credits", adminToken, map[string]any{"credits": 1, "kind": "purchased", "reason": "x"})
		s.must(400, "POST", "/admin/v1/organizations/"+orgID+"/credits", adminToken, map[string]any{"credits": 0, "kind": "purchased", "reason": "x"})
		s.must(202, "POST", "/admin/v1/organizations/"+orgID+"/credits", adminToken, map[string]any{"credits": 7, "kind": "subscription", "reason": "contract"})
		s.must(404, "GET", "/admin/v1/nothing", adminToken, nil)
	})

	t.Run("routing and bad input", func(t *testing.T) {
		s.must(404, "GET", "/api/v1/nothing", key, nil)
		s.must(405, "PUT", "/api/v1/faces", key, map[string]any{})
		s.must(401, "GET", "/api/v1/faces", "", nil)
		s.must(400, "GET", "/api/v1/faces?page=0", key, nil)
		if resp, _ := s.send("POST", "/api/v1/collections", key, map[string]string{"Content-Type": "application/json"}, []byte(`{"name":`)); resp.StatusCode != 400 {
			t.Fatalf("malformed JSON: %d", resp.StatusCode)
		}
		s.must(400, "POST", "/api/v1/collections", key, map[string]any{"name": "x", "colour": "red"})
		s.must(400, "POST", "/api/v1/thumbnails/analyze", key, map[string]any{"transcript": strings.Repeat("words ", 8)})
		s.must(400, "POST", "/api/v1/thumbnails/critique", key, map[string]any{"imageUrl": "http://10.0.0.1/a.jpg"})
		s.must(503, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": "https://video.example/watch?v=1"})
	})

	t.Run("idempotency", func(t *testing.T) {
		h := map[string]string{"Content-Type": "application/json", "Idempotency-Key": "tour-1"}
		first, a := s.send("POST", "/api/v1/collections", key, h, []byte(`{"name":"Once"}`))
		second, b := s.send("POST", "/api/v1/collections", key, h, []byte(`{"name":"Once"}`))
		if first.StatusCode != 201 || second.StatusCode != 201 || !bytes.Equal(a, b) || second.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %d %q", first.StatusCode, second.StatusCode, second.Header.Get("Idempotent-Replayed"))
		}
		if other, _ := s.send("POST", "/api/v1/collections", key, h, []byte(`{"name":"Twice"}`)); other.StatusCode != 409 {
			t.Fatalf("same key, other body: %d", other.StatusCode)
		}
	})

	t.Run("uploads and faces", func(t *testing.T) {
		urls := s.must(200, "POST", "/api/v1/faces/upload-urls", key, map[string]any{"files": []map[string]any{
			{"fileName": "a.jpg", "fileType": "image/jpeg", "fileSize": 1000}, {"fileName": "b.png", "fileType": "image/png", "fileSize": 2000},
		}})
		_ = urls
		s.must(400, "POST", "/api/v1/faces/upload-urls", key, map[string]any{"files": []any{}})
		s.must(400, "POST", "/api/v1/uploads/presigned-url", key, map[string]any{"fileName": "x.gif", "fileType": "image/gif", "fileSize": 10})

		photo := s.uploadAs(key, "me.jpg", "image/jpeg", testkit.FacePhoto(t))
		wall := s.upload(key, "wall.png", solidPNG(t, color.RGBA{200, 200, 200, 255}))
		f := s.must(201, "POST", "/api/v1/faces", key, map[string]any{"name": "Ann", "imageUrls": []string{photo}})
		id := f["id"].(string)
		s.must(400, "POST", "/api/v1/faces", key, map[string]any{"name": "Nobody", "imageUrls": []string{wall}})
		s.must(200, "GET", "/api/v1/faces?page=1&limit=5", key, nil)
		s.must(200, "GET", "/api/v1/faces/"+id, key, nil)
		s.must(200, "PATCH", "/api/v1/faces/"+id, key, map[string]any{"name": "Ann B."})
		s.must(400, "PATCH", "/api/v1/faces/"+id, key, map[string]any{})
		s.must(204, "DELETE", "/api/v1/faces/"+id, key, nil)
		s.must(404, "GET", "/api/v1/faces/"+id, key, nil)
	})

	t.Run("styles", func(t *testing.T) {
		ref := s.upload(key, "ref.png", solidPNG(t, color.RGBA{10, 120, 200, 255}))
		st := s.must(201, "POST", "/api/v1/styles", key, map[string]any{"name": "Blue", "description": "cool", "referenceImageUrls": []string{ref}})
		id := st["id"].(string)
		s.must(200, "PATCH", "/api/v1/styles/"+id, key, map[string]any{"description": ""})
		s.must(200, "GET", "/api/v1/styles/"+id, key, nil)
		s.must(404, "PATCH", "/api/v1/styles/00000000-0000-4000-8000-000000000000", key, map[string]any{"name": "x"})
		s.must(204, "DELETE", "/api/v1/styles/"+id, key, nil)
	})

	t.Run("brands", func(t *testing.T) {
		logo := s.upload(key, "logo.png", solidPNG(t, color.RGBA{255, 102, 0, 255}))
		b := s.must(201, "POST", "/api/v1/brands", key, map[string]any{"name": "Acme", "colors": []string{"#F60", "#000"}, "logoUrl": logo, "fonts": []string{"Inter"}})
		id := b["id"].(string)
		s.must(400, "POST", "/api/v1/brands", key, map[string]any{"name": "x", "colors": []string{"#fff"}, "domain": "example.com"})
		s.must(200, "GET", "/api/v1/brands", key, nil)
		s.must(200, "GET", "/api/v1/brands/"+id, key, nil)
		if p := s.must(200, "PATCH", "/api/v1/brands/"+id, key, map[string]any{"colors": []string{"#00FF00"}, "logoUrl": ""}); p["logoUrl"] != nil {
			t.Fatalf("logo not removed: %v", p)
		}
		s.must(204, "DELETE", "/api/v1/brands/"+id, key, nil)
	})

	t.Run("collections", func(t *testing.T) {
		c := s.must(201, "POST", "/api/v1/collections", key, map[string]any{"name": "Drafts"})
		id := c["id"].(string)
		s.must(200, "GET", "/api/v1/collections?limit=100", key, nil)
		s.must(200, "PATCH", "/api/v1/collections/"+id, key, map[string]any{"description": "work in progress"})
		unknown := "00000000-0000-4000-8000-000000000001"
		st, body := s.do("POST", "/api/v1/collections/"+id+"/thumbnails", key, map[string]any{"thumbnailIds": []string{unknown}})
		if st != 404 || !strings.Contains(stringify(body["details"]), unknown) {
			t.Fatalf("unknown thumbnail: %d %v", st, body)
		}
		s.must(404, "DELETE", "/api/v1/collections/"+id+"/thumbnails", key, map[string]any{"thumbnailId": unknown})
		s.must(400, "POST", "/api/v1/collections/"+id+"/thumbnails", key, map[string]any{"thumbnailId": unknown, "thumbnailIds": []string{unknown}})
		if d := s.must(200, "GET", "/api/v1/collections/"+id, key, nil); d["description"] != "work in progress" {
			t.Fatalf("collection %v", d)
		}
		s.must(204, "DELETE", "/api/v1/collections/"+id, key, nil)
	})
}
