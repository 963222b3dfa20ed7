package textai

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/ai/nlp"
)

// digest is what is measured of a source once, for every product.
type digest struct {
	title    string
	text     string
	phrases  []nlp.Phrase
	keywords []nlp.Phrase
	summary  []nlp.Sentence
	types    []nlp.TypeScore
	hook     string // the source's strongest opening-style sentence
	number   string // the number the source repeats most, "" if none
	emotion  float64
	duration float64
}

// Sizes of the measurements.
const (
	digestPhrases  = 20
	digestKeywords = 30
	digestSummary  = 3
	// hookSentences bounds the sentences scanned for a hook line: the
	// opening of a video is where its hook is said.
	hookSentences = 60
)

func measure(src Source) digest {
	text := strings.TrimSpace(src.Text)
	basis := text
	if basis == "" {
		basis = src.Title
	}
	d := digest{title: strings.TrimSpace(src.Title), text: basis, duration: src.Duration}
	d.phrases = nlp.KeyPhrases(basis, digestPhrases)
	if t := strings.TrimSpace(src.Title); t != "" && text != "" {
		// Words of the title that the transcript also says are what the
		// video is about: lift the phrases that contain them.
		d.phrases = boostTitle(d.phrases, t)
	}
	d.keywords = nlp.Keywords(basis, digestKeywords)
	d.summary = nlp.Summary(basis, digestSummary)
	d.types = nlp.DetectType(basis)
	d.emotion = nlp.Emotion(basis)
	d.hook = bestHook(basis)
	d.number = commonNumber(basis)
	return d
}

// boostTitle moves phrases sharing a stemmed word with the title ahead of
// those that do not, keeping each group's order.
func boostTitle(ps []nlp.Phrase, title string) []nlp.Phrase {
	stems := map[string]bool{}
	for _, w := range nlp.Tokens(title) {
		if !nlp.IsStopword(w) {
			stems[nlp.Stem(w)] = true
		}
	}
	in := func(p nlp.Phrase) bool {
		for _, w := range nlp.Tokens(p.Text) {
			if stems[nlp.Stem(w)] {
				return true
			}
		}
		return false
	}
	out := make([]nlp.Phrase, 0, len(ps))
	for _, p := range ps {
		if in(p) {
			out = append(out, p)
		}
	}
	for _, p := range ps {
		if !in(p) {
			out = append(out, p)
		}
	}
	return out
}

// contentType is the detected type, "" when nothing scored.
func (d digest) contentType() nlp.ContentType {
	if len(d.types) == 0 || d.types[0].Score <= 0 {
		return ""
	}
	return d.types[0].Type
}

// phrase returns the i-th key phrase distinct (by stems) from avoid, or "".
func (d digest) phrase(i int, avoid ...string) string {
	n := 0
	for _, p := range d.phrases {
		if overlaps(p.Text, avoid...) {
			continue
		}
		if n == i {
			return p.Text
		}
		n++
	}
	for _, k := range d.keywords {
		if overlaps(k.Text, avoid...) {
			continue
		}
		if n == i {
			return k.Text
		}
		n++
	}
	return ""
}

// mainKeyword is the caller's first keyword, else the top key phrase, else
// the title's strongest words.
func (d digest) mainKeyword(keywords []string) string {
	for _, k := range keywords {
		if k = strings.TrimSpace(k); k != "" {
			return k
		}
	}
	if p := d.phrase(0); p != "" {
		return p
	}
	return firstWords(d.title, 3)
}

// mentions counts case-insensitive occurrences of phrase in the text.
func (d digest) mentions(phrase string) int {
	if phrase == "" {
		return 0
	}
	return strings.Count(strings.ToLower(d.text), strings.ToLower(phrase))
}

func overlaps(text string, others ...string) bool {
	a := stemSet(text)
	for _, o := range others {
		for s := range stemSet(o) {
			if a[s] {
				return true
			}
		}
	}
	return false
}

func stemSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range nlp.Tokens(s) {
		if !nlp.IsStopword(w) {
			out[nlp.Stem(w)] = true
		}
	}
	return out
}

// bestHook is the sentence near the start with the strongest hook
// features, between 20 and MaxHookLine code points.
func bestHook(text string) string {
	best, score := "", 0.0
	for i, s := range nlp.Sentences(text) {
		if i >= hookSentences {
			break
		}
		n := utf8.RuneCountInString(s.Text)
		if n < 20 || n > MaxHookLine {
			continue
		}
		// Earlier sentences win ties: the opening is the hook.
		sc := nlp.Hook(s.Text).Score - float64(i)*0.002
		if sc > score {
			best, score = s.Text, sc
		}
	}
	return best
}

var numberRe = regexp.MustCompile(`\b([1-9][0-9]{0,2})\b`)

// commonNumber is the small number the text says most often (at least
// twice), e.g. the "5" of "five steps … step 5"; "" when none repeats.
func commonNumber(text string) string {
	counts := map[string]int{}
	for _, m := range numberRe.FindAllString(text, 500) {
		counts[m]++
	}
	best, n := "", 1
	for k, c := range counts {
		if c > n || (c == n && best != "" && k < best) {
			best, n = k, c
		}
	}
	return best
}

// titleCase capitalises each word except short function words inside.
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		lw := strings.ToLower(w)
		if i > 0 && slices.Contains(minorWords, lw) {
			words[i] = lw
			continue
		}
		r, size := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[size:]
	}
	return strings.Join(words, " ")
}

var minorWords = []string{"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "vs", "with"}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// clip shortens s to at most n code points at a word boundary, with an
// ellipsis when something was cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-—") + "…"
}
