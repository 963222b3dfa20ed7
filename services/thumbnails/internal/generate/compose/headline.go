package compose

import (
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"
)

// stopWords are dropped from a derived headline: function words, and the
// words people use to describe a thumbnail rather than its subject.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but nor so yet of in on at to for from by with
		without about into onto over under than then as is are was were be been being am do does did
		have has had having i me my mine we us our you your he him his she her it its they them their
		this that these those there here what which who whom whose when where why how all any each
		some such no not only own same too very can could should would will shall may might must
		just also really get got make makes made let lets like up down out off again once s t
		thumbnail thumbnails video videos youtube image picture photo showing shows show featuring
		feature style styled background text title bold bright colorful colourful design please
		want need using use vibrate vibrant create generate something thing things one kind`) {
		m[w] = true
	}
	return m
}()

// strongWords make a headline click: superlatives, stakes and contrast.
var strongWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`best worst ultimate insane crazy epic secret secrets truth never
		always every free fast faster fastest huge giant biggest first last new finally shocking
		impossible vs versus win wins lost broke rich million billion hack hacks mistake mistakes
		easy hardest perfect only exposed banned`) {
		m[w] = true
	}
	return m
}()

// word is a candidate token of a prompt.
type word struct {
	text  string // as written, trimmed of punctuation
	key   string // lower-case, for matching
	pos   int    // order in the source (tweak words come first)
	score float64
}

// tokens splits text into words, keeping digits with their units, signs
// and separators ($100, 10x, 24h, 50%, $30,000, 2.5) and apostrophes
// inside words.
func tokens(text string) []string {
	r := []rune(text)
	keep := func(i int) bool {
		c := r[i]
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			return true
		case c == '\'' || c == '$' || c == '%' || c == '+' || c == '#' || c == '€' || c == '£':
			return true
		case c == ',' || c == '.':
			// A separator inside a number, not a punctuation mark.
			return i > 0 && i+1 < len(r) && unicode.IsDigit(r[i-1]) && unicode.IsDigit(r[i+1])
		}
		return false
	}
	var out []string
	start := -1
	for i := range r {
		switch {
		case keep(i) && start < 0:
			start = i
		case !keep(i) && start >= 0:
			out = append(out, string(r[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, string(r[start:]))
	}
	return out
}

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// weakWords are kept but ranked last: vague nouns that fill a headline
// without saying anything.
var weakWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`year years day days week weeks month months time times way ways
		people person guy guys everyone someone stuff today ever`) {
		m[w] = true
	}
	return m
}()

// scoreWord ranks a keyword: numbers and strong words first (they are
// what a viewer reads), then names, then long (usually specific) words,
// vague ones last.
func scoreWord(w string, capitalised bool) float64 {
	k := strings.ToLower(w)
	switch {
	case hasDigit(k):
		return 5
	case weakWords[k]:
		return 0.5
	case strongWords[k] || strings.HasSuffix(k, "est") && len(k) > 5:
		return 4
	case capitalised:
		return 3
	case len([]rune(k)) > 4 && strings.HasSuffix(k, "ed"):
		// Usually a past-tense verb: the subject's nouns say more. (Not
		// -ing: gaming, morning, building name subjects.)
		return 1.5
	case len([]rune(k)) >= 6:
		return 2
	default:
		return 1
	}
}

// candidates lists the keywords of prompt and tweak, tweak first and
// boosted: a variation's change request takes priority over the words it
// varies.
func candidates(prompt, tweak string) []word {
	var out []word
	seen := map[string]bool{}
	add := func(text string, boost float64) {
		for i, t := range tokens(text) {
			t = strings.Trim(t, "'")
			k := strings.ToLower(t)
			if k == "" || stopWords[k] || seen[k] {
				continue
			}
			seen[k] = true
			r := []rune(t)
			// A capital that does not open the text marks a name.
			capitalised := i > 0 && unicode.IsUpper(r[0])
			out = append(out, word{text: t, key: k, pos: len(out), score: scoreWord(t, capitalised) + boost})
		}
	}
	add(tweak, 6)
	add(prompt, 0)
	return out
}

// headline is a derived headline: its words in reading order and the
// index of the one to highlight.
type headline struct {
	words     []string
	highlight int
}

// deriveHeadline picks 2–5 keywords of prompt (tweak first), keeping
// their order, and the strongest of them to highlight. maxWords caps the
// count (0: no cap beyond five); the seed picks the count and breaks ties
// between equal keywords, so that two variations read differently. A
// prompt with no keyword at all gives its first words as they are, and
// one with no word at all an empty headline.
func deriveHeadline(prompt, tweak string, seed uint64, maxWords int) headline {
	rng := rand.New(rand.NewPCG(seed, 0x4865616464)) //nolint:gosec // G404: wording choices, reproducible by seed, not secrets
	cands := candidates(prompt, tweak)
	if len(cands) == 0 {
		for i, t := range tokens(tweak + " " + prompt) {
			cands = append(cands, word{text: t, key: strings.ToLower(t), pos: i, score: 1})
		}
	}
	if len(cands) == 0 {
		return headline{highlight: -1}
	}
	limit := 3 + rng.IntN(3) // 3, 4 or 5 words
	// A tweak's words lead, and two of the prompt's still say what the
	// video is about.
	limit = max(limit, min(len(candidates(tweak, ""))+2, 5))
	if maxWords > 0 && limit > maxWords {
		limit = maxWords
	}
	if limit > len(cands) {
		limit = len(cands)
	}
	ranked := make([]word, len(cands))
	copy(ranked, cands)
	jitter := make(map[int]float64, len(ranked))
	for _, c := range ranked {
		jitter[c.pos] = rng.Float64() * 0.9
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		return ranked[i].score+jitter[ranked[i].pos] > ranked[j].score+jitter[ranked[j].pos]
	})
	picked := ranked[:limit]
	best := picked[0].pos
	sort.Slice(picked, func(i, j int) bool { return picked[i].pos < picked[j].pos })
	h := headline{highlight: -1}
	for i, w := range picked {
		h.words = append(h.words, w.text)
		if w.pos == best {
			h.highlight = i
		}
	}
	return h
}

// subline lists the keywords a headline left out, up to n of them, in
// order: the second line of a layout that has one.
func subline(prompt string, used []string, n int) []string {
	taken := map[string]bool{}
	for _, w := range used {
		taken[strings.ToLower(w)] = true
	}
	var out []string
	for _, c := range candidates(prompt, "") {
		if taken[c.key] {
			continue
		}
		out = append(out, c.text)
		if len(out) == n {
			break
		}
	}
	return out
}

// firstNumber is the first token of text with a digit in it ("$100",
// "24h", "#1"), for badges; "" when there is none.
func firstNumber(text string) string {
	for _, t := range tokens(text) {
		if hasDigit(t) && len([]rune(t)) <= 7 {
			return t
		}
	}
	return ""
}
