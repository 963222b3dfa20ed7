// Package censor is the profanity filter of renders: the listed words and
// phrases (a maintained list, extended per organization), which words of
// a transcript they match, and how a matched word is masked in the
// captions. The audio of a matched word is bleeped or muted by the
// renderer at the word's timing.
//
// The built-in list is the English List of Dirty, Naughty, Obscene, and
// Otherwise Bad Words (LDNOOBW), vendored from the npm package
// naughty-words@1.2.0 (en.json, sha256 9331891859…fae56f2), licensed
// CC-BY-4.0 (LICENSE-ldnoobw beside this file).
package censor

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
)

// Mode is what a render does to a listed word.
type Mode string

// The modes: None leaves the words alone; Bleep plays a 1 kHz tone over
// each listed word instead of it; Mute silences it. Both mask it in the
// captions.
const (
	None  Mode = "none"
	Bleep Mode = "bleep"
	Mute  Mode = "mute"
)

// Modes lists the modes in the API's order.
var Modes = []Mode{None, Bleep, Mute}

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, bool) {
	for _, m := range Modes {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// Source names the built-in list, its version and licence (for the API's
// answer and the documentation).
const Source = "LDNOOBW English list (npm naughty-words@1.2.0), CC-BY-4.0"

//go:embed ldnoobw-en.json
var builtinJSON []byte

// Limits of an organization's own words.
const (
	MaxWords      = 500
	MaxWordLength = 60
	// MaxPhraseWords: an entry of more words than this would never match
	// a caption line's worth of speech.
	MaxPhraseWords = 5
)

// List is a set of listed words and phrases, each a sequence of keys.
type List struct {
	entries map[string][][]string // by the first key
	size    int
}

var (
	builtinOnce sync.Once
	builtin     List
)

// Builtin is the vendored list.
func Builtin() List {
	builtinOnce.Do(func() {
		var words []string
		if err := json.Unmarshal(builtinJSON, &words); err != nil {
			panic("censor: the embedded list is not a JSON array of strings: " + err.Error())
		}
		builtin = List{}.With(words)
	})
	return builtin
}

// With is l extended by words (each a word or a phrase); entries with
// nothing matchable (an emoji alone) are skipped.
func (l List) With(words []string) List {
	out := List{entries: make(map[string][][]string, len(l.entries)+len(words)), size: l.size}
	for k, v := range l.entries {
		out.entries[k] = v
	}
	for _, w := range words {
		var keys []string
		for _, f := range strings.Fields(w) {
			if k := Key(f); k != "" {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			continue
		}
		out.entries[keys[0]] = append(out.entries[keys[0]], keys)
		out.size++
	}
	return out
}

// Len is how many entries l has.
func (l List) Len() int { return l.size }

// Match returns, for each word of words (a transcript's, in order),
// whether it is part of a listed word or phrase.
func (l List) Match(words []string) []bool {
	keys := make([]string, len(words))
	for i, w := range words {
		keys[i] = Key(w)
	}
	out := make([]bool, len(words))
	for i, k := range keys {
		for _, e := range l.entries[k] {
			if i+len(e) <= len(keys) && equal(keys[i:i+len(e)], e) {
				for j := range e {
					out[i+j] = true
				}
			}
		}
	}
	return out
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// MaskText is s (a title, a keyword card) with its listed words masked;
// its spacing is kept.
func (l List) MaskText(s string) string {
	words := strings.Fields(s)
	listed := l.Match(words)
	var b strings.Builder
	rest := s
	for i, w := range words {
		at := strings.Index(rest, w)
		b.WriteString(rest[:at])
		if listed[i] {
			w = Mask(w)
		}
		b.WriteString(w)
		rest = rest[at+len(words[i]):]
	}
	b.WriteString(rest)
	return b.String()
}

// Key is how a word is compared: lower case, without the punctuation
// around it ("Damn," and "damn" are the same word; "g-spot" keeps its
// hyphen).
func Key(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// Mask hides a listed word in a caption: its first letter stays, every
// other letter or digit becomes an asterisk, the punctuation around it
// stays ("Fuck," → "F***,").
func Mask(w string) string {
	var b strings.Builder
	first := true
	for _, r := range w {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			b.WriteRune(r)
		case first:
			b.WriteRune(r)
			first = false
		default:
			b.WriteByte('*')
		}
	}
	return b.String()
}

// Words validates an organization's own words: each a word or a phrase
// of up to MaxPhraseWords words, 1..MaxWordLength characters, with a
// letter or digit; at most MaxWords. They come back trimmed, in lower
// case, without duplicates, in the order sent.
func Words(in []string) ([]string, error) {
	f := apierr.Fields{}
	if len(in) > MaxWords {
		f.Add("words", "at most 500 words")
		return nil, f.Err()
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, w := range in {
		w = strings.ToLower(strings.Join(strings.Fields(w), " "))
		switch {
		case w == "" || Key(w) == "":
			f.Add("words", "every entry needs a letter or digit")
		case utf8.RuneCountInString(w) > MaxWordLength:
			f.Add("words", "an entry has at most 60 characters")
		case len(strings.Fields(w)) > MaxPhraseWords:
			f.Add("words", "an entry has at most 5 words")
		case !seen[w]:
			seen[w] = true
			out = append(out, w)
		}
	}
	return out, f.Err()
}
