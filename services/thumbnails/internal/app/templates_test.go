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

func TestTemplatesAndRemix(t *testing.T) {
	h := newHarness(t)
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

	t.Run("previews are rendered at start-up", func(t *testing.T) {
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
		w, hh := 1280, 720
		if all[0].AspectRatio == "9:16" {
			w, hh = hh, w
		}
		h.checkPicture(*all[0].PreviewURL, w, hh)
	})

	t.Run("remix every template", func(t *testing.T) {
		before := h.balance(org)
		n := min(len(all), proCredits-5)
		for _, tp := range all[:n] {
			var th thumb
			rr := h.Must(201, "POST", "/templates/"+tp.ID+"/remix", org, map[string]any{"headline": "Remix " + tp.Name})
			checkFields(t, rr.Data)
			rr.Into(t, &th)
			if th.Kind != "remix" || th.TemplateID == nil || *th.TemplateID != tp.ID || th.AspectRatio != tp.AspectRatio || th.Prompt != "Remix "+tp.Name {
				t.Fatalf("remix of %s: %+v", tp.Name, th)
			}
			w, hh := 1280, 720
			if tp.AspectRatio == "9:16" {
				w, hh = hh, w
			}
			h.checkPicture(th.ImageURL, w, hh)
		}
		if after := h.balance(org); after != before-int64(n) {
			t.Fatalf("balance %d -> %d after %d remixes", before, after, n)
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
