package videosite

import (
	"strings"

	"hookline.dev/pkg/platform/textcheck"
)

// Text from outside — a video's title, channel, description and chapters,
// its captions, a direct address's file name, a tool's complaint — is
// the uploader's or the site's, not ours: it may hold NUL (Postgres
// refuses it in text and JSON, SQLSTATE 22P05), invalid UTF-8, and C0 or
// C1 control characters that break ASS scripts, logs and UIs. Everything
// this package hands out passes through SanitizeLine or SanitizeText
// once, here at its edge, so no caller has to remember.

// SanitizeLine is s made one clean line: invalid UTF-8 becomes U+FFFD,
// control characters are dropped, any run of white space (line breaks
// included) is one space, and the ends are trimmed. It is idempotent.
func SanitizeLine(s string) string {
	return strings.Join(strings.Fields(textcheck.Clean(s, false)), " ")
}

// SanitizeText is SanitizeLine for text whose lines mean something (a
// description, where chapters are one a line): tabs and line breaks stay,
// and only the ends are trimmed. It is idempotent.
func SanitizeText(s string) string {
	return strings.TrimSpace(textcheck.Clean(s, true))
}

// SanitizeSegments sanitises timed text: each segment's and word's text
// becomes one clean line; a word left empty is dropped, and so is a
// segment. Captions this package parses are sanitised already; this is
// for timed text from elsewhere (a speech recogniser).
func SanitizeSegments(segs []Segment) []Segment {
	out := segs[:0:0]
	for _, s := range segs {
		s.Text = SanitizeLine(s.Text)
		if s.Text == "" {
			continue
		}
		var words []Word
		for _, w := range s.Words {
			if w.Text = SanitizeLine(w.Text); w.Text != "" {
				words = append(words, w)
			}
		}
		s.Words = words
		out = append(out, s)
	}
	return out
}

// sanitized is m with every text field sanitised.
func (m Metadata) sanitized() Metadata {
	m.Title, m.Channel, m.Language = SanitizeLine(m.Title), SanitizeLine(m.Channel), SanitizeLine(m.Language)
	m.Description = SanitizeText(m.Description)
	m.Chapters = append([]Chapter(nil), m.Chapters...)
	for i := range m.Chapters {
		m.Chapters[i].Title = SanitizeLine(m.Chapters[i].Title)
	}
	return m
}
