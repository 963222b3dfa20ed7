package translate

import (
	"regexp"
	"strings"
	"unicode"
)

// marks are the marks a rule-based translator puts before a word it could
// not translate (Apertium: "*" unknown to its dictionaries, "@" without a
// translation, "#" that it could not inflect), whose source form follows.
var marks = regexp.MustCompile(`(^|[^\p{L}\p{N}])[*@#]([\p{L}\p{N}])`)

// Unstar keeps the source word of every marked word: "El *render toma"
// is "El render toma".
func Unstar(text string) string {
	// Twice: adjacent marked words share the character between them.
	return marks.ReplaceAllString(marks.ReplaceAllString(text, "$1$2"), "$1$2")
}

// Mask replaces the sentence's Keep words with placeholder(k), words a
// translator leaves as they are, keeping the punctuation around them.
func Mask(s Sentence, placeholder func(k int) string) string {
	if len(s.Keep) == 0 {
		return s.Text
	}
	ws := strings.Fields(s.Text)
	for i, w := range ws {
		c := core(w)
		for k, keep := range s.Keep {
			if c == keep {
				at := strings.Index(w, c)
				ws[i] = w[:at] + placeholder(k) + w[at+len(c):]
				break
			}
		}
	}
	return strings.Join(ws, " ")
}

// Unmask puts the Keep words back where the placeholders came out.
func Unmask(text string, s Sentence, placeholder func(k int) string) string {
	// The longest placeholders first: "K10" before "K1".
	for k := len(s.Keep) - 1; k >= 0; k-- {
		p := placeholder(k)
		var b strings.Builder
		for {
			at := strings.Index(text, p)
			if at < 0 {
				break
			}
			end := at + len(p)
			if end < len(text) && (unicode.IsDigit(rune(text[end])) || unicode.IsLetter(rune(text[end]))) {
				b.WriteString(text[:end])
				text = text[end:]
				continue
			}
			b.WriteString(text[:at] + s.Keep[k])
			text = text[end:]
		}
		text = b.String() + text
	}
	return text
}
