package e2e

import (
	"fmt"
	"image/color"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// created is one kind of assets record as a test makes and names it.
type created struct {
	name  string         // for messages
	path  string         // where it is created and deleted
	body  map[string]any // its creation
	field string         // the field of POST /thumbnails that names it
}

// ref names the record id in its field of POST /thumbnails.
func (c created) ref(id any) map[string]any {
	if c.field == "faceIds" {
		return map[string]any{c.field: []any{id}}
	}
	return map[string]any{c.field: id}
}

// errField is the field a 404 about the record names.
func (c created) errField() string {
	if c.field == "faceIds" {
		return "faceIds[0]"
	}
	return c.field
}

// A client uses what it has just created: a face, a style, a brand and a
// collection, each used in POST /thumbnails right after its 201 (the next
// request of the same client), 50 times each, are never 404, whether the
// thumbnails read model already has them or asks assets for them; a face
// likewise in a face swap, and a brand in a clips render. Another
// organization's fresh id stays 404, a deleted record ends 404 and stays
// so, and no 404 is charged.
func TestReadYourWrites(t *testing.T) {
	const rounds = 50
	s := startStack(t)
	_, key := s.newOrg("pro")
	_, other := s.newOrg("pro")
	s.waitTotal(key, 500)
	s.waitTotal(other, 500)
	red := s.upload(key, "red.png", solidPNG(t, color.RGBA{220, 20, 20, 255}))
	photo := s.uploadAs(key, "me.jpg", "image/jpeg", testkit.FacePhoto(t))
	kinds := []created{
		{"face", "/api/v1/faces", map[string]any{"name": "Me", "imageUrls": []any{photo}}, "faceIds"},
		{"style", "/api/v1/styles", map[string]any{"name": "Red", "referenceImageUrls": []any{red}}, "styleId"},
		{"brand", "/api/v1/brands", map[string]any{"name": "Acme", "colors": []any{"#1a73e8", "#fbbc04"}}, "brandId"},
		{"collection", "/api/v1/collections", map[string]any{"name": "Launch"}, "collectionId"},
	}
	generate := func(bearer string, i int, c created, id any) (int, map[string]any) {
		body := c.ref(id)
		body["prompt"] = fmt.Sprintf("Take %d", i)
		return s.do("POST", "/api/v1/thumbnails", bearer, body)
	}

	charged := 0
	var gap time.Duration // the longest time from a creation's answer to its use
	for _, c := range kinds {
		var failed []string
		for i := range rounds {
			id := s.must(201, "POST", c.path, key, c.body)["id"]
			answered := time.Now()
			body := c.ref(id)
			body["prompt"] = fmt.Sprintf("Take %d", i)
			gap = max(gap, time.Since(answered))
			st, b := s.do("POST", "/api/v1/thumbnails", key, body)
			if st != 201 {
				failed = append(failed, fmt.Sprintf("%d: %d %v", i, st, b["error"]))
				continue
			}
			charged++
			if got := b["data"].(map[string]any); !strings.Contains(fmt.Sprint(got[c.field]), id.(string)) {
				t.Fatalf("%s %v: thumbnail %v does not name it", c.name, id, got)
			}
			// Known to the read model now, it is still not another
			// organization's.
			if st, b := generate(other, i, c, id); st != 404 || fieldOf(b, c.errField()) == nil {
				t.Fatalf("%s %v used by another organization: %d %v", c.name, id, st, b)
			}
		}
		if len(failed) > 0 {
			t.Errorf("%s used right after its creation failed %d of %d times: %v", c.name, len(failed), rounds, failed)
		}
		// Fresh, before its owner used it: assets, asked as the other
		// organization, does not know it.
		for i := range 5 {
			id := s.must(201, "POST", c.path, key, c.body)["id"]
			if st, b := generate(other, i, c, id); st != 404 || fieldOf(b, c.errField()) == nil {
				t.Fatalf("fresh %s %v used by another organization: %d %v", c.name, id, st, b)
			}
		}
	}
	t.Logf("the longest time from a creation's 201 to the request using it: %s", gap)

	// A saved face in a face swap, right after its creation.
	for range 3 {
		id := s.must(201, "POST", "/api/v1/faces", key, kinds[0].body)["id"]
		if st, b := s.do("POST", "/api/v1/thumbnails/edit/face-swap", key, map[string]any{"imageUrl": photo, "faceId": id}); st != 201 {
			t.Errorf("face swap with a face just created: %d %v", st, b)
		} else {
			charged++
		}
	}
	s.waitTotal(other, 500)
	s.waitTotal(key, float64(500-charged))

	// A deleted record: used (so the read model has it), deleted, and
	// then 404 for good once the deletion reached the read model; the
	// requests in between were served and paid for.
	for _, c := range kinds {
		id := s.must(201, "POST", c.path, key, c.body)["id"]
		if st, b := generate(key, 0, c, id); st != 201 {
			t.Fatalf("%s: %d %v", c.name, st, b)
		}
		charged++
		s.must(204, "DELETE", c.path+"/"+id.(string), key, nil)
		testkit.Eventually(t, 20*time.Second, c.name+" deletion reaches the read model", func() bool {
			st, _ := generate(key, 0, c, id)
			if st == 201 {
				charged++
			}
			return st == 404
		})
		for i := range 10 {
			if st, b := generate(key, i, c, id); st != 404 || b["code"] != "not_found" || fieldOf(b, c.errField()) == nil {
				t.Fatalf("deleted %s, request %d: %d %v", c.name, i, st, b)
			}
		}
	}
	s.waitTotal(key, float64(500-charged))

	t.Run("a brand in a render right after its creation", func(t *testing.T) {
		var slow atomic.Int64
		media := faceTalk(t, &slow)
		s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
		p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4"})
		pid := p["id"].(string)
		if got := s.waitProject(key, pid); got["downloadStatus"] != "ready" {
			t.Fatalf("project %v", got)
		}
		path := "/api/v1/clips/projects/" + pid + "/renders"
		clip := p["clips"].([]any)[0].(map[string]any)["id"]
		render := func(brand any) (int, map[string]any) {
			return s.do("POST", path, key, map[string]any{"clip_id": clip, "brand_id": brand, "options": map[string]any{"brandFrame": true}})
		}
		var first string
		var brand any
		for i := range 3 {
			brand = s.must(201, "POST", "/api/v1/brands", key, map[string]any{"name": "Purple", "colors": []any{"#7c3aed"}})["id"]
			st, b := render(brand)
			if st != 201 {
				t.Fatalf("render %d with a brand just created: %d %v", i, st, b)
			}
			charged += 2
			if first == "" {
				first = b["data"].(map[string]any)["renders"].([]any)[0].(map[string]any)["id"].(string)
			}
		}
		// The render itself used the brand the lookup taught clips.
		if r := s.waitRender(key, first, 3*time.Minute); r["status"] != "completed" || strings.Contains(fmt.Sprint(r["notes"]), "brandFrame") {
			t.Errorf("render with the new brand: %v", r)
		}
		// Deleted, the brand ends 404 and stays so, at no charge. Until
		// the deletion reaches clips, a request naming an unknown music
		// track gets past the brand to a free 400, so waiting queues no
		// render.
		s.must(204, "DELETE", "/api/v1/brands/"+brand.(string), key, nil)
		testkit.Eventually(t, 20*time.Second, "brand deletion reaches clips", func() bool {
			st, b := s.do("POST", path, key, map[string]any{"clip_id": clip, "brand_id": brand,
				"options": map[string]any{"musicTrackId": "0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00"}})
			if st != 404 && fieldOf(b, "options.musicTrackId") == nil {
				t.Fatalf("probe: %d %v", st, b)
			}
			return st == 404
		})
		for range 5 {
			if st, b := render(brand); st != 404 || b["code"] != "not_found" {
				t.Fatalf("deleted brand in a render: %d %v", st, b)
			}
		}
		s.waitTotal(key, float64(500-charged))
	})
}
