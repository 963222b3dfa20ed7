package transcript

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// Vocabulary limits.
const (
	MaxTerms   = 100
	MaxTermLen = 50
	// maxTermWords bounds a term's words (and so the n-grams tried).
	maxTermWords = 4
	// maxGap is the silence (seconds) an n-gram may span: words further
	// apart are not one mis-split term.
	maxGap = 0.6
)

// CheckVocabulary records in f what is wrong with terms (sent in field)
// and returns them trimmed.
func CheckVocabulary(f apierr.Fields, field string, terms []string) []string {
	if len(terms) > MaxTerms {
		f.Add(field, "at most 100 terms")
		return nil
	}
	out := make([]string, 0, len(terms))
	seen := map[string]bool{}
	for i, t := range terms {
		name := field + "[" + strconv.Itoa(i) + "]"
		t = strings.Join(strings.Fields(t), " ")
		switch {
		case t == "":
			f.Add(name, "must not be empty")
		case utf8.RuneCountInString(t) > MaxTermLen:
			f.Add(name, "at most 50 characters")
		case textcheck.Reason(t, false) != "":
			f.Add(name, textcheck.Reason(t, false))
		case letters(t) == "":
			f.Add(name, "must contain a letter or digit")
		case len(strings.Fields(t)) > maxTermWords:
			f.Add(name, "at most 4 words")
		case seen[strings.ToLower(t)]:
			f.Add(name, "duplicate term")
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	return out
}

// match is a vocabulary term found over words [from, to).
type match struct {
	from, to int
	term     string
}

// spelling is a word's (or n-gram's, or term's) letters, prepared for
// comparing: the runes, a count per letter (a lower bound of the edit
// distance is half the counts' difference) and, once asked for, the
// phonetic key.
type spelling struct {
	runes []rune
	count [37]int16 // a–z, 0–9, anything else
	key   string
	keyed bool
}

func newSpelling(letters string) *spelling {
	sp := &spelling{}
	sp.add(letters)
	return sp
}

func (sp *spelling) add(letters string) {
	for _, r := range letters {
		sp.runes = append(sp.runes, r)
		switch {
		case r >= 'a' && r <= 'z':
			sp.count[r-'a']++
		case r >= '0' && r <= '9':
			sp.count[26+r-'0']++
		default:
			sp.count[36]++
		}
	}
	sp.keyed = false
}

func (sp *spelling) phonetic() string {
	if !sp.keyed {
		sp.key, sp.keyed = phoneticKey(string(sp.runes)), true
	}
	return sp.key
}

// matchVocabulary finds, left to right, the runs of words (n-grams of
// one to a term's words plus two) that sound or are spelled close to a
// term, the closest first where several could start at a word.
func matchVocabulary(words []Word, terms []string) []match {
	if len(terms) == 0 {
		return nil
	}
	type prepared struct {
		text  string
		sp    *spelling
		words int
	}
	ts := make([]prepared, len(terms))
	longest := 0
	for i, t := range terms {
		ts[i] = prepared{text: t, sp: newSpelling(letters(t)), words: len(strings.Fields(t))}
		ts[i].sp.phonetic()
		longest = max(longest, len(ts[i].sp.runes))
	}
	lettersOf := make([]string, len(words))
	for i, w := range words {
		lettersOf[i] = letters(w.Text)
	}
	var out []match
	for i := 0; i < len(words); {
		best, bestN, bestScore := -1, 0, 2.0
		heard := &spelling{}
		for n := 1; n <= maxTermWords+2 && i+n <= len(words); n++ {
			if n > 1 && words[i+n-1].Start-words[i+n-2].End > maxGap {
				break
			}
			heard.add(lettersOf[i+n-1])
			if len(heard.runes) > 2*longest {
				break // half its letters would be extra for every term
			}
			if len(heard.runes) == 0 {
				continue
			}
			for k, t := range ts {
				if n > t.words+2 {
					continue
				}
				if s, ok := closeness(heard, t.sp); ok && s < bestScore {
					best, bestN, bestScore = k, n, s
				}
			}
		}
		if best < 0 {
			i++
			continue
		}
		out = append(out, match{from: i, to: i + bestN, term: ts[best].text})
		i += bestN
	}
	return out
}

// closeness says whether heard is close to a term, with a score (lower
// is closer). Terms of fewer than four letters match only their own
// spelling (any case): a short word is close to too many others. Longer
// ones match when the spelling differs by at most a fifth of its letters,
// or the phonetic keys agree and the spelling differs by at most half,
// or the keys differ by at most a quarter and the spelling by at most a
// third. Bounds from the lengths and the letter counts rule most pairs
// out before any distance is computed.
func closeness(heard, term *spelling) (float64, bool) {
	lh, lt := len(heard.runes), len(term.runes)
	if lh == lt && string(heard.runes) == string(term.runes) {
		return 0, true
	}
	if lt < 4 {
		return 0, false
	}
	longer := float64(max(lh, lt))
	diff := 0
	for i := range heard.count {
		d := int(heard.count[i]) - int(term.count[i])
		diff += max(d, -d)
	}
	atLeast := float64(max(abs(lh-lt), (diff+1)/2)) / longer
	if atLeast > 0.5 {
		return 0, false
	}
	sameKey := heard.phonetic() == term.key
	if !sameKey && atLeast > 0.34 {
		return 0, false
	}
	spell := normalisedDistance(string(heard.runes), string(term.runes))
	sound := 0.0
	if !sameKey {
		sound = normalisedDistance(heard.key, term.key)
	}
	ok := spell <= 0.2 || (sound == 0 && spell <= 0.5) || (sound <= 0.25 && spell <= 0.34)
	return spell + sound, ok
}

func abs(x int) int { return max(x, -x) }

// letters is s lower-cased with only its letters and digits.
func letters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// normalisedDistance is the Levenshtein distance of a and b (in runes)
// over the longer's length: 0 equal, 1 nothing in common.
func normalisedDistance(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 && len(rb) == 0 {
		return 0
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(rb)]) / float64(max(len(ra), len(rb)))
}

// phoneticKey is a simplified Metaphone of lower-case letters: letters
// that sound alike share a code (c/k/q → k, soft c/s/z → s, ph/v → f,
// soft g/j → j, d → t, x → ks, th → 0, sh and ch → x), silent initial
// letters (kn, gn, pn, wr) and h, w and y that do not sound a vowel are
// dropped, vowels count only as a word's first letter (written a), and a
// repeated code is written once. Digits are kept as they are.
func phoneticKey(s string) string {
	r := []rune(s)
	if len(r) >= 2 {
		switch string(r[:2]) {
		case "kn", "gn", "pn", "wr":
			r = r[1:]
		}
	}
	if len(r) > 0 && r[0] == 'x' {
		r[0] = 's'
	}
	at := func(i int) rune {
		if i >= 0 && i < len(r) {
			return r[i]
		}
		return 0
	}
	vowel := func(c rune) bool { return strings.ContainsRune("aeiou", c) }
	soft := func(c rune) bool { return c == 'e' || c == 'i' || c == 'y' }
	var out []rune
	emit := func(codes ...rune) {
		for _, c := range codes {
			if n := len(out); n == 0 || out[n-1] != c {
				out = append(out, c)
			}
		}
	}
	for i := 0; i < len(r); i++ {
		c, next := r[i], at(i+1)
		switch {
		case vowel(c):
			if i == 0 {
				emit('a')
			}
		case c == 'c' && next == 'h', c == 's' && next == 'h':
			emit('x')
			i++
		case c == 't' && next == 'h':
			emit('0')
			i++
		case c == 'p' && next == 'h':
			emit('f')
			i++
		case c == 'c' && next == 'k':
			emit('k')
			i++
		case c == 'c' && soft(next):
			emit('s')
		case c == 'c', c == 'k', c == 'q':
			emit('k')
		case c == 'd' && next == 'g' && soft(at(i+2)):
			emit('j')
			i++
		case c == 'd':
			emit('t')
		case c == 'g' && soft(next):
			emit('j')
		case c == 'g' && next == 'h' && !vowel(at(i+2)):
			i++ // "night": silent
		case c == 'v':
			emit('f')
		case c == 'z':
			emit('s')
		case c == 'x':
			emit('k', 's')
		case c == 'h', c == 'w', c == 'y':
			if vowel(next) && (c != 'h' || i == 0 || vowel(at(i-1))) {
				emit(c)
			}
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			emit(c)
		}
	}
	return string(out)
}
