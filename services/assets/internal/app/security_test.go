package app_test

import (
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
)

func TestUnauthenticated(t *testing.T) {
	h := newHarness(t)
	routes := [][2]string{
		{"POST", "/uploads/presigned-url"}, {"POST", "/faces/upload-urls"},
		{"GET", "/faces"}, {"POST", "/faces"}, {"GET", "/faces/" + uuid.NewString()},
		{"GET", "/styles"}, {"PATCH", "/styles/" + uuid.NewString()}, {"DELETE", "/brands/" + uuid.NewString()},
		{"GET", "/collections"}, {"POST", "/collections/" + uuid.NewString() + "/thumbnails"},
	}
	for _, rt := range routes {
		if r := h.Do(rt[0], rt[1], "", map[string]any{}); r.Status != 401 || r.Code != "unauthorized" {
			t.Errorf("%s %s without principal: %d %s", rt[0], rt[1], r.Status, r.Raw)
		}
	}
	// A principal signed with another secret, or expired, is no principal.
	for _, v := range []string{
		func() string {
			s, _ := principal.Sign([]byte("another-secret-0123456789abcdefghijkl"), principal.Principal{OrgID: newOrg(), Expires: time.Now().Add(time.Minute)})
			return s
		}(),
		func() string {
			s, _ := principal.Sign([]byte(apptest.Secret), principal.Principal{OrgID: newOrg(), Expires: time.Now().Add(-time.Second)})
			return s
		}(),
		"garbage",
	} {
		req, _ := http.NewRequest("GET", h.URL+"/faces", nil)
		req.Header.Set(principal.Header, v)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("bad principal %q: %d", v[:min(len(v), 12)], res.StatusCode)
		}
	}
}

func TestNonUUIDPathIDs(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	for _, kind := range []string{"faces", "styles", "brands", "collections"} {
		for _, bad := range []string{"123", "not-a-uuid", "6f9619ff8b86d011b42d00cf4fc964ff", uuid.NewString() + "0"} {
			for _, m := range []string{"GET", "PATCH", "DELETE"} {
				r := h.Do(m, "/"+kind+"/"+bad, org, map[string]any{"name": "x"})
				if r.Status != 400 || r.Field("id") == "" {
					t.Errorf("%s /%s/%s: %d %s", m, kind, bad, r.Status, r.Raw)
				}
			}
		}
	}
	for _, m := range []string{"POST", "DELETE"} {
		if r := h.Do(m, "/collections/nope/thumbnails", org, map[string]any{"thumbnailId": uuid.NewString()}); r.Status != 400 {
			t.Errorf("%s thumbnails of a non-uuid collection: %d", m, r.Status)
		}
	}
}

// TestCrossTenant creates one record of each kind as org A and checks that
// org B sees, changes and deletes none of them (404 everywhere), and
// cannot use A's uploads.
func TestCrossTenant(t *testing.T) {
	h := newHarness(t)
	a, b := newOrg(), newOrg()
	photo := h.upload(a, "me.jpg", "image/jpeg", testkit.FacePhoto(t))
	red := h.upload(a, "red.png", "image/png", testkit.SolidPNG(t, 32, 32, color.RGBA{255, 0, 0, 255}))

	var face, style, brand, coll struct {
		ID string `json:"id"`
	}
	h.Must(201, "POST", "/faces", a, map[string]any{"name": "A", "imageUrls": []string{photo}}).Into(t, &face)
	h.Must(201, "POST", "/styles", a, map[string]any{"name": "A", "referenceImageUrls": []string{red}}).Into(t, &style)
	h.Must(201, "POST", "/brands", a, map[string]any{"name": "A", "colors": []string{"#fff"}, "logoUrl": red}).Into(t, &brand)
	h.Must(201, "POST", "/collections", a, map[string]any{"name": "A"}).Into(t, &coll)
	thumb := uuid.NewString()
	h.thumbnailCreated(a, thumb, coll.ID)

	patches := map[string]any{
		"faces": map[string]any{"name": "B"}, "styles": map[string]any{"name": "B"},
		"brands": map[string]any{"name": "B"}, "collections": map[string]any{"name": "B"},
	}
	for kind, id := range map[string]string{"faces": face.ID, "styles": style.ID, "brands": brand.ID, "collections": coll.ID} {
		path := "/" + kind + "/" + id
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			var body any
			if m == "PATCH" {
				body = patches[kind]
			}
			if r := h.Do(m, path, b, body); r.Status != 404 || r.Code != "not_found" {
				t.Errorf("%s %s as another organization: %d %s", m, path, r.Status, r.Raw)
			}
		}
		if r := h.Must(200, "GET", "/"+kind, b, nil); r.Page.Total != 0 {
			t.Errorf("GET /%s as another organization lists %d records", kind, r.Page.Total)
		}
		h.Must(200, "GET", path, a, nil) // still there for its owner
	}
	// B may not put A's thumbnail in B's collection, nor touch A's.
	var bc struct {
		ID string `json:"id"`
	}
	h.Must(201, "POST", "/collections", b, map[string]any{"name": "B"}).Into(t, &bc)
	h.Must(404, "POST", "/collections/"+bc.ID+"/thumbnails", b, map[string]any{"thumbnailId": thumb})
	h.Must(404, "POST", "/collections/"+coll.ID+"/thumbnails", b, map[string]any{"thumbnailId": thumb})
	h.Must(404, "DELETE", "/collections/"+coll.ID+"/thumbnails", b, map[string]any{"thumbnailId": thumb})
	if got := h.collection(a, coll.ID); len(got.Thumbnails) != 1 {
		t.Fatalf("A's collection changed: %+v", got)
	}
	// A's uploads are not B's: refused without revealing that they exist.
	for path, body := range map[string]any{
		"/faces":  map[string]any{"name": "B", "imageUrls": []string{photo}},
		"/styles": map[string]any{"name": "B", "referenceImageUrls": []string{red}},
		"/brands": map[string]any{"name": "B", "colors": []string{"#000"}, "logoUrl": red},
	} {
		r := h.Must(400, "POST", path, b, body)
		if !strings.Contains(string(r.Raw), "was not uploaded") {
			t.Errorf("POST %s with another organization's upload: %s", path, r.Raw)
		}
	}
}

// TestSSRF sends URLs that resolve to loopback, private, link-local and
// metadata addresses; none is allow-listed, so every one is refused before
// any connection (the local site counts requests and must see none).
func TestSSRF(t *testing.T) {
	web := testkit.ServeSite(t, map[string]testkit.File{"/x.png": {ContentType: "image/png", Body: testkit.SolidPNG(t, 8, 8, color.White)}})
	h := newHarness(t) // no HOOKLINE_FETCH_ALLOW_HOSTS
	org := newOrg()
	_, port, _ := strings.Cut(web.Host, ":")
	urls := []string{
		web.URL + "/x.png",                         // 127.0.0.1
		"http://localhost:" + port + "/x.png",      // a name resolving to loopback
		"http://[::1]:" + port + "/x.png",          // IPv6 loopback
		"http://0.0.0.0:" + port + "/x.png",        // unspecified
		"http://10.0.0.1/x.png",                    // private
		"http://172.16.5.4/x.png",                  // private
		"http://192.168.0.1/x.png",                 // private
		"http://169.254.169.254/latest/meta-data/", // metadata
		"http://169.254.1.1/x.png",                 // link-local
		"http://[fe80::1]/x.png",                   // link-local v6
		"http://[::ffff:127.0.0.1]:" + port + "/x.png",
		"http://2130706433:" + port + "/x.png", // 127.0.0.1 as an integer
	}
	r := h.Must(400, "POST", "/faces", org, map[string]any{"name": "x", "imageUrls": urls[:10]})
	for i, u := range urls[:10] {
		if got := r.Field("imageUrls[" + string(rune('0'+i)) + "]"); !strings.Contains(got, u) || !strings.Contains(got, "may not be fetched") {
			t.Errorf("imageUrls[%d] %s: %q", i, u, got)
		}
	}
	for _, u := range urls {
		r := h.Must(400, "POST", "/styles", org, map[string]any{"name": "x", "referenceImageUrls": []string{u}})
		if !strings.Contains(r.Field("referenceImageUrls[0]"), u) {
			t.Errorf("style reference %s: %s", u, r.Raw)
		}
		h.Must(400, "POST", "/brands", org, map[string]any{"name": "x", "colors": []string{"#fff"}, "logoUrl": u})
	}
	for _, d := range []string{web.URL, "localhost:" + port, "http://169.254.169.254/", "10.0.0.1", "http://[::1]:" + port} {
		r := h.Must(400, "POST", "/brands", org, map[string]any{"domain": d})
		if !strings.Contains(r.Field("domain"), "may not be fetched") {
			t.Errorf("brand import from %s: %s", d, r.Raw)
		}
	}
	if n := web.Hits(); n != 0 {
		t.Fatalf("the loopback site received %d requests", n)
	}
	for _, kind := range []string{"faces", "styles", "brands"} {
		if r := h.Must(200, "GET", "/"+kind, org, nil); r.Page.Total != 0 {
			t.Errorf("%s created from refused URLs", kind)
		}
	}
}
