package app_test

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/testkit"
)

type brandRec struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Colors  []string `json:"colors"`
	LogoURL *string  `json:"logoUrl"`
	Fonts   []string `json:"fonts"`
	Domain  *string  `json:"domain"`
}

const brandPage = `<!doctype html>
<html><head>
<title>Greenleaf Garden Supplies</title>
<meta name="theme-color" content="#2A9D8F">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="/favicon.ico">
<link rel="icon" type="image/svg+xml" href="/logo.svg">
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Poppins:wght@400;600&display=swap">
</head><body><h1>Welcome</h1></body></html>`

const brandManifest = `{"name": "Greenleaf", "short_name": "GL", "theme_color": "#264653", "background_color": "#ffffff",
 "icons": [{"src": "/icons/icon-512.png", "sizes": "512x512", "type": "image/png"}]}`

func TestBrands(t *testing.T) {
	orange := color.RGBA{0xf4, 0xa2, 0x61, 255}
	web := testkit.ServeSite(t, map[string]testkit.File{
		"/":                     {ContentType: "text/html; charset=utf-8", Body: []byte(brandPage)},
		"/manifest.webmanifest": {ContentType: "application/manifest+json", Body: []byte(brandManifest)},
		"/icons/icon-512.png":   {ContentType: "image/png", Body: testkit.SolidPNG(t, 192, 192, orange)},
		"/to-metadata":          {Redirect: "http://169.254.169.254/latest/meta-data/"},
		"/to-loopback":          {Redirect: "http://localhost:1/x.png"},
		"/to-icon":              {Redirect: "/icons/icon-512.png"},
	})
	bare := testkit.ServeSite(t, map[string]testkit.File{"/": {ContentType: "text/html", Body: []byte("<html><head><title>Plain</title></head></html>")}})
	h := newHarness(t, "HOOKLINE_FETCH_ALLOW_HOSTS", web.Host+","+bare.Host)
	org := newOrg()

	t.Run("by hand", func(t *testing.T) {
		logo := h.upload(org, "logo.png", "image/png", testkit.SolidPNG(t, 64, 64, color.RGBA{1, 2, 3, 255}))
		var b brandRec
		h.Must(201, "POST", "/brands", org, map[string]any{"name": "Acme", "colors": []string{"#F60", "#000000", "#ff6600"}, "logoUrl": logo, "fonts": []string{"Inter"}}).Into(t, &b)
		if !slices.Equal(b.Colors, []string{"#ff6600", "#000000"}) || b.LogoURL == nil || !strings.HasSuffix(*b.LogoURL, "/orgs/"+org+"/brands/"+b.ID+"/logo.png") || b.Domain != nil || !slices.Equal(b.Fonts, []string{"Inter"}) {
			t.Fatalf("record %+v", b)
		}
		var nologo brandRec
		h.Must(201, "POST", "/brands", org, map[string]any{"name": "Plain", "colors": []string{"#123"}}).Into(t, &nologo)
		if nologo.LogoURL != nil || nologo.Fonts == nil {
			t.Fatalf("record %+v", nologo)
		}
		r := h.Must(400, "POST", "/brands", org, map[string]any{"name": "x", "colors": []string{"#12", "red", "#abcdef"}})
		if r.Field("colors[0]") == "" || r.Field("colors[1]") == "" || r.Field("colors[2]") != "" {
			t.Fatalf("colour failures %s", r.Raw)
		}
		h.Must(400, "POST", "/brands", org, map[string]any{"name": "x", "colors": make([]string, 9)})
		h.Must(400, "POST", "/brands", org, map[string]any{"name": "x"})
		h.Must(400, "POST", "/brands", org, map[string]any{"colors": []string{"#fff"}})
		h.Must(400, "POST", "/brands", org, map[string]any{"name": "x", "colors": []string{"#fff"}, "domain": web.URL})

		var p brandRec
		h.Must(200, "PATCH", "/brands/"+b.ID, org, map[string]any{"colors": []string{"#00FF00"}, "logoUrl": ""}).Into(t, &p)
		if !slices.Equal(p.Colors, []string{"#00ff00"}) || p.LogoURL != nil || p.Name != "Acme" {
			t.Fatalf("patched %+v", p)
		}
		if keys := h.Objects("orgs/" + org + "/brands/" + b.ID + "/"); len(keys) != 0 {
			t.Fatalf("removed logo still stored: %v", keys)
		}
		h.Must(400, "PATCH", "/brands/"+b.ID, org, map[string]any{"colors": []string{}})
		h.Must(204, "DELETE", "/brands/"+b.ID, org, nil)
		h.Must(404, "GET", "/brands/"+b.ID, org, nil)
	})

	t.Run("redirects are re-checked", func(t *testing.T) {
		for _, p := range []string{"/to-metadata", "/to-loopback"} {
			r := h.Must(400, "POST", "/brands", org, map[string]any{"name": "x", "colors": []string{"#fff"}, "logoUrl": web.URL + p})
			if !strings.Contains(r.Field("logoUrl"), "may not be fetched") {
				t.Errorf("redirect %s: %s", p, r.Raw)
			}
		}
		// A redirect within the allowed site is fine.
		h.Must(201, "POST", "/brands", org, map[string]any{"name": "x", "colors": []string{"#fff"}, "logoUrl": web.URL + "/to-icon"})
	})

	t.Run("import from a website", func(t *testing.T) {
		var b brandRec
		h.Must(201, "POST", "/brands", org, map[string]any{"domain": web.URL}).Into(t, &b)
		if b.Name != "Greenleaf" {
			t.Errorf("name %q, want the manifest's", b.Name)
		}
		for _, c := range []string{"#2a9d8f", "#264653", "#ffffff", "#f4a261"} {
			if !slices.Contains(b.Colors, c) {
				t.Errorf("colour %s missing from %v", c, b.Colors)
			}
		}
		if b.Colors[0] != "#2a9d8f" {
			t.Errorf("theme-color should come first: %v", b.Colors)
		}
		if b.LogoURL == nil || !strings.HasSuffix(*b.LogoURL, "/orgs/"+org+"/brands/"+b.ID+"/logo.png") {
			t.Fatalf("logo not imported into our bucket: %+v", b)
		}
		if st, _ := h.Fetch(*b.LogoURL); st != 200 {
			t.Fatalf("logo: %d", st)
		}
		if b.Domain == nil || *b.Domain != web.Host || !slices.Equal(b.Fonts, []string{"Poppins"}) {
			t.Fatalf("domain/fonts %+v", b)
		}

		// A bare host is tried over https first, then http; a name given
		// wins over the site's.
		var named brandRec
		h.Must(201, "POST", "/brands", org, map[string]any{"domain": web.Host, "name": "Mine"}).Into(t, &named)
		if named.Name != "Mine" || named.Colors[0] != "#2a9d8f" {
			t.Fatalf("bare host import %+v", named)
		}

		r := h.Must(400, "POST", "/brands", org, map[string]any{"domain": bare.URL})
		if !strings.Contains(r.Field("domain"), "no brand colours") {
			t.Fatalf("site without colours: %s", r.Raw)
		}
		r = h.Must(400, "POST", "/brands", org, map[string]any{"domain": web.URL + "/missing"})
		if !strings.Contains(r.Field("domain"), "could not be fetched") {
			t.Fatalf("missing page: %s", r.Raw)
		}

		// Re-import through PATCH.
		var p brandRec
		h.Must(200, "PATCH", "/brands/"+named.ID, org, map[string]any{"colors": []string{"#010101"}}).Into(t, &p)
		if p.Domain != nil {
			t.Fatalf("hand-edited brand still claims its domain: %+v", p)
		}
		h.Must(200, "PATCH", "/brands/"+named.ID, org, map[string]any{"domain": web.URL}).Into(t, &p)
		if p.Name != "Mine" || p.Colors[0] != "#2a9d8f" || p.Domain == nil || p.LogoURL == nil || *p.LogoURL == *named.LogoURL {
			t.Fatalf("re-import %+v", p)
		}
		if keys := h.Objects("orgs/" + org + "/brands/" + named.ID + "/"); len(keys) != 1 {
			t.Fatalf("old logo kept: %v", keys)
		}
	})
}
