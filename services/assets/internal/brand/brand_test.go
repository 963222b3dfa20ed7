package brand

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func ptr[T any](v T) *T { return &v }

func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	var ae *apierr.Error
	if !apierr.Is(err, apierr.InvalidRequest) || !errors.As(err, &ae) {
		t.Fatalf("want 400, got %v", err)
	}
	fs, _ := ae.Details["fields"].(map[string]string)
	return fs
}

func TestNormalizeHex(t *testing.T) {
	for in, want := range map[string]string{"#FF6600": "#ff6600", "f60": "#ff6600", " #AbC ": "#aabbcc", "#000000": "#000000"} {
		if got, ok := NormalizeHex(in); !ok || got != want {
			t.Errorf("NormalizeHex(%q) = %q %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "#", "#ff66", "#gg0000", "red", "#ff660000", "rgb(1,2,3)"} {
		if _, ok := NormalizeHex(in); ok {
			t.Errorf("NormalizeHex(%q) accepted", in)
		}
	}
}

func TestParseCSSColor(t *testing.T) {
	for in, want := range map[string]string{
		"#1E90FF":               "#1e90ff",
		"#abc":                  "#aabbcc",
		"#abcd":                 "#aabbcc",
		"#11223344":             "#112233",
		"rgb(255, 0, 128)":      "#ff0080",
		"rgba(0,0,255,0.5)":     "#0000ff",
		"rgb(100% 0% 0% / 50%)": "#ff0000",
		"hsl(120, 100%, 25%)":   "#008000",
		"hsl(0deg 100% 50%)":    "#ff0000",
		"RebeccaPurple":         "#663399",
		"  white ":              "#ffffff",
	} {
		if got, ok := ParseCSSColor(in); !ok || got != want {
			t.Errorf("ParseCSSColor(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"transparent", "", "notacolor", "rgb(1,2)", "#12", "url(x)"} {
		if got, ok := ParseCSSColor(in); ok {
			t.Errorf("ParseCSSColor(%q) = %q", in, got)
		}
	}
}

func TestValidateCreate(t *testing.T) {
	v, err := Draft{Name: ptr(" Acme "), Colors: ptr([]string{"#F60", "#ff6600", "#000"}), Fonts: ptr([]string{" Inter "})}.ValidateCreate()
	if err != nil || *v.Name != "Acme" || !reflect.DeepEqual(*v.Colors, []string{"#ff6600", "#000000"}) || (*v.Fonts)[0] != "Inter" || v.Import != nil {
		t.Fatalf("%+v %v", v, err)
	}
	v, err = Draft{Domain: ptr("Example.COM")}.ValidateCreate()
	if err != nil || v.Import == nil || v.Import.Host != "example.com" || len(v.Import.URLs) != 2 || v.Import.URLs[0] != "https://example.com/" {
		t.Fatalf("import: %+v %v", v.Import, err)
	}
	v, err = Draft{Domain: ptr("http://127.0.0.1:8080/shop")}.ValidateCreate()
	if err != nil || v.Import.URLs[0] != "http://127.0.0.1:8080/shop" || v.Import.Host != "127.0.0.1:8080" {
		t.Fatalf("import url: %+v %v", v.Import, err)
	}

	cases := []struct {
		d      Draft
		fields []string
	}{
		{Draft{}, []string{"colors"}},
		{Draft{Colors: ptr([]string{"#fff"})}, []string{"name"}},
		{Draft{Name: ptr("a"), Colors: ptr([]string{})}, []string{"colors"}},
		{Draft{Name: ptr("a"), Colors: ptr(make([]string, 9))}, []string{"colors"}},
		{Draft{Name: ptr("a"), Colors: ptr([]string{"#fff", "blue"})}, []string{"colors[1]"}},
		{Draft{Name: ptr("a"), Colors: ptr([]string{"#fff"}), LogoURL: ptr("javascript:alert(1)")}, []string{"logoUrl"}},
		{Draft{Name: ptr("a"), Colors: ptr([]string{"#fff"}), LogoURL: ptr("")}, []string{"logoUrl"}},
		{Draft{Name: ptr("a"), Colors: ptr([]string{"#fff"}), Fonts: ptr([]string{""})}, []string{"fonts[0]"}},
		{Draft{Domain: ptr("example.com"), Colors: ptr([]string{"#fff"})}, []string{"colors"}},
		{Draft{Domain: ptr("not a domain")}, []string{"domain"}},
		{Draft{Domain: ptr("ftp://example.com")}, []string{"domain"}},
		{Draft{Domain: ptr("")}, []string{"domain"}},
		{Draft{Domain: ptr("example.com"), Name: ptr(strings.Repeat("n", 101))}, []string{"name"}},
	}
	for i, c := range cases {
		_, err := c.d.ValidateCreate()
		fs := fieldsOf(t, err)
		for _, f := range c.fields {
			if fs[f] == "" {
				t.Errorf("case %d: no failure for %s: %v", i, f, fs)
			}
		}
	}
}

func TestValidatePatch(t *testing.T) {
	if _, err := (Draft{}).ValidatePatch(); !apierr.Is(err, apierr.InvalidRequest) {
		t.Fatal("empty patch accepted")
	}
	v, err := Draft{LogoURL: ptr("")}.ValidatePatch()
	if err != nil || *v.LogoURL != "" {
		t.Fatalf("removing the logo: %v", err)
	}
	if _, err := (Draft{Colors: ptr([]string{"zz"})}).ValidatePatch(); fieldsOf(t, err)["colors[0]"] == "" {
		t.Fatal("bad colour accepted")
	}
}

const page = `<!doctype html><html><head>
<title>  Acme   Rockets </title>
<base href="/static/">
<meta name="theme-color" content="#E63946" media="(prefers-color-scheme: light)">
<meta name="theme-color" content="rgb(29, 53, 87)">
<meta name="msapplication-TileColor" content="#e63947">
<meta property="og:image" content="https://cdn.example.com/og.jpg">
<meta property="og:site_name" content="Acme">
<link rel="manifest" href="site.webmanifest">
<link rel="icon" href="favicon.ico" sizes="48x48">
<link rel="icon" type="image/png" href="icon-32.png" sizes="32x32">
<link rel="apple-touch-icon" href="/apple.png">
<link rel="mask-icon" href="mask.svg">
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter:wght@400;700&family=Open+Sans&display=swap">
<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto:400,700|Lato">
</head><body><meta name="theme-color" content="#00ff00"></body></html>`

func TestParsePage(t *testing.T) {
	p := ParsePage([]byte(page), "https://acme.example/home")
	if p.Title != "Acme Rockets" || p.SiteName != "Acme" {
		t.Errorf("names: %q %q", p.Title, p.SiteName)
	}
	// The tile colour is a near-duplicate of the first theme colour; the
	// body's meta is past <head> and ignored.
	if !reflect.DeepEqual(p.ThemeColors, []string{"#e63946", "#1d3557"}) {
		t.Errorf("theme colours %v", p.ThemeColors)
	}
	if p.ManifestURL != "https://acme.example/static/site.webmanifest" {
		t.Errorf("manifest %q", p.ManifestURL)
	}
	if p.OGImage != "https://cdn.example.com/og.jpg" {
		t.Errorf("og:image %q", p.OGImage)
	}
	if !reflect.DeepEqual(p.Fonts, []string{"Inter", "Open Sans", "Roboto", "Lato"}) {
		t.Errorf("fonts %v", p.Fonts)
	}
	if len(p.Icons) != 3 {
		t.Fatalf("icons %+v", p.Icons)
	}
	man := ParseManifest([]byte(`{"name":"Acme Rockets Inc","short_name":"Acme","theme_color":"#457b9d","background_color":"white",
		"icons":[{"src":"/i/192.png","sizes":"192x192","type":"image/png"},{"src":"/i/512.png","sizes":"512x512","type":"image/png"},
		{"src":"/i/mono.png","sizes":"1024x1024","purpose":"monochrome"},{"src":"/i/vec.svg","sizes":"any","type":"image/svg+xml"}]}`),
		"https://acme.example/static/site.webmanifest")
	if man.Name != "Acme Rockets Inc" || man.ThemeColor != "#457b9d" || man.BackgroundColor != "#ffffff" || len(man.Icons) != 3 {
		t.Fatalf("manifest %+v", man)
	}
	got := LogoCandidates(p, man, "https://acme.example/home")
	want := []string{"https://acme.example/i/512.png", "https://acme.example/i/192.png", "https://acme.example/apple.png",
		"https://acme.example/static/icon-32.png", "https://cdn.example.com/og.jpg"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates\n got %v\nwant %v", got, want)
	}

	imp, ok := Compose(nil, Site{Host: "acme.example"}, p, man, []Swatch{{Hex: "#ffffff", Weight: 0.6}, {Hex: "#ff8800", Weight: 0.3}, {Hex: "#123456", Weight: 0.01}})
	if !ok || imp.Name != "Acme Rockets Inc" {
		t.Fatalf("compose %+v", imp)
	}
	if !reflect.DeepEqual(imp.Colors, []string{"#e63946", "#1d3557", "#457b9d", "#ffffff", "#ff8800"}) {
		t.Errorf("colours %v", imp.Colors)
	}
	imp, _ = Compose(ptr("Mine"), Site{Host: "acme.example"}, p, man, nil)
	if imp.Name != "Mine" {
		t.Errorf("explicit name lost: %q", imp.Name)
	}
	if _, ok := Compose(nil, Site{Host: "x"}, Page{}, Manifest{}, nil); ok {
		t.Error("a site without colours composed")
	}
	imp, _ = Compose(nil, Site{Host: "bare.example"}, Page{ThemeColors: []string{"#010203"}}, Manifest{}, nil)
	if imp.Name != "bare.example" {
		t.Errorf("fallback name %q", imp.Name)
	}
	// A site's own text is cleaned, not refused: the client cannot fix it.
	imp, _ = Compose(nil, Site{Host: "x"}, Page{ThemeColors: []string{"#010203"}, Fonts: []string{"In\x00ter", "\x1b"}},
		Manifest{Name: "\x00\x00Acme\x00 \xffRockets"}, nil)
	if imp.Name != "Acme \uFFFDRockets" || !reflect.DeepEqual(imp.Fonts, []string{"Inter"}) {
		t.Errorf("cleaned import: name %q fonts %q", imp.Name, imp.Fonts)
	}
}

func TestParseGarbage(t *testing.T) {
	// Neither parser may fail on hostile input; they return what they can.
	_ = ParsePage([]byte("<meta name=theme-color content=#fff><<<>>>\x00"), "https://x.example/")
	_ = ParsePage(nil, "::bad")
	if m := ParseManifest([]byte("{not json"), "https://x.example/m.json"); m.Name != "" {
		t.Fatal("garbage manifest parsed")
	}
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte(page))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := ParsePage(b, "https://x.example/")
		if len(p.ThemeColors) > MaxColors {
			t.Fatal("too many colours")
		}
		_ = LogoCandidates(p, ParseManifest(b, "https://x.example/m"), "https://x.example/")
	})
}
