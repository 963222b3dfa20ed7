package brand

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hookline.dev/pkg/platform/textcheck"
)

// Page is what an import reads from a site's HTML.
type Page struct {
	Title       string
	SiteName    string   // og:site_name or application-name
	ThemeColors []string // normalised, in page order
	ManifestURL string   // absolute, "" if none
	Icons       []Icon   // <link rel=icon|apple-touch-icon ...>
	OGImage     string   // absolute og:image, "" if none
	Fonts       []string // Google Fonts families linked by the page
}

// Icon is a candidate logo image.
type Icon struct {
	URL  string // absolute
	Size int    // the larger side declared in sizes, 0 if unknown
	Type string // declared media type, "" if none
	rank int    // source preference: lower is better
}

// Manifest is what an import reads from a web app manifest.
type Manifest struct {
	Name            string
	ShortName       string
	ThemeColor      string // normalised, "" if none
	BackgroundColor string
	Icons           []Icon
}

// maxScan bounds the HTML tokens read: brand metadata lives in <head>.
const maxScan = 20_000

// ParsePage extracts brand metadata from an HTML document fetched from
// pageURL. Relative links are resolved against pageURL (or <base href>).
func ParsePage(doc []byte, pageURL string) Page {
	var p Page
	base, err := url.Parse(pageURL)
	if err != nil {
		return p
	}
	z := html.NewTokenizer(bytes.NewReader(doc))
	inTitle := false
	for range maxScan {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return p
		case html.TextToken:
			if inTitle && p.Title == "" {
				p.Title = strings.Join(strings.Fields(string(z.Text())), " ")
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Title:
				inTitle = false
			case atom.Head:
				// Everything an import needs is in <head>; stopping here
				// keeps a huge body from costing anything.
				return p
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title && tt == html.StartTagToken {
				inTitle = true
				continue
			}
			if a == atom.Body {
				return p
			}
			if !hasAttr {
				continue
			}
			attrs := map[string]string{}
			for {
				k, v, more := z.TagAttr()
				key := string(k)
				if _, dup := attrs[key]; !dup {
					attrs[key] = string(v)
				}
				if !more {
					break
				}
			}
			switch a {
			case atom.Base:
				if href := attrs["href"]; href != "" {
					if b, err := base.Parse(href); err == nil {
						base = b
					}
				}
			case atom.Meta:
				p.meta(attrs, base)
			case atom.Link:
				p.link(attrs, base)
			}
		}
	}
	return p
}

func (p *Page) meta(attrs map[string]string, base *url.URL) {
	name := strings.ToLower(strings.TrimSpace(attrs["name"]))
	prop := strings.ToLower(strings.TrimSpace(attrs["property"]))
	content := strings.TrimSpace(attrs["content"])
	if content == "" {
		return
	}
	switch {
	case name == "theme-color" || name == "msapplication-tilecolor":
		if c, ok := ParseCSSColor(content); ok {
			p.ThemeColors = appendColor(p.ThemeColors, c)
		}
	case prop == "og:image" || prop == "og:image:url" || prop == "og:image:secure_url":
		if p.OGImage == "" {
			p.OGImage = resolve(base, content)
		}
	case prop == "og:site_name" || name == "application-name":
		if p.SiteName == "" {
			p.SiteName = content
		}
	}
}

func (p *Page) link(attrs map[string]string, base *url.URL) {
	href := strings.TrimSpace(attrs["href"])
	if href == "" {
		return
	}
	rels := strings.Fields(strings.ToLower(attrs["rel"]))
	for _, rel := range rels {
		switch rel {
		case "manifest":
			if p.ManifestURL == "" {
				p.ManifestURL = resolve(base, href)
			}
		case "apple-touch-icon", "apple-touch-icon-precomposed":
			p.Icons = append(p.Icons, Icon{URL: resolve(base, href), Size: maxSize(attrs["sizes"], 180), Type: attrs["type"], rank: 1})
		case "icon":
			p.Icons = append(p.Icons, Icon{URL: resolve(base, href), Size: maxSize(attrs["sizes"], 0), Type: attrs["type"], rank: 2})
		case "stylesheet", "preload", "preconnect":
			p.Fonts = appendFonts(p.Fonts, href)
		}
	}
}

// ParseManifest reads a web app manifest fetched from manifestURL.
func ParseManifest(doc []byte, manifestURL string) Manifest {
	var raw webManifest
	var m Manifest
	if err := json.Unmarshal(doc, &raw); err != nil {
		return m
	}
	base, err := url.Parse(manifestURL)
	if err != nil {
		return m
	}
	m.Name, m.ShortName = strings.TrimSpace(raw.Name), strings.TrimSpace(raw.ShortName)
	m.ThemeColor, _ = ParseCSSColor(raw.ThemeColor)
	m.BackgroundColor, _ = ParseCSSColor(raw.BackgroundColor)
	for _, ic := range raw.Icons {
		if strings.TrimSpace(ic.Src) == "" || strings.Contains(ic.Purpose, "monochrome") {
			continue
		}
		m.Icons = append(m.Icons, Icon{URL: resolve(base, ic.Src), Size: maxSize(ic.Sizes, 0), Type: ic.Type})
	}
	return m
}

// MaxLogoCandidates bounds the images an import tries as the logo.
const MaxLogoCandidates = 5

// LogoCandidates orders the images that may serve as the logo: manifest
// icons, touch icons and icons, larger first, then og:image (often a banner
// rather than a logo) and the conventional /apple-touch-icon.png. Formats we
// cannot store (SVG, ICO, GIF, WebP) are skipped by their declared type or
// extension; the rest are verified when fetched.
func LogoCandidates(page Page, man Manifest, pageURL string) []string {
	var icons []Icon
	icons = append(icons, man.Icons...)
	icons = append(icons, page.Icons...)
	sort.SliceStable(icons, func(i, j int) bool {
		if icons[i].Size != icons[j].Size {
			return icons[i].Size > icons[j].Size
		}
		return icons[i].rank < icons[j].rank
	})
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		if u != "" && !seen[u] && len(out) < MaxLogoCandidates && rasterOK(u) {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, ic := range icons {
		if t := strings.ToLower(ic.Type); t != "" && t != "image/png" && t != "image/jpeg" && t != "image/jpg" {
			continue
		}
		add(ic.URL)
	}
	add(page.OGImage)
	if base, err := url.Parse(pageURL); err == nil {
		add(resolve(base, "/apple-touch-icon.png"))
	}
	return out
}

func rasterOK(u string) bool {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") {
		return false
	}
	switch strings.ToLower(path.Ext(pu.Path)) {
	case ".svg", ".ico", ".gif", ".webp", ".avif", ".bmp":
		return false
	}
	return true
}

// Imported is the result of an import.
type Imported struct {
	Name   string
	Colors []string
	Fonts  []string
}

// minLogoWeight is the least share of the logo a palette colour must cover
// to count as a brand colour; smaller ones are anti-aliasing and detail.
const minLogoWeight = 0.08

// Swatch is a logo palette colour with its share, as measured by the style
// analysis.
type Swatch struct {
	Hex    string
	Weight float64
}

// Compose decides an imported brand: colours from theme-color, the
// manifest's theme and background colours, then the logo's palette (at most
// MaxColors, near-duplicates dropped); the name from the request, else the
// manifest, og:site_name, the title or the host. ok is false when the site
// offers no colour at all.
func Compose(name *string, site Site, page Page, man Manifest, logo []Swatch) (Imported, bool) {
	var out Imported
	for _, c := range page.ThemeColors {
		out.Colors = appendColor(out.Colors, c)
	}
	out.Colors = appendColor(out.Colors, man.ThemeColor)
	out.Colors = appendColor(out.Colors, man.BackgroundColor)
	for _, s := range logo {
		if s.Weight >= minLogoWeight {
			out.Colors = appendColor(out.Colors, s.Hex)
		}
	}
	switch {
	case name != nil:
		out.Name = *name
	default:
		for _, n := range []string{man.Name, man.ShortName, page.SiteName, page.Title, site.Host} {
			// Site text is not the client's to fix, so it is cleaned
			// rather than refused.
			if n = strings.TrimSpace(textcheck.Clean(n, false)); n != "" {
				out.Name = truncate(n, 100)
				break
			}
		}
	}
	for _, font := range page.Fonts {
		if font = strings.TrimSpace(textcheck.Clean(font, false)); font != "" && len(out.Fonts) < MaxFonts {
			out.Fonts = append(out.Fonts, font)
		}
	}
	return out, len(out.Colors) > 0
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n]))
}

// appendColor adds c unless it is empty, the list is full or a similar
// colour is already there.
func appendColor(list []string, c string) []string {
	if c == "" || len(list) >= MaxColors {
		return list
	}
	for _, have := range list {
		if similar(have, c) {
			return list
		}
	}
	return append(list, c)
}

func resolve(base *url.URL, ref string) string {
	u, err := base.Parse(strings.TrimSpace(ref))
	if err != nil {
		return ""
	}
	u.Fragment = ""
	return u.String()
}

// maxSize reads the larger side from a sizes attribute ("192x192 512x512"),
// or def when there is none.
func maxSize(sizes string, def int) int {
	best := 0
	for _, s := range strings.Fields(strings.ToLower(sizes)) {
		w, h, ok := strings.Cut(s, "x")
		if !ok {
			continue
		}
		a, err1 := strconv.Atoi(w)
		b, err2 := strconv.Atoi(h)
		if err1 == nil && err2 == nil {
			best = max(best, a, b)
		}
	}
	if best == 0 {
		return def
	}
	return best
}

// appendFonts adds the families of a Google Fonts stylesheet link:
// css?family=Open+Sans:400,700|Roboto or css2?family=Inter:wght@400&family=Lato.
func appendFonts(list []string, href string) []string {
	u, err := url.Parse(href)
	if err != nil || !strings.EqualFold(u.Hostname(), "fonts.googleapis.com") {
		return list
	}
	// url.Query drops pairs holding ";", which css2 weights use
	// (wght@400;700), so the pairs are split by hand.
	var fams []string
	for _, pair := range strings.Split(u.RawQuery, "&") {
		if v, ok := strings.CutPrefix(pair, "family="); ok {
			if un, err := url.QueryUnescape(v); err == nil {
				fams = append(fams, un)
			}
		}
	}
	for _, fam := range fams {
		for _, f := range strings.Split(fam, "|") {
			f, _, _ = strings.Cut(f, ":")
			f = strings.TrimSpace(strings.ReplaceAll(f, "+", " "))
			if f == "" {
				continue
			}
			dup := false
			for _, have := range list {
				dup = dup || strings.EqualFold(have, f)
			}
			if !dup && len(list) < MaxFonts {
				list = append(list, f)
			}
		}
	}
	return list
}
