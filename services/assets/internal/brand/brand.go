// Package brand holds brand kits and their rules: a name, 1 to 8 colours,
// an optional logo and fonts, entered by hand or imported from a website.
//
// Importing is split so that this package stays free of I/O: the adapter
// fetches the page, its web manifest and logo candidates through the safe
// fetcher and feeds the bytes to ParsePage, ParseManifest and Compose here.
package brand

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
	"hookline.dev/services/assets/internal/validate"
)

// Limits.
const (
	MaxColors     = 8
	MaxFonts      = 10
	MaxFontLength = 100
)

// ErrNotFound means no brand with that id exists in the organization.
var ErrNotFound = errors.New("brand not found")

// Brand is a stored brand kit. LogoKey is an object key in our bucket, ""
// without a logo. Domain is the site it was imported from, "" if entered
// by hand.
type Brand struct {
	ID        string
	OrgID     string
	Name      string
	Colors    []string
	LogoKey   string
	Fonts     []string
	Domain    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Draft is a request to create or change a brand. Nil fields were not
// sent. For a create, either Colors (by hand, with Name) or Domain (import)
// is required, not both; for a patch every field is optional but one is
// required, and Domain re-imports.
type Draft struct {
	Name    *string
	Colors  *[]string
	LogoURL *string
	Fonts   *[]string
	Domain  *string
}

// Valid is a validated Draft.
type Valid struct {
	Name    *string
	Colors  *[]string // normalised "#rrggbb", distinct
	LogoURL *string   // "" removes the logo (patch only)
	Fonts   *[]string
	// Import is set when the brand is to be imported from a site.
	Import *Site
}

// Site is a website to import from: the URLs to try, in order, and the
// host shown as the brand's domain.
type Site struct {
	Host string
	URLs []string
}

// ValidateCreate checks a create request.
func (d Draft) ValidateCreate() (Valid, error) {
	if d.Domain == nil && d.Colors == nil {
		return Valid{}, apierr.Invalid("either colors (with name) or domain (to import from a website) is required",
			map[string]string{"colors": "colors or domain is required"})
	}
	return d.validate(false)
}

// ValidatePatch checks an update request.
func (d Draft) ValidatePatch() (Valid, error) {
	if d.Name == nil && d.Colors == nil && d.LogoURL == nil && d.Fonts == nil && d.Domain == nil {
		return Valid{}, apierr.Invalid("at least one of name, colors, logoUrl, fonts, domain is required", nil)
	}
	return d.validate(true)
}

func (d Draft) validate(patch bool) (Valid, error) {
	f := apierr.Fields{}
	v := d.check(f)
	if d.Domain != nil {
		for name, set := range map[string]bool{"colors": d.Colors != nil, "logoUrl": d.LogoURL != nil, "fonts": d.Fonts != nil} {
			if set {
				f.Add(name, "cannot be combined with domain: an import sets it from the site")
			}
		}
	}
	if !patch && d.Domain == nil && d.Name == nil {
		f.Add("name", "is required")
	}
	if !patch && d.LogoURL != nil && strings.TrimSpace(*d.LogoURL) == "" {
		f.Add("logoUrl", "must be an absolute http or https URL")
	}
	return v, f.Err()
}

// check validates the fields present, recording failures in f.
func (d Draft) check(f apierr.Fields) Valid {
	var v Valid
	if d.Name != nil {
		n := validate.Name(f, "name", *d.Name)
		v.Name = &n
	}
	if d.Colors != nil {
		c := colors(f, *d.Colors)
		v.Colors = &c
	}
	if d.LogoURL != nil {
		u := strings.TrimSpace(*d.LogoURL)
		if u != "" {
			u = validate.URL(f, "logoUrl", u)
		}
		v.LogoURL = &u
	}
	if d.Fonts != nil {
		fs := fonts(f, *d.Fonts)
		v.Fonts = &fs
	}
	if d.Domain != nil {
		site, reason := ParseDomain(*d.Domain)
		if reason != "" {
			f.Add("domain", reason)
		} else {
			v.Import = &site
		}
	}
	return v
}

func colors(f apierr.Fields, in []string) []string {
	if len(in) == 0 || len(in) > MaxColors {
		f.Add("colors", fmt.Sprintf("must hold 1 to %d hex colours", MaxColors))
		return nil
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, c := range in {
		hex, ok := NormalizeHex(c)
		if !ok {
			f.Add(fmt.Sprintf("colors[%d]", i), `must be a hex colour such as "#ff6600" or "#f60"`)
			continue
		}
		if !seen[hex] {
			seen[hex] = true
			out = append(out, hex)
		}
	}
	return out
}

func fonts(f apierr.Fields, in []string) []string {
	if len(in) > MaxFonts {
		f.Add("fonts", fmt.Sprintf("must hold at most %d fonts", MaxFonts))
		return nil
	}
	out := make([]string, 0, len(in))
	for i, s := range in {
		s = strings.TrimSpace(s)
		if !textcheck.Check(f, fmt.Sprintf("fonts[%d]", i), s, false) {
			continue
		}
		if n := utf8.RuneCountInString(s); n == 0 || n > MaxFontLength {
			f.Add(fmt.Sprintf("fonts[%d]", i), fmt.Sprintf("must be 1 to %d characters", MaxFontLength))
			continue
		}
		out = append(out, s)
	}
	return out
}

// NormalizeHex accepts "#rgb" or "#rrggbb" (the "#" is optional, any case)
// and returns lowercase "#rrggbb".
func NormalizeHex(s string) (string, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) != 3 && len(s) != 6 {
		return "", false
	}
	for _, c := range s {
		if !isHex(c) {
			return "", false
		}
	}
	s = strings.ToLower(s)
	if len(s) == 3 {
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	}
	return "#" + s, true
}

func isHex(c rune) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// ParseDomain turns the domain field into the URLs to try: a bare host (or
// host:port) is tried over https, then http; a full http(s) URL is used as
// given. It returns a reason when the value is unusable.
func ParseDomain(s string) (Site, string) {
	s = strings.TrimSpace(s)
	if reason := textcheck.Reason(s, false); reason != "" {
		return Site{}, reason
	}
	if s == "" {
		return Site{}, "is required"
	}
	if len(s) > validate.MaxURL {
		return Site{}, fmt.Sprintf("must be at most %d characters", validate.MaxURL)
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			return Site{}, "must be a domain such as example.com or an http(s) URL"
		}
		if u.Path == "" {
			u.Path = "/"
		}
		u.Fragment = ""
		return Site{Host: strings.ToLower(u.Host), URLs: []string{u.String()}}, ""
	}
	host := strings.ToLower(strings.TrimSuffix(s, "/"))
	name := host
	if h, p, err := net.SplitHostPort(host); err == nil {
		if p == "" {
			return Site{}, "must be a domain such as example.com or an http(s) URL"
		}
		name = h
	}
	if !validHost(name) {
		return Site{}, "must be a domain such as example.com or an http(s) URL"
	}
	return Site{Host: host, URLs: []string{"https://" + host + "/", "http://" + host + "/"}}, ""
}

func validHost(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	if net.ParseIP(strings.Trim(s, "[]")) != nil {
		return true
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}
