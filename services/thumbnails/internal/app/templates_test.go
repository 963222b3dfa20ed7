package app_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/testkit"
)

type templateRec struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Category    string  `json:"category"`
	Description string  `json:"description"`
	PreviewURL  *string `json:"previewUrl"`
	AspectRatio string  `json:"aspectRatio"`
	Slots       []struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	} `json:"slots"`
}

func (h *harness) templates(org, query string) ([]templateRec, testkit.Response) {
	h.T.Helper()
	var ts []templateRec
	r := h.Must(200, "GET", "/templates"+query, org, nil)
	r.Into(h.T, &ts)
	return ts, r
}

// firstOfEachAspect is the first template of each aspect in ts's order.
func firstOfEachAspect(ts []templateRec) []templateRec {
	var out []templateRec
	seen := map[string]bool{}
	for _, tp := range ts {
		if !seen[tp.AspectRatio] {
			seen[tp.AspectRatio] = true
			out = append(out, tp)
		}
	}
	return out
}

// sizeOf is the picture size of aspect: 1280×720 or 720×1280.
func sizeOf(aspect string) (int, int) {
	if aspect == "9:16" {
		return 720, 1280
	}
	return 1280, 720
}

// TestTemplatesAndRemix: the catalogue lists, filters and pages; the
// previews missing at start-up are rendered; a remix of a template of
// each aspect is a picture of the template's aspect, charged a credit.
// That every seeded template renders, as a preview and as a remix, is
// compose's TestSeededTemplatesRender (without -race: the 30 previews and
// 25 remixes drawn here took most of this test's time).
func TestTemplatesAndRemix(t *testing.T) {
	h := startHarness(t, previewsRecorded(t, true))
	org := h.openAccount("pro")
	all, r := h.templates(org, "?limit=100")
	if len(all) < 24 || r.Page.Total != len(all) {
		t.Fatalf("%d templates, total %d", len(all), r.Page.Total)
	}
	categories := map[string]bool{}
	for _, tp := range all {
		categories[tp.Category] = true
		if tp.Name == "" || tp.Description == "" || (tp.AspectRatio != "16:9" && tp.AspectRatio != "9:16") || len(tp.Slots) == 0 {
			t.Errorf("template %+v", tp)
		}
	}
	if len(categories) < 8 {
		t.Errorf("%d categories", len(categories))
	}
	gaming, _ := h.templates(org, "?category=gaming")
	if len(gaming) == 0 {
		t.Fatal("no gaming templates")
	}
	for _, tp := range gaming {
		if tp.Category != "gaming" {
			t.Fatalf("filter gave %+v", tp)
		}
	}
	if none, _ := h.templates(org, "?category=knitting"); len(none) != 0 {
		t.Fatalf("unknown category lists %+v", none)
	}
	if r := h.Must(400, "GET", "/templates?category=Bad%20Category", org, nil); r.Field("category") == "" {
		t.Fatalf("%s", r.Raw)
	}
	first, _ := h.templates(org, "?limit=2&page=1")
	if len(first) != 2 || first[0].ID != all[0].ID || first[1].ID != all[1].ID {
		t.Fatal("pages do not follow the catalogue order")
	}
	some := firstOfEachAspect(all)
	if len(some) != 2 {
		t.Fatalf("templates of %d aspects, want 2", len(some))
	}

	t.Run("previews are rendered at start-up", func(t *testing.T) {
		// The first template of each aspect started without a preview
		// (previewsRecorded); the service draws them.
		testkit.Eventually(t, 3*time.Minute, "every preview rendered", func() bool {
			ts, _ := h.templates(org, "?limit=100")
			for _, tp := range ts {
				if tp.PreviewURL == nil {
					return false
				}
			}
			all = ts
			return true
		})
		for _, tp := range firstOfEachAspect(all) {
			w, hh := sizeOf(tp.AspectRatio)
			h.checkPicture(*tp.PreviewURL, w, hh)
		}
	})

	t.Run("remix a template of each aspect", func(t *testing.T) {
		before := h.balance(org)
		for _, tp := range some {
			var th thumb
			rr := h.Must(201, "POST", "/templates/"+tp.ID+"/remix", org, map[string]any{"headline": "Remix " + tp.Name})
			checkFields(t, rr.Data)
			rr.Into(t, &th)
			if th.Kind != "remix" || th.TemplateID == nil || *th.TemplateID != tp.ID || th.AspectRatio != tp.AspectRatio || th.Prompt != "Remix "+tp.Name {
				t.Fatalf("remix of %s: %+v", tp.Name, th)
			}
			w, hh := sizeOf(tp.AspectRatio)
			h.checkPicture(th.ImageURL, w, hh)
		}
		if after := h.balance(org); after != before-int64(len(some)) {
			t.Fatalf("balance %d -> %d after %d remixes", before, after, len(some))
		}
	})

	t.Run("remix prompt, aspect and errors", func(t *testing.T) {
		tp := all[0]
		var th thumb
		h.Must(201, "POST", "/templates/"+tp.ID+"/remix", org, "{}").Into(t, &th)
		if th.Prompt != tp.Name {
			t.Fatalf("prompt %q, want the template name", th.Prompt)
		}
		h.Must(201, "POST", "/templates/"+tp.ID+"/remix", org, map[string]any{"prompt": "my idea", "headline": "BIG", "aspectRatio": "9:16"}).Into(t, &th)
		if th.Prompt != "my idea" || th.Width != 720 || th.Height != 1280 {
			t.Fatalf("remix %+v", th)
		}
		before := h.reservations(org)
		// The body is required, as the OpenAPI document says: none, or
		// null, is a 400 before any charge.
		for _, body := range []string{"", "null", " "} {
			if r := h.Must(400, "POST", "/templates/"+tp.ID+"/remix", org, body); r.Code != "invalid_request" {
				t.Errorf("body %q: %s", body, r.Raw)
			}
		}
		h.Must(404, "POST", "/templates/"+uuid.NewString()+"/remix", org, map[string]any{})
		h.Must(400, "POST", "/templates/nope/remix", org, map[string]any{})
		for body, field := range map[string]string{
			`{"headline": ""}`:       "headline",
			`{"prompt": "   "}`:      "prompt",
			`{"aspectRatio": "1:1"}`: "aspectRatio",
			`{"faceIds": ["x"]}`:     "faceIds[0]",
			`{"name": "x"}`:          "name",
		} {
			if r := h.Must(400, "POST", "/templates/"+tp.ID+"/remix", org, body); r.Field(field) == "" {
				t.Errorf("%s: %s", body, r.Raw)
			}
		}
		long := make([]rune, 101)
		for i := range long {
			long[i] = 'A'
		}
		if r := h.Must(400, "POST", "/templates/"+tp.ID+"/remix", org, map[string]any{"headline": string(long)}); r.Field("headline") == "" {
			t.Errorf("long headline: %s", r.Raw)
		}
		if h.reservations(org) != before {
			t.Fatal("refused remixes reserved credits")
		}
	})
}
