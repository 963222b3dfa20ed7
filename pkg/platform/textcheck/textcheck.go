// Package textcheck is the one rule for text a client sends to any
// service: valid UTF-8 without NUL or other control characters (C0, DEL,
// C1), with tab, line feed and carriage return allowed only where a field
// is multi-line. Postgres refuses NUL in text, and control characters
// corrupt logs, CSV exports and UIs, so such input is refused with a 400
// naming the field rather than stored or silently altered.
//
// httpx.Decode applies the multi-line rule to every string of every JSON
// body; domain validation applies the single-line rule to names and other
// one-line fields.
package textcheck

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
)

// Client-facing reasons, as recorded in details.fields.
const (
	ReasonUTF8    = "must be valid UTF-8"
	ReasonNUL     = "must not contain NUL characters"
	ReasonControl = "must not contain control characters"
	ReasonLines   = "must be a single line (no tabs or line breaks)"
)

// Reason returns why s is not acceptable text, or "" when it is.
// multiline allows \t, \n and \r.
func Reason(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return ReasonUTF8
	}
	reason := ""
	for _, r := range s {
		switch {
		case r == 0:
			return ReasonNUL
		case r == '\t' || r == '\n' || r == '\r':
			if !multiline && reason == "" {
				reason = ReasonLines
			}
		case unicode.IsControl(r):
			reason = ReasonControl
		}
	}
	return reason
}

// Check records the failure of s in f under field and reports whether s
// passed.
func Check(f apierr.Fields, field, s string, multiline bool) bool {
	if r := Reason(s, multiline); r != "" {
		f.Add(field, r)
		return false
	}
	return true
}

// Clean makes text from a third party (an imported web page, a manifest)
// acceptable: invalid UTF-8 becomes U+FFFD and control characters are
// removed (tabs and line breaks become spaces unless multiline). Client
// input is refused instead, with Reason.
func Clean(s string, multiline bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case multiline && (r == '\t' || r == '\n' || r == '\r'):
			return r
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}
