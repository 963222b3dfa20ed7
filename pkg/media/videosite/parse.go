package videosite

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// ErrInvalidURL is a user's address that is not a video: wrapped with
// the reason.
var ErrInvalidURL = errors.New("videosite: not a video address")

// Kind of source.
type Kind int

// Kinds.
const (
	KindSite Kind = iota + 1
	KindDirect
)

// Source is a parsed video address.
type Source struct {
	Kind Kind
	// VideoID is a site video's 11-character id.
	VideoID string
	// URL is a site video's canonical watch URL, or the direct media URL.
	URL string
}

// siteHosts are the video site's hosts (lower-case, without "www.").
var siteHosts = map[string]bool{
	"youtube.com": true, "m.youtube.com": true, "music.youtube.com": true, "youtu.be": true,
	"youtube-nocookie.com": true, "gaming.youtube.com": true,
}

// confusables maps characters of other scripts that look like Latin
// letters onto them (the ones that spell the site's name).
var confusables = strings.NewReplacer("у", "y", "о", "o", "υ", "u", "е", "e", "ο", "o", "т", "t", "Ь", "b", "ь", "b", "в", "b", "ս", "u", "ᥙ", "u", "ʏ", "y", "ү", "y")

// lookAlike reports a host that is not the site's but reads like it once
// decoded from punycode and folded from look-alike characters: an IDN
// homograph such as "уoutube.com" with a Cyrillic у.
func lookAlike(host string) bool {
	uni, err := idna.ToUnicode(host)
	if err != nil {
		return true
	}
	if uni == host && !strings.ContainsFunc(host, func(r rune) bool { return r > 0x7f }) {
		return false // plain ASCII: either the site's host or another
	}
	folded := strings.TrimPrefix(confusables.Replace(strings.ToLower(uni)), "www.")
	return siteHosts[folded] || strings.Contains(folded, "youtube") || strings.Contains(folded, "youtu.be")
}

// pathKinds are the path prefixes that carry the id as the next segment.
var pathKinds = map[string]bool{"shorts": true, "embed": true, "live": true, "v": true, "e": true}

// WatchURL is a site video's canonical address.
func WatchURL(id string) string { return "https://www.youtube.com/watch?v=" + id }

// ValidID reports whether id looks like a site video id: 11 characters of
// [A-Za-z0-9_-].
func ValidID(id string) bool {
	if len(id) != 11 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// Parse reads a user's video address: every form of a video-site link
// (watch, youtu.be, shorts, embed, live, v, mobile, music, nocookie, with
// extra parameters, timestamps and fragments, scheme optional) gives the
// video id; any other absolute http(s) URL with a host and no user info is
// direct media. Anything else — other schemes, user info, look-alike
// hosts with the site's name elsewhere, a malformed id — is ErrInvalidURL.
func Parse(raw string) (Source, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return Source{}, fmt.Errorf("%w: empty", ErrInvalidURL)
	}
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "//") {
		if i := strings.IndexAny(raw, ":/"); i > 0 && raw[i] == ':' && !strings.Contains(raw[:i], ".") {
			return Source{}, fmt.Errorf("%w: scheme %q not allowed", ErrInvalidURL, raw[:i])
		}
		raw = "https://" + raw // "youtube.com/watch?v=…" as people paste it
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Source{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Source{}, fmt.Errorf("%w: scheme %q not allowed", ErrInvalidURL, u.Scheme)
	}
	if u.User != nil {
		return Source{}, fmt.Errorf("%w: user info is not allowed", ErrInvalidURL)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return Source{}, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if lookAlike(host) {
		return Source{}, fmt.Errorf("%w: the host imitates the video site's", ErrInvalidURL)
	}
	if !siteHosts[strings.TrimPrefix(host, "www.")] {
		return Source{Kind: KindDirect, URL: u.String()}, nil
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		return Source{}, fmt.Errorf("%w: unexpected port on the video site", ErrInvalidURL)
	}
	id := siteID(host, u)
	if !ValidID(id) {
		return Source{}, fmt.Errorf("%w: no valid video id", ErrInvalidURL)
	}
	return Source{Kind: KindSite, VideoID: id, URL: WatchURL(id)}, nil
}

func siteID(host string, u *url.URL) string {
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	if strings.TrimPrefix(host, "www.") == "youtu.be" {
		return segs[0]
	}
	switch {
	case segs[0] == "watch":
		return u.Query().Get("v")
	case len(segs) >= 2 && pathKinds[segs[0]]:
		return segs[1]
	}
	return ""
}
