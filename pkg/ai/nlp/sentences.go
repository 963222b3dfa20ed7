package nlp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is a sentence of a text, by byte offsets: Text is
// strings.TrimSpace(text[Start:End]).
type Sentence struct {
	Text       string
	Start, End int
}

// Run-on splitting: captions often have no punctuation at all.
const (
	runOnWords  = 40 // a "sentence" longer than this is split
	runOnTarget = 25 // at a discourse marker, else every ~25 words
)

var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "u.s": true, "u.k": true, "inc": true, "ltd": true, "co": true, "no": true, "approx": true, "fig": true}

var markers = map[string]bool{"so": true, "now": true, "okay": true, "but": true, "and": true, "then": true, "anyway": true, "alright": true}

// Sentences splits text at sentence ends (. ! ? … and line breaks),
// keeping abbreviations, initials and decimals whole, and splits run-on
// text over 40 words at discourse markers ("so", "now", "and then").
func Sentences(text string) []Sentence {
	var out []Sentence
	start := 0
	emit := func(end int) {
		seg := text[start:end]
		if t := strings.TrimSpace(seg); t != "" {
			lead := len(seg) - len(strings.TrimLeftFunc(seg, unicode.IsSpace))
			s := start + lead
			out = append(out, splitRunOn(text, Sentence{Text: t, Start: s, End: s + len(t)})...)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch r {
		case '\n':
			emit(next)
		case '!', '?', '…':
			next = skipClosers(text, next, "!?.\"'”’)")
			emit(next)
		case '.':
			if isBoundaryDot(text, i) {
				next = skipClosers(text, next, ".\"'”’)")
				emit(next)
			}
		}
		i = next
	}
	emit(len(text))
	return out
}

// skipClosers moves i past any of the closing characters set.
func skipClosers(text string, i int, set string) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(set, r) {
			break
		}
		i += size
	}
	return i
}

// isBoundaryDot reports whether the dot at i ends a sentence.
func isBoundaryDot(text string, i int) bool {
	if i+1 < len(text) && text[i+1] == '.' {
		return false // the first dot of an ellipsis
	}
	// Decimal: a digit on both sides.
	if i > 0 && i+1 < len(text) && isDigit(text[i-1]) && isDigit(text[i+1]) {
		return false
	}
	// The word before the dot.
	j := i
	for j > 0 && (isLetter(text[j-1]) || text[j-1] == '.') {
		j--
	}
	word := strings.ToLower(text[j:i])
	if abbreviations[word] || (len(word) == 1 && word != "i" && unicode.IsUpper(rune(text[j]))) {
		return false
	}
	// The next non-space character must not be lower case.
	k := i + 1
	for k < len(text) && text[k] == ' ' {
		k++
	}
	if k < len(text) {
		r, _ := utf8.DecodeRuneInString(text[k:])
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

func isDigit(b byte) bool  { return b >= '0' && b <= '9' }
func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// splitRunOn cuts a long sentence at discourse markers near every
// runOnTarget words, or at runOnTarget words when there is none.
func splitRunOn(text string, s Sentence) []Sentence {
	type word struct{ start, end int }
	var words []word
	in := -1
	for i, r := range s.Text {
		if unicode.IsSpace(r) {
			if in >= 0 {
				words = append(words, word{in, i})
				in = -1
			}
		} else if in < 0 {
			in = i
		}
	}
	if in >= 0 {
		words = append(words, word{in, len(s.Text)})
	}
	if len(words) <= runOnWords {
		return []Sentence{s}
	}
	var out []Sentence
	from := 0
	for from < len(words) {
		cut := len(words)
		if len(words)-from > runOnWords {
			cut = from + runOnTarget
			for k := from + runOnTarget*2/3; k < from+runOnTarget*3/2 && k < len(words); k++ {
				w := strings.ToLower(strings.Trim(s.Text[words[k].start:words[k].end], ",;:"))
				if markers[w] {
					cut = k
					break
				}
			}
		}
		a, b := words[from].start, words[cut-1].end
		out = append(out, Sentence{Text: strings.TrimSpace(s.Text[a:b]), Start: s.Start + a, End: s.Start + b})
		from = cut
	}
	return out
}
