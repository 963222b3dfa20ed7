package imagecheck

import (
	"fmt"
	"net/url"
)

// MaxURLLength bounds an image URL accepted from a request.
const MaxURLLength = 2048

// CheckURL returns why s is not an acceptable image URL, or "" when it is:
// an absolute http(s) URL with a host, at most MaxURLLength characters. It
// needs no network, so request validation in domain packages can use it
// without depending on storage or the fetcher.
func CheckURL(s string) string {
	if s == "" {
		return "is required"
	}
	if len(s) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "must be an absolute http or https URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "must be an http or https URL"
	}
	return ""
}
