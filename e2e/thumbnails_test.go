package e2e

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// fetchImage downloads a public image URL and decodes it as JPEG.
func fetchImage(t *testing.T, url string) (image.Image, []byte) {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test download
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s is not a JPEG: %v", url, err)
	}
	return img, raw
}

func wantSize(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("image is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
}

func (s *stack) total(key string) float64 {
	return s.credits(key)["credits"].(map[string]any)["total"].(float64)
}

// waitTotal waits until the organization's available credits are want.
func (s *stack) waitTotal(key string, want float64) {
	s.t.Helper()
	testkit.Eventually(s.t, 20*time.Second, fmt.Sprintf("credits total %v", want), func() bool { return s.total(key) == want })
}

// fieldOf is details.fields[name] of an error answer.
func fieldOf(body map[string]any, name string) any {
	d, _ := body["details"].(map[string]any)
	f, _ := d["fields"].(map[string]any)
	return f[name]
}

// usageStatuses counts the organization's usage items by status.
func (s *stack) usageStatuses(key string) map[string]int {
	s.t.Helper()
	out := map[string]int{}
	for _, status := range s.usage(key) {
		out[status]++
	}
	return out
}

// usage returns the status of each of the organization's last 100 usage
// entries by id.
func (s *stack) usage(key string) map[string]string {
	s.t.Helper()
	st, body := s.do("GET", "/api/v1/account/usage?limit=100", key, nil)
	if st != 200 {
		s.t.Fatalf("usage: %d %v", st, body)
	}
	out := map[string]string{}
	for _, u := range body["data"].([]any) {
		u := u.(map[string]any)
		out[u["id"].(string)] = u["status"].(string)
	}
	return out
}

func TestThumbnailsThroughTheGateway(t *testing.T) {
	s := startStack(t)
	_, key := s.newOrg("pro")
	_, other := s.newOrg("pro")
	s.waitTotal(key, 500)

	// Generate, in both aspect ratios.
	gen := s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "  I tested the 5 cheapest gaming laptops  "})
	for _, f := range []string{"parentId", "styleId", "brandId", "collectionId", "templateId"} {
		if v, ok := gen[f]; !ok || v != nil {
			t.Fatalf("%s = %v (present %v), want null", f, v, ok)
		}
	}
	if gen["prompt"] != "I tested the 5 cheapest gaming laptops" || gen["kind"] != "generated" || gen["engine"] != "local" ||
		gen["aspectRatio"] != "16:9" || gen["width"] != float64(1280) || gen["height"] != float64(720) || len(gen["faceIds"].([]any)) != 0 {
		t.Fatalf("generated: %v", gen)
	}
	img, _ := fetchImage(t, gen["imageUrl"].(string))
	wantSize(t, img, 1280, 720)
	tall := s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "morning routine", "aspectRatio": "9:16"})
	img, _ = fetchImage(t, tall["imageUrl"].(string))
	wantSize(t, img, 720, 1280)

	// Detail and list, newest first, with filters.
	id := gen["id"].(string)
	if got := s.must(200, "GET", "/api/v1/thumbnails/"+id, key, nil); got["imageUrl"] != gen["imageUrl"] || got["createdAt"] != gen["createdAt"] {
		t.Fatalf("detail %v != %v", got, gen)
	}
	st, list := s.do("GET", "/api/v1/thumbnails?limit=1", key, nil)
	if st != 200 || list["data"].([]any)[0].(map[string]any)["id"] != tall["id"] || list["pagination"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("list: %d %v", st, list)
	}
	for _, q := range []string{"kind=edit", "kind=bogus", "collectionId=nope", "limit=0"} {
		st, body := s.do("GET", "/api/v1/thumbnails?"+q, key, nil)
		if q == "kind=edit" {
			if st != 200 || len(body["data"].([]any)) != 0 {
				t.Fatalf("%s: %d %v", q, st, body)
			}
			continue
		}
		if st != 400 {
			t.Fatalf("%s: %d %v", q, st, body)
		}
	}

	// Variations: all distinct, the parent's aspect ratio, 1..10 only.
	st, body := s.do("POST", "/api/v1/thumbnails/variations", key, map[string]any{"thumbnailId": tall["id"], "count": 3, "prompt": "more red"})
	if st != 201 {
		t.Fatalf("variations: %d %v", st, body)
	}
	vars := body["data"].([]any)
	seen := map[[32]byte]bool{}
	for _, v := range vars {
		v := v.(map[string]any)
		if v["kind"] != "variation" || v["parentId"] != tall["id"] || v["aspectRatio"] != "9:16" || v["prompt"] != "morning routine — more red" {
			t.Fatalf("variation: %v", v)
		}
		img, raw := fetchImage(t, v["imageUrl"].(string))
		wantSize(t, img, 720, 1280)
		seen[sha256.Sum256(raw)] = true
	}
	if len(vars) != 3 || len(seen) != 3 {
		t.Fatalf("%d variations, %d distinct", len(vars), len(seen))
	}
	for _, n := range []int{0, 11} {
		if st, body := s.do("POST", "/api/v1/thumbnails/variations", key, map[string]any{"thumbnailId": id, "count": n}); st != 400 || fieldOf(body, "count") == nil {
			t.Fatalf("count %d: %d %v", n, st, body)
		}
	}
	s.waitTotal(key, 500-2-3)

	// Another organization sees none of it.
	if st, _ := s.do("GET", "/api/v1/thumbnails/"+id, other, nil); st != 404 {
		t.Fatalf("other org reads: %d", st)
	}
	if st, _ := s.do("POST", "/api/v1/thumbnails/variations", other, map[string]any{"thumbnailId": id, "count": 1}); st != 404 {
		t.Fatalf("other org varies: %d", st)
	}
	if st, _ := s.do("DELETE", "/api/v1/thumbnails/"+id, other, nil); st != 404 {
		t.Fatalf("other org deletes: %d", st)
	}

	// Delete removes the record and the picture.
	if st, _ := s.do("DELETE", "/api/v1/thumbnails/"+id, key, nil); st != 204 {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := s.do("GET", "/api/v1/thumbnails/"+id, key, nil); st != 404 {
		t.Fatalf("after delete: %d", st)
	}
	resp, err := http.Get(gen["imageUrl"].(string)) //nolint:noctx // a test download
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Fatal("the deleted picture is still served")
	}

	// Every template remixes into a valid picture of its aspect ratio.
	var templates []map[string]any
	for page := 1; ; page++ {
		st, body := s.do("GET", fmt.Sprintf("/api/v1/templates?limit=10&page=%d", page), key, nil)
		if st != 200 {
			t.Fatalf("templates: %d %v", st, body)
		}
		for _, it := range body["data"].([]any) {
			templates = append(templates, it.(map[string]any))
		}
		if !body["pagination"].(map[string]any)["hasMore"].(bool) {
			break
		}
	}
	categories := map[string]bool{}
	for _, tpl := range templates {
		categories[tpl["category"].(string)] = true
		if len(tpl["slots"].([]any)) == 0 {
			t.Fatalf("template without slots: %v", tpl)
		}
	}
	if len(templates) < 24 || len(categories) < 8 {
		t.Fatalf("%d templates over %d categories", len(templates), len(categories))
	}
	st, gaming := s.do("GET", "/api/v1/templates?category=gaming", key, nil)
	if st != 200 || len(gaming["data"].([]any)) == 0 {
		t.Fatalf("gaming templates: %d %v", st, gaming)
	}
	for i, tpl := range templates {
		body := map[string]any{}
		if i%2 == 0 {
			body["headline"] = "Day 100 of building"
		}
		r := s.must(201, "POST", "/api/v1/templates/"+tpl["id"].(string)+"/remix", key, body)
		if r["kind"] != "remix" || r["templateId"] != tpl["id"] || r["aspectRatio"] != tpl["aspectRatio"] {
			t.Fatalf("remix of %v: %v", tpl["name"], r)
		}
		if i%2 == 0 && r["prompt"] != "Day 100 of building" || i%2 == 1 && r["prompt"] != tpl["name"] {
			t.Fatalf("remix prompt %q", r["prompt"])
		}
		img, _ := fetchImage(t, r["imageUrl"].(string))
		w, h := 1280, 720
		if tpl["aspectRatio"] == "9:16" {
			w, h = 720, 1280
		}
		wantSize(t, img, w, h)
	}
	if st, _ := s.do("POST", "/api/v1/templates/6f1c1d9e-0000-4000-8000-000000000000/remix", key, map[string]any{}); st != 404 {
		t.Fatalf("unknown template: %d", st)
	}
	s.waitTotal(key, float64(500-2-3-len(templates)))
	// Previews are rendered at start-up.
	testkit.Eventually(t, 60*time.Second, "template previews", func() bool {
		_, body := s.do("GET", "/api/v1/templates?limit=100", key, nil)
		for _, it := range body["data"].([]any) {
			if it.(map[string]any)["previewUrl"] == nil {
				return false
			}
		}
		return true
	})
	_, body = s.do("GET", "/api/v1/templates?limit=1", key, nil)
	img, _ = fetchImage(t, body["data"].([]any)[0].(map[string]any)["previewUrl"].(string))
	if img.Bounds().Dx() < 100 {
		t.Fatalf("preview is %v", img.Bounds())
	}
}

// Inputs are resolved for real: the assets a request names come from the
// read model kept from assets' events, and another organization's are 404.
func TestThumbnailInputs(t *testing.T) {
	s := startStack(t)
	_, key := s.newOrg("pro")
	_, other := s.newOrg("pro")
	s.waitTotal(key, 500)

	red := s.upload(key, "red.png", solidPNG(t, color.RGBA{220, 20, 20, 255}))
	style := s.must(201, "POST", "/api/v1/styles", key, map[string]any{"name": "Red", "referenceImageUrls": []string{red}})
	brand := s.must(201, "POST", "/api/v1/brands", key, map[string]any{"name": "Acme", "colors": []string{"#1a73e8", "#fbbc04"}})
	photo := s.uploadAs(key, "me.jpg", "image/jpeg", testkit.FacePhoto(t))
	face := s.must(201, "POST", "/api/v1/faces", key, map[string]any{"name": "Me", "imageUrls": []string{photo}})
	coll := s.must(201, "POST", "/api/v1/collections", key, map[string]any{"name": "Launch"})
	req := map[string]any{
		"prompt": "My honest review", "styleId": style["id"], "brandId": brand["id"],
		"faceIds": []any{face["id"]}, "collectionId": coll["id"],
	}
	// The read model follows assets' events: eventually every id resolves.
	var made map[string]any
	testkit.Eventually(t, 20*time.Second, "assets reach the read model", func() bool {
		st, body := s.do("POST", "/api/v1/thumbnails", key, req)
		if st == 201 {
			made = body["data"].(map[string]any)
		}
		return st == 201
	})
	if made["styleId"] != style["id"] || made["brandId"] != brand["id"] || made["collectionId"] != coll["id"] || made["faceIds"].([]any)[0] != face["id"] {
		t.Fatalf("made %v", made)
	}
	img, _ := fetchImage(t, made["imageUrl"].(string))
	wantSize(t, img, 1280, 720)
	// It joins the collection (assets consumes thumbnails' created event).
	testkit.Eventually(t, 20*time.Second, "thumbnail in the collection", func() bool {
		_, body := s.do("GET", "/api/v1/collections/"+coll["id"].(string), key, nil)
		return strings.Contains(stringify(body), made["id"].(string))
	})

	// Another organization's assets are not found, and cost nothing.
	s.waitTotal(other, 500)
	for field, v := range map[string]any{"styleId": style["id"], "brandId": brand["id"], "collectionId": coll["id"], "faceIds": []any{face["id"]}} {
		st, body := s.do("POST", "/api/v1/thumbnails", other, map[string]any{"prompt": "x", field: v})
		if st != 404 || body["code"] != "not_found" {
			t.Fatalf("other org's %s: %d %v", field, st, body)
		}
	}
	// A deleted asset is gone from the read model too.
	if st, _ := s.do("DELETE", "/api/v1/styles/"+style["id"].(string), key, nil); st != 204 {
		t.Fatal("delete style")
	}
	made2 := 0 // thumbnails made while the deletion was on its way
	testkit.Eventually(t, 20*time.Second, "style deletion reaches the read model", func() bool {
		st, _ := s.do("POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "x", "styleId": style["id"]})
		if st == 201 {
			made2++
		}
		return st == 404
	})
	s.waitTotal(other, 500)
	s.waitTotal(key, float64(499-made2))
}

// Bad input is a 400 naming the field, before anything is reserved.
func TestThumbnailBadInput(t *testing.T) {
	s := startStack(t)
	_, key := s.newOrg("free") // 10 credits

	// Reference images served from a local server, which the restarted
	// thumbnails process may fetch (it is allow-listed); a private
	// address that is not allow-listed stays refused.
	var hits atomic.Int64
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>not an image</html>"))
		case "/big.png":
			w.Header().Set("Content-Type", "image/png")
			big := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 6<<20)...)
			_, _ = w.Write(big)
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	host := strings.TrimPrefix(files.URL, "http://")
	s.restartThumbnails("HOOKLINE_FETCH_ALLOW_HOSTS=" + host)
	s.waitTotal(key, 10)

	long := strings.Repeat("é", 2001)
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = files.URL + "/page.html"
	}
	_, privatePort, _ := net.SplitHostPort(host)
	cases := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"prompt": "   "}, "prompt"},
		{map[string]any{}, "prompt"},
		{map[string]any{"prompt": long}, "prompt"},
		{map[string]any{"prompt": "ok", "aspectRatio": "4:3"}, "aspectRatio"},
		{map[string]any{"prompt": "ok", "styleId": "nope"}, "styleId"},
		{map[string]any{"prompt": "ok", "faceIds": []string{"6f1c1d9e-0000-4000-8000-000000000000", "x"}}, "faceIds[1]"},
		{map[string]any{"prompt": "ok", "referenceImageUrls": eleven}, "referenceImageUrls"},
		{map[string]any{"prompt": "ok", "referenceImageUrls": []string{"http://10.0.0.1:" + privatePort + "/a.png"}}, "referenceImageUrls[0]"},
		{map[string]any{"prompt": "ok", "referenceImageUrls": []string{files.URL + "/page.html"}}, "referenceImageUrls[0]"},
		{map[string]any{"prompt": "ok", "referenceImageUrls": []string{files.URL + "/big.png"}}, "referenceImageUrls[0]"},
	}
	for _, c := range cases {
		st, body := s.do("POST", "/api/v1/thumbnails", key, c.body)
		if st != 400 || body["code"] != "invalid_request" || !strings.Contains(stringify(body["details"]), c.field) {
			t.Errorf("%.80v: %d %v, want 400 naming %s", c.body, st, body, c.field)
		}
	}
	if hits.Load() == 0 {
		t.Fatal("the allow-listed server was never asked: the reference checks did not run")
	}
	if st, body := s.do("POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "ok", "bogus": 1}); st != 400 {
		t.Fatalf("unknown field: %d %v", st, body)
	}
	if st, body := s.do("POST", "/api/v1/templates/not-a-uuid/remix", key, map[string]any{}); st != 400 {
		t.Fatalf("malformed template id: %d %v", st, body)
	}
	if st, body := s.do("POST", "/api/v1/thumbnails/variations", key, map[string]any{"count": 2}); st != 400 || fieldOf(body, "thumbnailId") == nil {
		t.Fatalf("variations without a thumbnail: %d %v", st, body)
	}
	// Nothing was charged, nothing was made.
	if got := s.total(key); got != 10 {
		t.Fatalf("credits after refused requests: %v", got)
	}
	if st, body := s.do("GET", "/api/v1/thumbnails", key, nil); st != 200 || len(body["data"].([]any)) != 0 {
		t.Fatalf("list after refused requests: %v", body)
	}
}

// restartThumbnails stops the thumbnails process and starts another on the
// same schema and address with extra environment.
func (s *stack) restartThumbnails(extra ...string) {
	s.t.Helper()
	_ = s.thumbnails.Process.Signal(os.Interrupt)
	_, _ = s.thumbnails.Process.Wait()
	s.thumbnails = s.start("thumbnails", append(append([]string{}, s.thumbnailsEnv...), extra...)...)
	testkit.WaitHTTP(s.t, s.thumbsURL+"/readyz", serviceReady)
}

// The saga: 402 with no credits and nothing made; a provider failure
// refunds; a crash between the reservation and the result leaves no charge
// without a thumbnail.
func TestThumbnailCredits(t *testing.T) {
	s := startStack(t)
	org, key := s.newOrg("payg") // no credits
	if st, body := s.do("POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "broke"}); st != 402 || body["code"] != "insufficient_credits" {
		t.Fatalf("no credits: %d %v", st, body)
	}
	if st, body := s.do("GET", "/api/v1/thumbnails", key, nil); st != 200 || len(body["data"].([]any)) != 0 {
		t.Fatalf("list after 402: %v", body)
	}
	if st, body := s.do("POST", "/admin/v1/organizations/"+org+"/credits", adminToken, map[string]any{"credits": 3, "kind": "purchased", "reason": "e2e"}); st != 202 {
		t.Fatalf("grant: %d %v", st, body)
	}
	s.waitTotal(key, 3)
	// Variations are all or nothing on credits: 4 > 3 is a 402.
	parent := s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "parent"})
	s.waitTotal(key, 2)
	if st, body := s.do("POST", "/api/v1/thumbnails/variations", key, map[string]any{"thumbnailId": parent["id"], "count": 4}); st != 402 {
		t.Fatalf("4 variations with 2 credits: %d %v", st, body)
	}
	// The reservations made before the refusal are released.
	s.waitTotal(key, 2)

	// A provider that fails: the call fails and the credit comes back.
	var mode atomic.Value
	mode.Store("fail")
	arrived := make(chan struct{}, 8)
	release := make(chan struct{})
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		if mode.Load() == "stall" {
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		_, _ = w.Write([]byte(`{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}`))
	}))
	defer provider.Close()
	defer close(release)
	providerEnv := []string{"HOOKLINE_IMAGE_PROVIDER=openai", "HOOKLINE_IMAGE_API_KEY=sk-test", "HOOKLINE_IMAGE_BASE_URL=" + provider.URL,
		"HOOKLINE_IMAGE_TIMEOUT=2s", "HOOKLINE_RECOVERY_GRACE=3s", "HOOKLINE_RECOVERY_INTERVAL=500ms"}
	s.restartThumbnails(providerEnv...)
	st, body := s.do("POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "fails"})
	if st != 503 || body["code"] != "provider_unavailable" {
		t.Fatalf("provider failure: %d %v", st, body)
	}
	s.waitTotal(key, 2)
	testkit.Eventually(t, 20*time.Second, "the failed call's usage item refunded", func() bool {
		u := s.usageStatuses(key)
		return u["refunded"] >= 1 && u["reserved"] == 0
	})
	refunded := s.usageStatuses(key)["refunded"] // the released variations' among them

	// A crash while the engine works: the reservation holds the credit
	// until the next process's recovery pass refunds it.
	mode.Store("stall")
	for len(arrived) > 0 {
		<-arrived // the calls of the failure above
	}
	done := make(chan int, 1)
	go func() {
		st, _ := s.do("POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "crash"})
		done <- st
	}()
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the stalled call never reached the provider")
	}
	s.waitTotal(key, 1) // reserved
	_ = s.thumbnails.Process.Kill()
	_, _ = s.thumbnails.Process.Wait()
	if st := <-done; st < 500 {
		t.Fatalf("the request of a killed process answered %d", st)
	}
	if got := s.total(key); got != 1 {
		t.Fatalf("credits right after the crash: %v", got)
	}
	s.restartThumbnails(providerEnv...)
	s.waitTotal(key, 2)
	testkit.Eventually(t, 20*time.Second, "the crashed call's usage item refunded", func() bool {
		u := s.usageStatuses(key)
		return u["refunded"] == refunded+1 && u["reserved"] == 0
	})
	if st, body := s.do("GET", "/api/v1/thumbnails", key, nil); st != 200 || len(body["data"].([]any)) != 1 {
		t.Fatalf("thumbnails after the crash: %v", body)
	}
}
