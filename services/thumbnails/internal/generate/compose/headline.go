package compose

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"unicode"

	"hookline.dev/pkg/ai/nlp"
)

// A derived headline is a prompt cut to at most five words that still
// says what the video is about. The prompt is read as tokens, and the
// tokens as phrases:
//
//   - a name phrase is a product or proper name with its model numbers and
//     line words ("iPhone 17 Pro", "Galaxy S26 Ultra", "GPT-5", "RTX
//     5090", "Windows 11"); it may shorten ("iPhone 17", "S26 Ultra") but
//     never to a bare number or a bare line word;
//   - a connector ("vs") stands between two kept phrases or not at all;
//   - every other run of adjacent keywords is a phrase whose shortened
//     forms keep its last word (English puts the head of a noun phrase
//     last: "gaming laptops") and its strongest word ("cheapest"), and
//     keep a count with the word it counts ("5 laptops", "top 10 games").
//
// The phrases that carry the subject and the hook (names, models, numbers,
// hook words like "never", "secret", "vs") go in first, at their shortest;
// then they grow to their full form, then other phrases fill the space
// the seed allows (three to five words).

// A derived headline drops nlp's common stop words and titleStopwords:
// the commonest function words of French, Spanish and German, a few more
// English ones, and the words people use to describe a thumbnail rather
// than its subject. It keeps the negations a transcript drops.
var titleStopwords = wordSet(`yet onto mine whose shall lets thumbnail thumbnails video videos youtube image picture photo showing
	shows show featuring feature style styled background text title bold bright colorful colourful
	design please need vibrate vibrant create generate kind le la les un une des du de et au aux avec
	pour dans sur à el los las una unos del con para por und mit für von der das ein eine zu im unless`)

// strongWords make a headline click: superlatives, stakes and contrast.
var strongWords = wordSet(`best worst ultimate insane crazy epic secret secrets truth
	always free fast faster fastest huge giant biggest first last new finally shocking
	impossible win wins lost broke rich million billion hack hacks mistake mistakes
	easy hardest perfect exposed banned top live`)

// connectors join two subjects: a headline keeps one only between two
// kept phrases.
var connectors = wordSet(`vs versus`)

// negations turn what follows them around: a headline keeps them with
// it ("no equipment", "don't buy").
var negations = wordSet(`no not without don't doesn't didn't can't isn't aren't wasn't won't
	never`)

// lineWords follow a product name or model number and belong to it
// ("iPhone 17 Pro", "Galaxy S26 Ultra", "MacBook Air").
var lineWords = wordSet(`pro max ultra mini plus air lite se xl fe edition neo`)

// weakWords are kept but ranked last: vague nouns that fill a headline
// without saying anything.
var weakWords = wordSet(`year years day days week weeks month months time times way ways
	people person guy guys everyone someone stuff today ever happen happens happened`)

// stopword reports a word a derived headline drops (k lower-case).
func stopword(k string) bool { return nlp.IsCommonStopword(k) || titleStopwords[k] }

// wordSet is nlp's, for the word lists of this package.
var wordSet = nlp.WordSet

// kind is what a token is to a headline.
type kind int

const (
	plain     kind = iota
	name           // a proper or product name: iPhone, NASA, Japan
	model          // letters with digits: S26, M4, GPT-5, PS5
	count          // a bare number: means nothing without the word it counts or names
	figure         // a number that stands alone: $100, 50%, 24h, 4K, 2026
	lineWord       // a product line word after a name: Pro, Ultra
	hook           // a strong word: secret, best
	connector      // vs
	negation       // no, not, without, don't, never: kept with what follows
)

// token is a word of a prompt with what a headline needs to know of it.
type token struct {
	text  string // as written, trimmed of punctuation
	key   string // lower-case, for matching
	pos   int    // index in its text; adjacent words differ by one
	src   int    // 0 the tweak, 1 the prompt: words of both are never adjacent
	kind  kind
	caps  bool // starts with a capital letter
	score float64
}

// tokens splits text into words, keeping digits with their units, signs
// and separators ($100, 10x, 24h, 50%, $30,000, 2.5), apostrophes and
// hyphens inside words (don't, GPT-5), and dropping hashtags (#shorts,
// but not #1) and whatever is neither letter nor digit (emoji, quotes).
func tokens(text string) []string {
	var out []string
	for _, t := range marked(text) {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// marked is tokens with an empty string where punctuation breaks the
// text (a colon, a dash, a bracket, a comma, a sentence's end): words
// on either side do not form a phrase. It is nlp.Split under the
// headline's rules (titleClass).
func marked(text string) []string {
	var out []string
	for _, p := range nlp.Split(text, nlp.Rules{Class: titleClass}) {
		t := strings.ReplaceAll(p.Text, "’", "'")
		switch rs := []rune(t); {
		case p.Break:
			if len(out) == 0 || out[len(out)-1] != "" {
				out = append(out, "")
			}
		case len(rs) > 1 && rs[0] == '#' && unicode.IsLetter(rs[1]):
			out = append(out, "") // a hashtag: metadata, not a word of the title
		default:
			out = append(out, t)
		}
	}
	return out
}

// titleClass is what a title's rune that is neither letter nor digit
// is: a combining accent, a currency or percent sign, a plus or hash
// join a word, and so do an apostrophe or hyphen between letters or
// digits and a separator inside a number; ": ; | ( ) [ ] { } – — - , .
// ! ? " “ ” /" elsewhere end the clause.
func titleClass(r []rune, i int, _ []rune) nlp.Class {
	inside := func(i int) bool {
		return i > 0 && i+1 < len(r) && (unicode.IsLetter(r[i-1]) || unicode.IsDigit(r[i-1])) &&
			(unicode.IsLetter(r[i+1]) || unicode.IsDigit(r[i+1]))
	}
	c := r[i]
	switch {
	case unicode.Is(unicode.Mn, c):
		// A combining accent, not the variation selector of an emoji.
		if i > 0 && unicode.IsLetter(r[i-1]) {
			return nlp.Join
		}
	case c == '$' || c == '%' || c == '+' || c == '#' || c == '€' || c == '£':
		return nlp.Join
	case c == '\'' || c == '’' || c == '-':
		if inside(i) {
			return nlp.Join
		}
	case c == ',' || c == '.':
		// A separator inside a number, not a punctuation mark.
		if i > 0 && i+1 < len(r) && unicode.IsDigit(r[i-1]) && unicode.IsDigit(r[i+1]) {
			return nlp.Join
		}
	}
	if strings.ContainsRune(":;|()[]{}–—-,.!?\"“”/", c) {
		return nlp.Break
	}
	return nlp.Sep
}

// wordScore ranks a word of a headline the request brings, to pick the
// one to highlight.
func wordScore(w string) float64 {
	return scoreOf(token{key: strings.ToLower(w), kind: kindOf(w, 0, casing{})})
}

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// casing says how a text is capitalised: in Title Case or ALL CAPS a
// capital says nothing about names.
type casing struct{ title, upper bool }

func casingOf(words []string) casing {
	var letters, capital, upper int
	for i, w := range words {
		r := []rune(w)
		if i == 0 || !unicode.IsLetter(r[0]) {
			continue
		}
		letters++
		if unicode.IsUpper(r[0]) {
			capital++
		}
		if len(r) > 1 && strings.ToUpper(w) == w {
			upper++
		}
	}
	return casing{title: letters > 0 && capital*5 >= letters*3, upper: letters > 0 && upper*5 >= letters*3}
}

// kindOf classifies word w, the i-th of a text cased c.
func kindOf(w string, i int, c casing) kind {
	k := strings.ToLower(w)
	r := []rune(w)
	switch {
	case connectors[k]:
		return connector
	case negations[k]:
		return negation
	case hasDigit(w) && unicode.IsLetter(r[0]):
		return model
	case hasDigit(w):
		digits := strings.Trim(w, "0123456789.,")
		if digits == "" {
			if len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) {
				return figure // a year
			}
			return count
		}
		return figure
	case strongWords[k] || strings.HasSuffix(k, "est") && len(k) > 5:
		return hook
	case lineWords[k]:
		return lineWord
	}
	lowerThenUpper := false
	for j := 1; j < len(r); j++ {
		if unicode.IsUpper(r[j]) && unicode.IsLower(r[j-1]) {
			lowerThenUpper = true
		}
	}
	acronym := len(r) > 1 && !c.upper && strings.ToUpper(w) == w && strings.ToLower(w) != w
	capital := i > 0 && !c.title && !c.upper && unicode.IsUpper(r[0])
	if lowerThenUpper || acronym || capital {
		return name
	}
	return plain
}

// scoreOf ranks a token: numbers first (they are what a viewer reads),
// then the contrast of a "vs", models, hooks and names; then long
// (usually specific) words, vague ones last.
func scoreOf(t token) float64 {
	switch t.kind {
	case count, figure:
		return 5
	case connector:
		return 4.8
	case model:
		return 4.5
	case hook:
		return 4
	case negation:
		// What not to do is the hook ("Don't buy…", "no equipment"); a
		// contraction later on is a clause's ("…you didn't know").
		if strings.Contains(t.key, "'") && t.pos > 0 {
			return 1
		}
		return 4
	case name:
		return 3.5
	case lineWord:
		return 3
	}
	switch n := len([]rune(t.key)); {
	case weakWords[t.key]:
		return 0.5
	case n > 4 && strings.HasSuffix(t.key, "ed"):
		// Usually a past-tense verb: the subject's nouns say more. (Not
		// -ing: gaming, morning, building name subjects.)
		return 1.5
	case n >= 6:
		return 2
	default:
		return 1
	}
}

// essential is the least score of a phrase that carries the subject or
// the hook: it goes in before anything else.
const essential = 3

// lex reads the keywords of tweak and prompt, tweak first and boosted: a
// variation's change request takes priority over the words it varies.
func lex(prompt, tweak string, omit ...string) []token {
	var out []token
	seen := map[string]bool{}
	for src, text := range []string{tweak, prompt} {
		words := marked(text)
		c := casingOf(tokens(text))
		n := 0 // the word's index among words, for the casing rules
		for i, w := range words {
			if w == "" {
				continue
			}
			n++
			k := strings.ToLower(w)
			if stopword(k) {
				continue
			}
			t := token{text: w, key: k, pos: i, src: src, kind: kindOf(w, n-1, c), caps: unicode.IsUpper([]rune(w)[0])}
			if t.kind != connector && slices.Contains(omit, k) {
				continue
			}
			t.score = scoreOf(t)
			if src == 0 {
				t.score += 6
			}
			// A word said twice is kept once, where it first appears; a
			// count may repeat ("1 vs 1").
			if seen[k] && t.kind != count {
				continue
			}
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// phrase is a run of adjacent tokens, and the forms it may take in a
// headline.
type phrase struct {
	toks  []token
	forms [][]int // indexes into toks, each form in order; the shortest first
	score float64 // its strongest token's, and a half for a name
	conn  bool
}

func adjacent(a, b token) bool { return a.src == b.src && b.pos == a.pos+1 }

// maxRun is the longest phrase: longer runs of keywords are cut.
const maxRun = 8

// phrases groups the tokens into runs of adjacent words, a connector
// alone. A phrase that cannot stand in a headline (a lone count: "mom of
// 3") is left out.
func phrases(toks []token) []phrase {
	var out []phrase
	var run []token
	add := func(p phrase) {
		if len(p.forms) > 0 {
			out = append(out, p)
		}
	}
	flush := func() {
		for len(run) > 0 {
			n := min(len(run), maxRun)
			add(newPhrase(run[:n], false))
			run = run[n:]
		}
	}
	for _, t := range toks {
		// A count after a possessive starts what the name owns
		// ("Ramsay's 10 minute pasta"), not a model number.
		possessive := len(run) > 0 && t.kind == count && strings.HasSuffix(run[len(run)-1].key, "'s")
		if len(run) > 0 && !adjacent(run[len(run)-1], t) || t.kind == connector || t.kind == negation || possessive {
			flush()
		}
		if t.kind == connector {
			add(newPhrase([]token{t}, true))
			continue
		}
		run = append(run, t)
	}
	flush()
	return out
}

// unit is a name inside a phrase: tokens [from, to) of it, its core (the
// token every form of it keeps) and whether it may shorten.
type unit struct {
	from, to, core int
	shortens       bool
}

// units finds the names of a run: a name, or a model, or a capitalised
// word before a model, count or name, with the model numbers, names and
// line words after it ("iPhone 17 Pro", "Galaxy S26 Ultra", "Elden
// Ring"), and a count just before it ("10 Python"). A name with a number
// in it may shorten ("iPhone 17", "S26 Ultra"); a name of words may not
// ("Gordon Ramsay's", "São Paulo").
func units(toks []token) []unit {
	var out []unit
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		nextKind := kind(-1)
		if i+1 < len(toks) {
			nextKind = toks[i+1].kind
		}
		starts := t.kind == name || t.kind == model ||
			t.caps && t.kind == plain && (nextKind == count || nextKind == model || nextKind == name)
		if !starts {
			continue
		}
		u := unit{from: i, to: i + 1}
		if i > 0 && toks[i-1].kind == count && (len(out) == 0 || out[len(out)-1].to < i) {
			u.from = i - 1
		}
		for u.to < len(toks) && u.to-i < 4 {
			n := toks[u.to]
			possessive := strings.HasSuffix(toks[u.to-1].key, "'s")
			if n.kind != model && n.kind != name && n.kind != lineWord && (n.kind != count || possessive) {
				break
			}
			u.to++
		}
		u.core = u.from
		for j := u.from; j < u.to; j++ {
			if toks[j].kind == count || toks[j].kind == model {
				u.shortens = true
			}
			if toks[j].score > toks[u.core].score {
				u.core = j
			}
		}
		out = append(out, u)
		i = u.to - 1
	}
	return out
}

// newPhrase lists the forms of toks: every subsequence that keeps the
// strongest token, and the strongest name when there is one, else the
// last word (English puts the head of a noun phrase last: "gaming
// laptops"); that keeps a name whole, or a numbered name contiguous
// around its core ("iPhone 17", "S26 Ultra"); where each line word keeps
// the word before it, each count its neighbour (a name's "17", a count's
// "5 laptops"), and a negation the word after it and is kept by every
// word after it ("no equipment").
func newPhrase(toks []token, conn bool) phrase {
	p := phrase{toks: toks, conn: conn}
	n := len(toks)
	best := 0
	for i, t := range toks {
		if t.score > toks[best].score {
			best = i
		}
	}
	p.score = toks[best].score
	us := units(toks)
	unitOf := make([]int, n)
	for i := range unitOf {
		unitOf[i] = -1
	}
	subject := -1
	for k, u := range us {
		for j := u.from; j < u.to; j++ {
			unitOf[j] = k
		}
		if subject < 0 || toks[u.core].score > toks[us[subject].core].score {
			subject = k
		}
	}
	head := n - 1
	if subject >= 0 {
		head = us[subject].core
		// A phrase that names the subject goes in before an equally
		// strong one that does not.
		p.score += 0.5
	}
	for mask := 1; mask < 1<<n; mask++ {
		in := func(i int) bool { return i >= 0 && i < n && mask&(1<<i) != 0 }
		if in(best) && in(head) && valid(toks, us, unitOf, in) {
			var form []int
			for i := range n {
				if in(i) {
					form = append(form, i)
				}
			}
			p.forms = append(p.forms, form)
		}
	}
	// Shortest first; of equal length, the one with fewest gaps, then the
	// one whose words score most, then the earlier.
	gaps := func(f []int) int {
		g := 0
		for i := 1; i < len(f); i++ {
			if f[i] != f[i-1]+1 {
				g++
			}
		}
		return g
	}
	sum := func(f []int) float64 {
		s := 0.0
		for _, i := range f {
			s += toks[i].score
		}
		return s
	}
	sort.SliceStable(p.forms, func(i, j int) bool {
		a, b := p.forms[i], p.forms[j]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		if gaps(a) != gaps(b) {
			return gaps(a) < gaps(b)
		}
		return sum(a) > sum(b)
	})
	return p
}

// valid says whether the tokens in form a phrase's form: see newPhrase.
func valid(toks []token, us []unit, unitOf []int, in func(int) bool) bool {
	negated := false
	for i, t := range toks {
		if in(i) && negated {
			return false // it needs the negation before it
		}
		if t.kind == negation && !in(i) {
			negated = true
		}
		if t.kind == negation && in(i) && !in(i+1) {
			return false
		}
	}
	for _, u := range us {
		any, all, runs := false, true, 0
		for j := u.from; j < u.to; j++ {
			any = any || in(j)
			all = all && in(j)
			if in(j) && !in(j-1) || in(j) && j == u.from {
				runs++
			}
		}
		if any && (!in(u.core) || !u.shortens && !all || runs > 1) {
			return false
		}
	}
	for i, t := range toks {
		if !in(i) {
			continue
		}
		switch t.kind {
		case lineWord:
			if !in(i - 1) {
				return false
			}
		case count:
			u := unitOf[i]
			first := u >= 0 && us[u].from == i
			last := i == len(toks)-1 || u >= 0 && us[u].to == i+1
			needNext := first || u < 0 && !last
			if needNext && !in(i+1) || !needNext && !in(i-1) {
				return false
			}
			// A name's number keeps the whole name before it ("Dark
			// Souls 3", not "Souls 3").
			for j := i - 1; u >= 0 && !first && j >= us[u].from; j-- {
				if !in(j) {
					return false
				}
			}
		}
	}
	return true
}

// headline is a derived headline: its words in reading order and the
// index of the one to highlight.
type headline struct {
	words     []string
	highlight int
}

// maxHeadline is the most words a derived headline holds.
const maxHeadline = 5

// deriveHeadline picks up to five words of prompt (tweak first) that
// keep its subject and hook, in their order, and the strongest of them to
// highlight. maxWords caps the count (0: no cap beyond five); the seed
// picks how many words beyond the subject it takes (three to five in all)
// and breaks ties between equal phrases, so that two variations read
// differently. The words of omit (lower case) are left out, but for a
// connector: a badge shows them. A prompt with no keyword at all gives its
// first words as they are, and one with no word at all an empty headline.
func deriveHeadline(prompt, tweak string, seed uint64, maxWords int, omit ...string) headline {
	rng := rand.New(rand.NewPCG(seed, 0x4865616464)) //nolint:gosec // G404: wording choices, reproducible by seed, not secrets
	toks := lex(prompt, tweak, omit...)
	if len(toks) == 0 {
		for i, t := range tokens(tweak + " " + prompt) {
			toks = append(toks, token{text: t, key: strings.ToLower(t), pos: i, src: 1, score: 1})
		}
		if len(toks) == 0 {
			return headline{highlight: -1}
		}
		toks = toks[:min(len(toks), maxHeadline)]
	}
	most := maxHeadline
	if maxWords > 0 {
		most = min(most, maxWords)
	}
	ps := phrases(toks)
	chosen := choose(ps, rng, most, 3+rng.IntN(3))
	h := headline{highlight: -1}
	best := -1.0
	for i, p := range ps {
		f := chosen[i]
		for _, j := range f {
			t := p.toks[j]
			if t.score > best {
				best, h.highlight = t.score, len(h.words)
			}
			h.words = append(h.words, t.text)
		}
	}
	return h
}

// choose picks a form (nil: none) for each phrase: the essential phrases
// at their shortest within most words, the connectors between two of
// them, then the chosen phrases at their longest within limit, then the
// others that fit. It always picks at least one word.
func choose(ps []phrase, rng *rand.Rand, most, limit int) [][]int {
	chosen := make([][]int, len(ps))
	order := make([]int, len(ps))
	jitter := make([]float64, len(ps))
	for i := range ps {
		order[i] = i
		// Less than the gap between two ranks of words: the seed reorders
		// equals, not a name and a filler.
		jitter[i] = rng.Float64() * 0.45
	}
	sort.SliceStable(order, func(a, b int) bool {
		return ps[order[a]].score+jitter[order[a]] > ps[order[b]].score+jitter[order[b]]
	})
	used := 0
	fits := func(f []int, within int) bool { return used+len(f) <= within }
	connect := func(within int) {
		for i, p := range ps {
			if p.conn && chosen[i] == nil && used < within && keptBefore(chosen, i) && keptAfter(chosen, i) {
				chosen[i] = p.forms[0]
				used++
			}
		}
	}
	for _, i := range order {
		p := ps[i]
		if !p.conn && p.score >= essential && fits(p.forms[0], most) {
			chosen[i] = p.forms[0]
			used += len(p.forms[0])
			// A "vs" as soon as it has a subject on each side: the
			// contrast is the hook.
			connect(most)
		}
	}
	if used == 0 {
		// Not even the strongest phrase fits at its shortest: the first
		// word of the strongest that can stand alone.
		for _, i := range order {
			for j, t := range ps[i].toks {
				if t.kind != count && t.kind != lineWord && t.kind != connector {
					chosen[i], used = []int{j}, 1
					break
				}
			}
			if used > 0 {
				break
			}
		}
	}
	limit = min(max(limit, used), most)
	grow := func() {
		for _, i := range order {
			if chosen[i] == nil {
				continue
			}
			for _, f := range ps[i].forms {
				if len(f) > len(chosen[i]) && used-len(chosen[i])+len(f) <= limit {
					used += len(f) - len(chosen[i])
					chosen[i] = f
				}
			}
		}
	}
	connect(limit)
	grow()
	// Other phrases fill the rest, unless they are filler: a weak or
	// short word adds nothing to a headline that already has three.
	for _, i := range order {
		p := ps[i]
		within := limit
		if used < 3 {
			within = most // a headline of one or two words says too little
		}
		if chosen[i] != nil || p.conn || p.score < 1.5 && used >= 3 || !fits(p.forms[0], within) {
			continue
		}
		chosen[i] = p.forms[0]
		used += len(p.forms[0])
	}
	connect(limit)
	grow()
	return chosen
}

func keptBefore(chosen [][]int, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if chosen[j] != nil {
			return true
		}
	}
	return false
}

func keptAfter(chosen [][]int, i int) bool {
	for j := i + 1; j < len(chosen); j++ {
		if chosen[j] != nil {
			return true
		}
	}
	return false
}

// subline lists the phrases of prompt a headline left out, whole, in
// order, up to n words: the second line of a layout that has one.
func subline(prompt string, used []string, n int) []string {
	taken := map[string]bool{}
	for _, w := range used {
		taken[strings.ToLower(w)] = true
	}
	var out []string
	for _, p := range phrases(lex(prompt, "")) {
		if p.conn {
			continue
		}
		fresh := true
		for _, t := range p.toks {
			fresh = fresh && !taken[t.key]
		}
		f := p.forms[len(p.forms)-1]
		if !fresh || len(out)+len(f) > n {
			continue
		}
		for _, j := range f {
			out = append(out, p.toks[j].text)
		}
	}
	return out
}
