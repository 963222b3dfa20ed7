// Package validate holds the field rules shared by the assets records:
// names, descriptions and URLs are checked the same way for faces, styles,
// brands and collections, on create and on update alike. Every text field
// follows textcheck's rule: names and URLs are single-line, descriptions
// may hold line breaks and tabs.
package validate

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/media/imagecheck"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// Limits of the shared fields.
const (
	MaxName        = 100
	MaxDescription = 1000
	// MaxURL is imagecheck's limit, which imageinput applies when loading.
	MaxURL = imagecheck.MaxURLLength
)

// Name trims s and records a failure in f when it is empty, longer than
// MaxName characters or not single-line text. It returns the trimmed value.
func Name(f apierr.Fields, field, s string) string {
	s = strings.TrimSpace(s)
	if !textcheck.Check(f, field, s, false) {
		return s
	}
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		f.Add(field, "is required")
	case n > MaxName:
		f.Add(field, fmt.Sprintf("must be at most %d characters", MaxName))
	}
	return s
}

// Description trims s and records a failure when it is over MaxDescription
// characters or not (multi-line) text. Empty is allowed.
func Description(f apierr.Fields, field, s string) string {
	s = strings.TrimSpace(s)
	if !textcheck.Check(f, field, s, true) {
		return s
	}
	if utf8.RuneCountInString(s) > MaxDescription {
		f.Add(field, fmt.Sprintf("must be at most %d characters", MaxDescription))
	}
	return s
}

// URL records a failure when s is not an absolute http(s) URL of at most
// 2048 characters. It returns s trimmed of surrounding spaces.
func URL(f apierr.Fields, field, s string) string {
	s = strings.TrimSpace(s)
	if !textcheck.Check(f, field, s, false) {
		return s
	}
	if reason := imagecheck.CheckURL(s); reason != "" {
		f.Add(field, reason)
	}
	return s
}

// URLs checks a list of 1..max URLs, naming failures field[i].
func URLs(f apierr.Fields, field string, urls []string, max int) []string {
	switch {
	case len(urls) == 0:
		f.Add(field, fmt.Sprintf("must hold 1 to %d URLs", max))
		return nil
	case len(urls) > max:
		f.Add(field, fmt.Sprintf("must hold 1 to %d URLs", max))
		return nil
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = URL(f, fmt.Sprintf("%s[%d]", field, i), u)
	}
	return out
}

// Optional applies rule to a field of a patch when it was sent (v non-nil)
// and returns the cleaned value; a field not sent stays nil.
func Optional[T any](f apierr.Fields, field string, v *T, rule func(f apierr.Fields, field string, v T) T) *T {
	if v == nil {
		return nil
	}
	out := rule(f, field, *v)
	return &out
}
