package app_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
)

func TestGenerateListDelete(t *testing.T) {
	h := newHarness(t)
	org, other := h.openAccount("pro"), h.openAccount("pro")

	land := h.generate(org, map[string]any{"prompt": "  I survived 100 days in the jungle  "})
	if land.Prompt != "I survived 100 days in the jungle" || land.Kind != "generated" || land.AspectRatio != "16:9" ||
		land.Width != 1280 || land.Height != 720 || land.Engine != "local" || land.ParentID != nil || land.StyleID != nil ||
		land.CollectionID != nil || land.TemplateID != nil || land.FaceIDs == nil || len(land.FaceIDs) != 0 {
		t.Fatalf("generated %+v", land)
	}
	h.checkPicture(land.ImageURL, 1280, 720)
	port := h.generate(org, map[string]any{"prompt": "Morning routine", "aspectRatio": "9:16"})
	if port.AspectRatio != "9:16" || port.Width != 720 || port.Height != 1280 {
		t.Fatalf("portrait %+v", port)
	}
	h.checkPicture(port.ImageURL, 720, 1280)
	if b := h.balance(org); b != proCredits-2 {
		t.Fatalf("balance %d after two thumbnails, want %d", b, proCredits-2)
	}
	for _, u := range h.usage(org) {
		if u.Status != "committed" || u.Operation != "thumbnails.generate" || (u.ResourceID != land.ID && u.ResourceID != port.ID) {
			t.Errorf("usage item %+v", u)
		}
	}

	t.Run("detail and list", func(t *testing.T) {
		var got thumb
		r := h.Must(200, "GET", "/thumbnails/"+land.ID, org, nil)
		checkFields(t, r.Data)
		r.Into(t, &got)
		if got.ID != land.ID || got.ImageURL != land.ImageURL || !got.CreatedAt.Equal(land.CreatedAt) {
			t.Fatalf("detail %+v, created %+v", got, land)
		}
		var list []thumb
		r = h.Must(200, "GET", "/thumbnails", org, nil)
		r.Into(t, &list)
		if len(list) != 2 || list[0].ID != port.ID || list[1].ID != land.ID || r.Page.Total != 2 || r.Page.HasMore {
			t.Fatalf("list %+v %+v", list, r.Page)
		}
		r = h.Must(200, "GET", "/thumbnails?limit=1&page=2", org, nil)
		r.Into(t, &list)
		if len(list) != 1 || list[0].ID != land.ID || r.Page.Total != 2 || r.Page.Page != 2 {
			t.Fatalf("page 2 %+v %+v", list, r.Page)
		}
		h.Must(200, "GET", "/thumbnails?kind=variation", org, nil).Into(t, &list)
		if len(list) != 0 {
			t.Fatalf("variations %+v", list)
		}
		h.Must(200, "GET", "/thumbnails?kind=generated", org, nil).Into(t, &list)
		if len(list) != 2 {
			t.Fatalf("generated %+v", list)
		}
		if r := h.Must(400, "GET", "/thumbnails?kind=poster", org, nil); r.Field("kind") == "" {
			t.Fatalf("bad kind %s", r.Raw)
		}
		if r := h.Must(400, "GET", "/thumbnails?collectionId=nope", org, nil); r.Field("collectionId") == "" {
			t.Fatalf("bad collection %s", r.Raw)
		}
		h.Must(400, "GET", "/thumbnails?limit=101", org, nil)
		h.Must(200, "GET", "/thumbnails", other, nil).Into(t, &list)
		if len(list) != 0 {
			t.Fatalf("another org lists %+v", list)
		}
		h.Must(404, "GET", "/thumbnails/"+land.ID, other, nil)
		h.Must(404, "GET", "/thumbnails/"+uuid.NewString(), org, nil)
		h.Must(400, "GET", "/thumbnails/not-a-uuid", org, nil)
	})

	t.Run("a retry with the same idempotency key makes the same thumbnail once", func(t *testing.T) {
		before := h.balance(org)
		var a, b thumb
		r := apptest.Call(t, h.Client, "POST", h.URL+"/thumbnails", org, "key-1", map[string]any{"prompt": "retry me"})
		r.Into(t, &a)
		r = apptest.Call(t, h.Client, "POST", h.URL+"/thumbnails", org, "key-1", map[string]any{"prompt": "retry me"})
		if r.Status != 201 {
			t.Fatalf("retry: %d %s", r.Status, r.Raw)
		}
		r.Into(t, &b)
		if a.ID == "" || a.ID != b.ID || a.ImageURL != b.ImageURL {
			t.Fatalf("first %+v, retry %+v", a, b)
		}
		if after := h.balance(org); after != before-1 {
			t.Fatalf("balance %d -> %d, want one credit", before, after)
		}
		h.Must(204, "DELETE", "/thumbnails/"+a.ID, org, nil)
	})

	t.Run("delete", func(t *testing.T) {
		h.Must(404, "DELETE", "/thumbnails/"+land.ID, other, nil)
		h.Must(204, "DELETE", "/thumbnails/"+land.ID, org, nil)
		h.Must(404, "GET", "/thumbnails/"+land.ID, org, nil)
		h.Must(404, "DELETE", "/thumbnails/"+land.ID, org, nil)
		if st, _ := h.Fetch(land.ImageURL); st != 404 {
			t.Fatalf("object after delete: %d", st)
		}
		var deleted bool
		for _, e := range h.StreamEvents(events.StreamThumbnails) {
			var d events.ThumbnailDeleted
			if e.Type == events.ThumbnailsThumbnailDeleted && e.Decode(&d) == nil && d.ThumbnailID == land.ID && e.OrgID == org {
				deleted = true
			}
		}
		if !deleted {
			t.Fatal("no thumbnails.thumbnail.deleted.v1 for the thumbnail")
		}
		h.Must(200, "GET", "/thumbnails/"+port.ID, org, nil)
	})
}

func TestVariations(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	parent := h.generate(org, map[string]any{"prompt": "Neon city chase", "aspectRatio": "9:16"})
	parentPic := h.checkPicture(parent.ImageURL, 720, 1280)

	t.Run("default count, tweak joined", func(t *testing.T) {
		var vs []thumb
		r := h.Must(201, "POST", "/thumbnails/variations", org, map[string]any{"thumbnailId": parent.ID, "prompt": " more purple "})
		r.Into(t, &vs)
		if len(vs) != 3 {
			t.Fatalf("%d variations, want 3", len(vs))
		}
		for _, v := range vs {
			if v.Kind != "variation" || v.ParentID == nil || *v.ParentID != parent.ID || v.AspectRatio != "9:16" ||
				v.Prompt != "Neon city chase — more purple" || v.Width != 720 || v.Height != 1280 {
				t.Fatalf("variation %+v", v)
			}
		}
	})

	t.Run("ten distinct pictures", func(t *testing.T) {
		before := h.balance(org)
		var vs []thumb
		r := h.Must(201, "POST", "/thumbnails/variations", org, map[string]any{"thumbnailId": parent.ID, "count": 10})
		r.Into(t, &vs)
		var items []any
		r.Into(t, &items)
		if len(vs) != 10 {
			t.Fatalf("%d variations, want 10", len(vs))
		}
		pics := [][]byte{parentPic}
		for _, v := range vs {
			if v.Prompt != parent.Prompt {
				t.Fatalf("prompt %q, want the parent's", v.Prompt)
			}
			pic := h.checkPicture(v.ImageURL, 720, 1280)
			for i, p := range pics {
				if bytes.Equal(p, pic) {
					t.Fatalf("variation %s equals picture %d", v.ID, i)
				}
			}
			pics = append(pics, pic)
		}
		if after := h.balance(org); after != before-10 {
			t.Fatalf("balance %d -> %d, want 10 credits", before, after)
		}
	})

	t.Run("bad requests", func(t *testing.T) {
		before := h.reservations(org)
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"thumbnailId": parent.ID, "count": 11}, "count"},
			{map[string]any{"thumbnailId": parent.ID, "count": 0}, "count"},
			{map[string]any{"count": 2}, "thumbnailId"},
			{map[string]any{"thumbnailId": "nope"}, "thumbnailId"},
			{map[string]any{"thumbnailId": parent.ID, "prompt": "  "}, "prompt"},
			{map[string]any{"thumbnailId": parent.ID, "prompt": strings.Repeat("é", 2001)}, "prompt"},
			{map[string]any{"thumbnailId": parent.ID, "colour": "red"}, "colour"},
		} {
			if r := h.Must(400, "POST", "/thumbnails/variations", org, tc.body); r.Field(tc.field) == "" {
				t.Errorf("%v: %s does not name %s", tc.body, r.Raw, tc.field)
			}
		}
		r := h.Must(404, "POST", "/thumbnails/variations", org, map[string]any{"thumbnailId": uuid.NewString()})
		if r.Field("thumbnailId") == "" {
			t.Errorf("unknown parent: %s", r.Raw)
		}
		h.Must(404, "POST", "/thumbnails/variations", h.openAccount("pro"), map[string]any{"thumbnailId": parent.ID})
		if n := h.reservations(org); n != before {
			t.Fatalf("bad requests reserved: %d -> %d journal rows", before, n)
		}
	})

	t.Run("more than the balance is refused whole", func(t *testing.T) {
		// An account of 5 credits with a thumbnail of its own has 4: a
		// request of 5 variations is one more than it can pay.
		small := h.openAccount("starter")
		own := h.generate(small, map[string]any{"prompt": "Neon city chase", "aspectRatio": "9:16"})
		left := h.balance(small)
		if left != starterCredits-1 {
			t.Fatalf("balance %d, want %d", left, starterCredits-1)
		}
		r := h.Must(402, "POST", "/thumbnails/variations", small, map[string]any{"thumbnailId": own.ID, "count": left + 1})
		if r.Code != "insufficient_credits" {
			t.Fatalf("code %s", r.Raw)
		}
		var list []thumb
		h.Must(200, "GET", "/thumbnails?kind=variation&limit=100", small, nil).Into(t, &list)
		if len(list) != 0 {
			t.Fatalf("%d variations stored, want none", len(list))
		}
		if after := h.balance(small); after != left {
			t.Fatalf("balance %d -> %d after a refused request", left, after)
		}
		// The org's own: 3 and 10 variations above.
		h.Must(200, "GET", "/thumbnails?kind=variation&limit=100", org, nil).Into(t, &list)
		if len(list) != 13 {
			t.Fatalf("%d variations stored, want 13", len(list))
		}
	})
}

func TestInsufficientCredits(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("broke")
	r := h.Must(402, "POST", "/thumbnails", org, map[string]any{"prompt": "free lunch"})
	if r.Code != "insufficient_credits" {
		t.Fatalf("%s", r.Raw)
	}
	var list []thumb
	h.Must(200, "GET", "/thumbnails", org, nil).Into(t, &list)
	if len(list) != 0 || len(h.Objects("orgs/"+org+"/")) != 0 {
		t.Fatalf("stored %v, objects %v", list, h.Objects("orgs/"+org+"/"))
	}
	if b := h.balance(org); b != 0 {
		t.Fatalf("balance %d", b)
	}
}

// TestBadInput: every refused input is a 400 naming the field, made before
// anything is reserved, so nothing is charged.
func TestBadInput(t *testing.T) {
	site := testkit.ServeSite(t, map[string]testkit.File{
		"/ok.png":   {ContentType: "image/png", Body: testkit.GradientPNG(t, 64, 64)},
		"/text.png": {ContentType: "image/png", Body: []byte("just text, not a picture")},
		"/big.png":  {ContentType: "image/png", Body: append(testkit.GradientPNG(t, 64, 64), make([]byte, 6<<20)...)},
	})
	h := newHarness(t, "HOOKLINE_FETCH_ALLOW_HOSTS", site.Host)
	org := h.openAccount("pro")
	tooMany := make([]string, 11)
	for i := range tooMany {
		tooMany[i] = site.URL + "/ok.png"
	}
	faces := make([]string, 11)
	for i := range faces {
		faces[i] = uuid.NewString()
	}
	dup := uuid.NewString()
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no prompt", map[string]any{}, "prompt"},
		{"empty prompt", map[string]any{"prompt": "   "}, "prompt"},
		{"long prompt", map[string]any{"prompt": strings.Repeat("日", 2001)}, "prompt"},
		{"prompt not a string", map[string]any{"prompt": 5}, "prompt"},
		{"control characters", map[string]any{"prompt": "a\x00b"}, "prompt"},
		{"bad aspect", map[string]any{"prompt": "x", "aspectRatio": "4:3"}, "aspectRatio"},
		{"malformed style", map[string]any{"prompt": "x", "styleId": "style-1"}, "styleId"},
		{"malformed brand", map[string]any{"prompt": "x", "brandId": ""}, "brandId"},
		{"malformed collection", map[string]any{"prompt": "x", "collectionId": "c"}, "collectionId"},
		{"malformed face", map[string]any{"prompt": "x", "faceIds": []string{uuid.NewString(), uuid.NewString(), "nope"}}, "faceIds[2]"},
		{"duplicate face", map[string]any{"prompt": "x", "faceIds": []string{dup, dup}}, "faceIds[1]"},
		{"too many faces", map[string]any{"prompt": "x", "faceIds": faces}, "faceIds"},
		{"too many references", map[string]any{"prompt": "x", "referenceImageUrls": tooMany}, "referenceImageUrls"},
		{"private address", map[string]any{"prompt": "x", "referenceImageUrls": []string{"http://10.1.2.3/a.png"}}, "referenceImageUrls[0]"},
		{"loopback", map[string]any{"prompt": "x", "referenceImageUrls": []string{site.URL + "/ok.png", "http://127.0.0.1:1/a.png"}}, "referenceImageUrls[1]"},
		{"not an image", map[string]any{"prompt": "x", "referenceImageUrls": []string{site.URL + "/text.png"}}, "referenceImageUrls[0]"},
		{"6 MB", map[string]any{"prompt": "x", "referenceImageUrls": []string{site.URL + "/big.png"}}, "referenceImageUrls[0]"},
		{"not a URL", map[string]any{"prompt": "x", "referenceImageUrls": []string{"ftp://x/y.png"}}, "referenceImageUrls[0]"},
		{"unknown field", map[string]any{"prompt": "x", "seed": 4}, "seed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.Must(400, "POST", "/thumbnails", org, tc.body)
			if r.Code != "invalid_request" || r.Field(tc.field) == "" {
				t.Fatalf("%s: want details.fields[%q]", r.Raw, tc.field)
			}
		})
	}
	h.Must(400, "POST", "/thumbnails", org, `{"prompt": "x"`)
	h.Must(400, "POST", "/thumbnails", org, `{"prompt": "x"} {}`)
	if n := h.reservations(org); n != 0 {
		t.Fatalf("%d reservations made for bad input", n)
	}
	if b := h.balance(org); b != proCredits {
		t.Fatalf("balance %d, want %d", b, proCredits)
	}
	// The allowed test site serves a good reference: the same body passes.
	th := h.generate(org, map[string]any{"prompt": "with a reference", "referenceImageUrls": []string{site.URL + "/ok.png"}})
	h.checkPicture(th.ImageURL, 1280, 720)
}

// TestReadModel: styles, brands, faces and collections named by a request
// are resolved from the assets events the service consumed.
func TestReadModel(t *testing.T) {
	h := newHarness(t)
	org, other := h.openAccount("pro"), h.openAccount("pro")
	styleID, brandID, faceID, collID := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	crop := h.PutObject(fmt.Sprintf("orgs/%s/faces/%s/thumb.png", org, faceID), "image/png", testkit.GradientPNG(t, 256, 256))
	h.assetEvent(events.AssetsStyleCreated, org, events.StyleChanged{StyleID: styleID, Name: "Neon", Profile: events.StyleProfile{
		Palette: []events.Swatch{{Hex: "#ff00aa", Weight: 0.6}, {Hex: "#101030", Weight: 0.4}}, Brightness: 0.4, Contrast: 0.7, Saturation: 0.8}})
	h.assetEvent(events.AssetsBrandCreated, org, events.BrandChanged{BrandID: brandID, Name: "Acme", Colors: []string{"#00ff00", "#000000"}})
	h.assetEvent(events.AssetsFaceCreated, org, events.FaceChanged{FaceID: faceID, Name: "Me", ImageURLs: []string{crop}, ThumbnailURL: crop})
	h.assetEvent(events.AssetsCollectionCreated, org, events.CollectionChanged{CollectionID: collID, Name: "Launch"})

	body := map[string]any{"prompt": "All in", "styleId": styleID, "brandId": brandID, "faceIds": []string{faceID}, "collectionId": collID}
	th := h.generate(org, body)
	if *th.StyleID != styleID || *th.BrandID != brandID || !slices.Equal(th.FaceIDs, []string{faceID}) || *th.CollectionID != collID {
		t.Fatalf("thumbnail %+v", th)
	}
	h.checkPicture(th.ImageURL, 1280, 720)
	var created bool
	for _, e := range h.StreamEvents(events.StreamThumbnails) {
		var c events.ThumbnailCreated
		if e.Type == events.ThumbnailsThumbnailCreated && e.Decode(&c) == nil && c.ThumbnailID == th.ID {
			created = c.CollectionID == collID && c.ImageURL == th.ImageURL && c.Prompt == "All in"
		}
	}
	if !created {
		t.Fatal("thumbnails.thumbnail.created.v1 without the collection")
	}
	var list []thumb
	h.Must(200, "GET", "/thumbnails?collectionId="+collID, org, nil).Into(t, &list)
	if len(list) != 1 || list[0].ID != th.ID {
		t.Fatalf("collection filter %+v", list)
	}

	t.Run("another organization's records are not found", func(t *testing.T) {
		before := h.reservations(other)
		r := h.Must(404, "POST", "/thumbnails", other, body)
		for _, f := range []string{"styleId", "brandId", "faceIds[0]", "collectionId"} {
			if r.Field(f) == "" {
				t.Errorf("%s does not name %s", r.Raw, f)
			}
		}
		h.Must(404, "POST", "/templates/7e3b0c2a-5d1f-4c8e-9a60-000000000001/remix", other, map[string]any{"styleId": styleID})
		if h.reservations(other) != before {
			t.Fatal("a 404 reserved credits")
		}
		// An event of another organization about the same id changes nothing.
		h.assetEvent(events.AssetsStyleUpdated, other, events.StyleChanged{StyleID: styleID, Name: "Stolen"})
		h.Must(404, "POST", "/thumbnails", other, map[string]any{"prompt": "x", "styleId": styleID})
		h.generate(org, map[string]any{"prompt": "still mine", "styleId": styleID})
	})

	t.Run("deleted records are not found, older events do not bring them back", func(t *testing.T) {
		older := h.Envelope(events.AssetsBrandUpdated, "assets", org, events.BrandChanged{BrandID: brandID, Name: "Old"})
		h.assetEvent(events.AssetsBrandDeleted, org, events.BrandDeleted{BrandID: brandID})
		h.assetEvent(events.AssetsFaceDeleted, org, events.FaceDeleted{FaceID: faceID})
		h.assetEvent(events.AssetsCollectionDeleted, org, events.CollectionDeleted{CollectionID: collID})
		h.Publish(older)
		h.assetEvent(events.AssetsStyleDeleted, org, events.StyleDeleted{StyleID: styleID})
		r := h.Must(404, "POST", "/thumbnails", org, body)
		for _, f := range []string{"styleId", "brandId", "faceIds[0]", "collectionId"} {
			if r.Field(f) == "" {
				t.Errorf("%s does not name %s", r.Raw, f)
			}
		}
		// The variation of a thumbnail whose records are gone still works.
		var vs []thumb
		h.Must(201, "POST", "/thumbnails/variations", org, map[string]any{"thumbnailId": th.ID, "count": 1}).Into(t, &vs)
		if len(vs) != 1 || *vs[0].StyleID != styleID {
			t.Fatalf("variation %+v", vs)
		}
	})
}
