package app_test

import (
	"image/color"
	"math"
	"strings"
	"testing"

	"hookline.dev/pkg/testkit"
)

type styleRec struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Description        *string  `json:"description"`
	ReferenceImageURLs []string `json:"referenceImageUrls"`
	Profile            struct {
		Palette []struct {
			Hex    string  `json:"hex"`
			Weight float64 `json:"weight"`
		} `json:"palette"`
		Brightness float64 `json:"brightness"`
		Contrast   float64 `json:"contrast"`
		Saturation float64 `json:"saturation"`
		Warmth     float64 `json:"warmth"`
	} `json:"profile"`
}

func (s styleRec) weight(hex string) float64 {
	for _, p := range s.Profile.Palette {
		if p.Hex == hex {
			return p.Weight
		}
	}
	return 0
}

func TestStyles(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	red := h.upload(org, "red.png", "image/png", testkit.SolidPNG(t, 1280, 720, color.RGBA{255, 0, 0, 255}))
	blue := h.upload(org, "blue.png", "image/png", testkit.SolidPNG(t, 1280, 720, color.RGBA{0, 0, 255, 255}))
	white := h.upload(org, "white.png", "image/png", testkit.SolidPNG(t, 64, 64, color.White))

	var s styleRec
	h.Must(201, "POST", "/styles", org, map[string]any{"name": "Red & Blue", "description": " bold ", "referenceImageUrls": []string{red, blue}}).Into(t, &s)
	if math.Abs(s.weight("#ff0000")-0.5) > 0.01 || math.Abs(s.weight("#0000ff")-0.5) > 0.01 {
		t.Fatalf("palette of solid red + solid blue: %+v", s.Profile.Palette)
	}
	if math.Abs(s.Profile.Saturation-1) > 0.01 || math.Abs(s.Profile.Warmth) > 0.01 || s.Profile.Contrast > 0.01 {
		t.Fatalf("tone of red + blue: %+v", s.Profile)
	}
	// Mean of the luminances of pure red (0.2126) and pure blue (0.0722).
	if math.Abs(s.Profile.Brightness-(0.2126+0.0722)/2) > 0.01 {
		t.Fatalf("brightness %v", s.Profile.Brightness)
	}
	if s.Description == nil || *s.Description != "bold" || len(s.ReferenceImageURLs) != 2 || !strings.Contains(s.ReferenceImageURLs[1], "/orgs/"+org+"/styles/"+s.ID+"/1.png") {
		t.Fatalf("record %+v", s)
	}
	var got styleRec
	h.Must(200, "GET", "/styles/"+s.ID, org, nil).Into(t, &got)
	if got.weight("#ff0000") != s.weight("#ff0000") || got.Profile.Brightness != s.Profile.Brightness {
		t.Fatalf("stored profile differs: %+v", got.Profile)
	}

	// Validation, like POST for PATCH.
	r := h.Must(400, "POST", "/styles", org, map[string]any{"name": "", "description": strings.Repeat("d", 1001), "referenceImageUrls": []string{}})
	for _, f := range []string{"name", "description", "referenceImageUrls"} {
		if r.Field(f) == "" {
			t.Errorf("no failure for %s: %s", f, r.Raw)
		}
	}
	h.Must(400, "PATCH", "/styles/"+s.ID, org, map[string]any{"description": strings.Repeat("d", 1001)})
	h.Must(400, "PATCH", "/styles/"+s.ID, org, map[string]any{})

	var patched styleRec
	h.Must(200, "PATCH", "/styles/"+s.ID, org, map[string]any{"referenceImageUrls": []string{white}, "description": ""}).Into(t, &patched)
	if patched.weight("#ffffff") != 1 || patched.Profile.Brightness < 0.99 || patched.Description != nil || patched.Name != "Red & Blue" {
		t.Fatalf("re-analysed profile %+v", patched)
	}
	if keys := h.Objects("orgs/" + org + "/styles/" + s.ID + "/"); len(keys) != 1 {
		t.Fatalf("replaced references still stored: %v", keys)
	}
	var list []styleRec
	h.Must(200, "GET", "/styles", org, nil).Into(t, &list)
	if len(list) != 1 || list[0].ID != s.ID {
		t.Fatalf("list %+v", list)
	}
	h.Must(204, "DELETE", "/styles/"+s.ID, org, nil)
	h.Must(404, "GET", "/styles/"+s.ID, org, nil)
	if keys := h.Objects("orgs/" + org + "/styles/"); len(keys) != 0 {
		t.Fatalf("objects left: %v", keys)
	}
}
