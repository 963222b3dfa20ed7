// Package phrase reads prompts as people write them, for the edit
// grammars (filter, edit, combine, background): one tokenizer and one
// matcher, so that the four grammars split words, honour quotes, skip
// articles inside a phrase and understand "no grain" the same way.
//
// A prompt is split into tokens (Split, nlp's tokenizer under the
// prompt's rules): words of letters and digits
// (with & ' / - + # : inside them, so "b&w", "16:9", "#ff8800" and
// "don't" are single words), quoted texts (between straight or curly
// double quotes, or single quotes that open a word and close one), and
// clause breaks after , ; . ! ? and new lines. A Vocab is a grammar's
// phrasings, each a run of words with the grammar's meaning; Scan finds
// them anywhere in the tokens, the longest first, and leaves every
// other word for the grammar to read or to ignore.
package phrase

import (
	"image/color"
	"slices"
	"strings"
	"unicode"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/colour"
)

// Token is a word or a quoted text of a prompt.
type Token struct {
	// Key is the word lower-cased, with curly apostrophes straightened;
	// "" for a quoted text.
	Key string
	// Text is the word as written, or a quoted text without its marks,
	// its white space collapsed.
	Text string
	// Quoted marks a quoted text.
	Quoted bool
	// Break says a clause ends after the token: phrases do not run
	// across it and negation does not reach past it.
	Break bool
}

// DoubleQuotes open and close a quoted text in any pairing (phones type
// “…” and keyboards "…"); singleQuotes do so only at the edges of words,
// so that "don't" stays a word.
const (
	DoubleQuotes = "\"“”„«»"
	singleQuotes = "'‘’"
)

// inWord are the characters other than letters and digits that a word
// may hold.
const inWord = "&'/-+#:’"

// Split cuts prompt into tokens with nlp.Split under the prompt rules.
// It never fails: characters it does not know separate words, and a
// quote mark with no closing mark is a separator.
func Split(prompt string) []Token {
	rs := []rune(prompt)
	quotes := newClosers(rs)
	rules := nlp.Rules{Class: class, Quote: func(rs []rune, i int, atStart bool) int { return quotes.closing(rs, i, atStart) }}
	var out []Token
	brk := func() {
		if len(out) > 0 {
			out[len(out)-1].Break = true
		}
	}
	for _, p := range nlp.Split(prompt, rules) {
		switch {
		case p.Break:
			brk()
		case p.Quoted:
			if t := strings.Join(strings.Fields(p.Text), " "); t != "" {
				out = append(out, Token{Text: t, Quoted: true})
			}
		default:
			if w := strings.Trim(p.Text, "'’-/+:"); w != "" {
				out = append(out, Token{Key: strings.ToLower(strings.ReplaceAll(w, "’", "'")), Text: w})
			}
		}
	}
	brk()
	return out
}

// class is what a prompt's rune that is neither letter nor digit is: a
// word's inWord characters and the point of "1.5" join it; the point
// of "vs." ends the word but not the clause; , ; . ! ? brackets and new
// lines end the clause.
func class(rs []rune, i int, word []rune) nlp.Class {
	r := rs[i]
	switch {
	case strings.ContainsRune(inWord, r):
		return nlp.Join
	case r == '.' && len(word) > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) && unicode.IsDigit(word[len(word)-1]):
		return nlp.Join // "1.5"
	case r == '.' && (strings.EqualFold(string(word), "vs") || strings.EqualFold(string(word), "v")):
		return nlp.Sep // "Batman vs. Superman" is one clause
	case strings.ContainsRune(",;.!?()[]{}\n", r):
		return nlp.Break
	}
	return nlp.Sep
}

// closers finds the marks that close quotes: for each index, the next
// double quote mark and the next single quote mark that ends a word at
// or after it (len(rs) for none), computed once from the right so that
// a prompt full of unclosed quotes is still read in linear time.
type closers struct{ double, single []int }

func newClosers(rs []rune) closers {
	c := closers{double: make([]int, len(rs)+1), single: make([]int, len(rs)+1)}
	c.double[len(rs)], c.single[len(rs)] = len(rs), len(rs)
	for j := len(rs) - 1; j >= 0; j-- {
		c.double[j], c.single[j] = c.double[j+1], c.single[j+1]
		if strings.ContainsRune(DoubleQuotes, rs[j]) {
			c.double[j] = j
		}
		if j > 0 && strings.ContainsRune(singleQuotes, rs[j]) && !unicode.IsSpace(rs[j-1]) &&
			(j+1 == len(rs) || !unicode.IsLetter(rs[j+1]) && !unicode.IsDigit(rs[j+1])) {
			c.single[j] = j
		}
	}
	return c
}

// closing is the index of the mark that closes a quote opened at rs[i],
// or -1 when rs[i] opens none. A single quote opens only at the start
// of a word (atStart) and closes only at the end of one.
func (c closers) closing(rs []rune, i int, atStart bool) int {
	r := rs[i]
	switch {
	case strings.ContainsRune(DoubleQuotes, r):
		if j := c.double[i+1]; j < len(rs) {
			return j
		}
	case strings.ContainsRune(singleQuotes, r) && atStart && r != '’' && i+2 <= len(rs):
		if j := c.single[i+2]; j < len(rs) {
			return j
		}
	}
	return -1
}

// skippable are the words a phrase may have inside it that its
// phrasing leaves out: "blur the background", "invert its colours".
var skippable = nlp.WordSet("the a an it its my our your this that these those them some of")

// negators deny the operation that follows them: "no grain", "without a
// vignette", "don't flip it".
var negators = nlp.WordSet("no not without don't dont never avoid skip minus w/o nor")

// maxGap is the most words between a negator and the phrase it denies:
// "don't add any film grain".
const maxGap = 4

// Vocab is a grammar's phrasings and their meanings. The zero value is
// empty and ready for Add.
type Vocab[T any] struct {
	byFirst map[string][]entry[T]
	funcs   []matcher[T]
}

// matcher reads an open class of words (colours, numbers) at toks[i]:
// its meaning and how many tokens it takes, 0 for none.
type matcher[T any] struct {
	match    func(toks []Token, i int) (T, int)
	modifier bool
}

type entry[T any] struct {
	words    []string
	value    T
	modifier bool
	weak     bool
}

// Add adds phrasings of value: a comma-separated list of phrases,
// matched case-insensitively (write them in lower case).
func (v *Vocab[T]) Add(value T, phrasings string) { v.add(entry[T]{value: value}, phrasings) }

// AddWeak adds phrasings that mean value only when nothing else in the
// prompt does: "cool" is a tone on its own and praise in "a cool
// vintage look" (see Strong).
func (v *Vocab[T]) AddWeak(value T, phrasings string) {
	v.add(entry[T]{value: value, weak: true}, phrasings)
}

// AddModifier adds phrasings of a word that qualifies an operation
// rather than naming one ("slightly", "thick", "top"): a negator passes
// over it to the operation it qualifies.
func (v *Vocab[T]) AddModifier(value T, phrasings string) {
	v.add(entry[T]{value: value, modifier: true}, phrasings)
}

// AddFunc adds an open class of words that match reads at toks[i],
// returning their meaning and how many tokens they take (0: none there);
// modifier is as for AddModifier. The longest reading at a word wins,
// the fixed phrasings on a tie.
func (v *Vocab[T]) AddFunc(modifier bool, match func(toks []Token, i int) (T, int)) {
	v.funcs = append(v.funcs, matcher[T]{match: match, modifier: modifier})
}

func (v *Vocab[T]) add(e entry[T], phrasings string) {
	if v.byFirst == nil {
		v.byFirst = map[string][]entry[T]{}
	}
	for _, p := range strings.Split(phrasings, ",") {
		e := e
		e.words = strings.Fields(p)
		if len(e.words) == 0 {
			continue
		}
		list := append(v.byFirst[e.words[0]], e)
		// Longest first, so that "black and white" wins over "black".
		slices.SortStableFunc(list, func(a, b entry[T]) int { return len(b.words) - len(a.words) })
		v.byFirst[e.words[0]] = list
	}
}

// Hit is a phrase found in the tokens.
type Hit[T any] struct {
	Value T
	// Start and End are the tokens it spans, [Start, End).
	Start, End int
	// Negated says a negator denied it ("no grain").
	Negated bool
	// Modifier and Weak are how it was added.
	Modifier, Weak bool
}

// Scan finds the vocabulary's phrases in toks, left to right, the
// longest at each word; the words of no phrase are skipped. A phrase
// after a negator in the same clause, with at most maxGap other words
// between, is Negated, as is one joined to a negated phrase by "or" or
// "nor".
func (v *Vocab[T]) Scan(toks []Token) []Hit[T] {
	var hits []Hit[T]
	negated, gap := false, 0
	for i := 0; i < len(toks); {
		t := toks[i]
		e, end, ok := v.at(toks, i)
		if !ok {
			switch {
			case negators[t.Key]:
				negated, gap = true, 0
			case negated && (t.Key == "or" || t.Key == "and") && len(hits) > 0 && hits[len(hits)-1].Negated:
				// "no grain or vignette"
			case negated:
				gap++
				if gap > maxGap {
					negated = false
				}
			}
			if t.Break {
				negated = false
			}
			i++
			continue
		}
		hits = append(hits, Hit[T]{Value: e.value, Start: i, End: end, Negated: negated && !e.modifier,
			Modifier: e.modifier, Weak: e.weak})
		if !e.modifier {
			// The negation carries over "or" to the next phrase only.
			gap = maxGap
		}
		if toks[end-1].Break {
			negated = false
		}
		i = end
	}
	return hits
}

// at is the longest entry whose words start at toks[i], and the end of
// its tokens. Skippable words may stand between its words, and no clause
// break may fall inside it.
func (v *Vocab[T]) at(toks []Token, i int) (entry[T], int, bool) {
	if toks[i].Quoted {
		return entry[T]{}, 0, false
	}
	best, end, ok := v.fixed(toks, i)
	for _, m := range v.funcs {
		val, n := m.match(toks, i)
		if n > 0 && (!ok || i+n > end) && !breaksInside(toks, i, i+n) {
			best, end, ok = entry[T]{value: val, modifier: m.modifier}, i+n, true
		}
	}
	return best, end, ok
}

// breaksInside says a clause break falls inside toks[start:end].
func breaksInside(toks []Token, start, end int) bool {
	for _, t := range toks[start : end-1] {
		if t.Break {
			return true
		}
	}
	return false
}

// fixed is the longest fixed phrasing at toks[i] (see at).
func (v *Vocab[T]) fixed(toks []Token, i int) (entry[T], int, bool) {
	for _, e := range v.byFirst[toks[i].Key] {
		j := i + 1
		ok := true
		for _, w := range e.words[1:] {
			for j < len(toks) && !toks[j-1].Break && skippable[toks[j].Key] && toks[j].Key != w {
				j++
			}
			if j >= len(toks) || toks[j-1].Break || toks[j].Key != w {
				ok = false
				break
			}
			j++
		}
		if ok {
			return e, j, true
		}
	}
	return entry[T]{}, 0, false
}

// Strong is hits without the negated ones, and without the weak ones
// when any other hit that is not a modifier remains.
func Strong[T any](hits []Hit[T]) []Hit[T] {
	var out []Hit[T]
	strong := false
	for _, h := range hits {
		if !h.Negated && !h.Weak && !h.Modifier {
			strong = true
		}
	}
	for _, h := range hits {
		if !h.Negated && (!h.Weak || !strong) {
			out = append(out, h)
		}
	}
	return out
}

// colourModifiers lighten or darken the colour word that follows them:
// "dark blue", "pastel pink".
var colourModifiers = map[string]struct {
	towards color.RGBA
	share   float64
}{
	"dark":   {color.RGBA{0, 0, 0, 255}, 0.45},
	"deep":   {color.RGBA{0, 0, 0, 255}, 0.35},
	"light":  {color.RGBA{255, 255, 255, 255}, 0.45},
	"pale":   {color.RGBA{255, 255, 255, 255}, 0.45},
	"pastel": {color.RGBA{255, 255, 255, 255}, 0.6},
	"bright": {color.RGBA{255, 255, 255, 255}, 0},
}

// Colour reads a colour at toks[i]: a colour word of pkg/media/colour, one
// after a modifier (dark, deep, light, pale, pastel), or #rrggbb / #rgb.
// n is how many tokens it took, 0 when there is no colour there.
func Colour(toks []Token, i int) (c color.RGBA, n int) {
	if i >= len(toks) || toks[i].Quoted {
		return color.RGBA{}, 0
	}
	w := toks[i].Key
	if c, ok := colour.Parse(w); ok {
		return c, 1
	}
	if m, ok := colourModifiers[w]; ok && i+1 < len(toks) && !toks[i].Break {
		if c, ok := colour.Names[toks[i+1].Key]; ok && !toks[i+1].Quoted {
			return colour.Mix(c, m.towards, m.share), 2
		}
	}
	return color.RGBA{}, 0
}

// Hex writes c as #rrggbb.
func Hex(c color.RGBA) string {
	const digits = "0123456789abcdef"
	return string([]byte{'#', digits[c.R>>4], digits[c.R&15], digits[c.G>>4], digits[c.G&15], digits[c.B>>4], digits[c.B&15]})
}

// Each calls fn with every phrasing of the vocabulary that is not a
// modifier, so that a grammar can take another's words into its own
// vocabulary under its own meanings.
func (v *Vocab[T]) Each(fn func(value T, phrasing string, weak bool)) {
	for _, list := range v.byFirst {
		for _, e := range list {
			if !e.modifier {
				fn(e.value, strings.Join(e.words, " "), e.weak)
			}
		}
	}
}
