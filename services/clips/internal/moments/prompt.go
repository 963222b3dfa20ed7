package moments

import (
	"slices"
	"strings"

	"hookline.dev/pkg/ai/nlp"
)

// MaxPrompt bounds a prompt, in characters.
const MaxPrompt = 500

// Lexicon gives the words related to a word: its synonyms (the other
// words of its senses) and near relations (broader, narrower, similar
// and derived words). WordNet in production (package wordnet).
type Lexicon interface {
	Related(word string) (synonyms, related []string, err error)
}

// Match is how a clip matches the project's prompt: the transcript's
// words that matched and the sentence they are in. Nil without a
// prompt.
type Match struct {
	Matched bool
	// Terms are the words of the clip that matched, as said.
	Terms []string
	// Quote is the clip's best-matching sentence, as said.
	Quote string
}

// The weights of a prompt word's forms: the word itself (by stem), a
// synonym, a near relation.
const (
	exactWeight   = 1.0
	synonymWeight = 0.8
	relatedWeight = 0.5
)

// promptFillers are the words of a request that name no topic: "the
// part where she explains pricing" asks for pricing.
var promptFillers = nlp.WordSet(`part parts moment moments clip clips bit bits section sections segment segments where whenever
	time times mention mentions mentioned mentioning explain explains explained explaining talk talks talking
	talked discuss discusses discussing discussed speak speaks speaking spoke show shows find about every
	each all any video bits piece pieces`)

// concept is one topic word of a prompt: the stems that count for it
// and their weights.
type concept struct {
	stems map[string]float64
}

// query is a parsed prompt.
type query struct {
	prompt   string
	concepts []concept
}

// parsePrompt splits a prompt into topic words and widens each with lx
// (nil: the words and their stems only).
func parsePrompt(prompt string, lx Lexicon) (*query, error) {
	q := &query{prompt: strings.TrimSpace(prompt)}
	if q.prompt == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, t := range nlp.Tokens(q.prompt) {
		if nlp.IsStopword(t) || promptFillers[t] || len(t) < 2 || seen[nlp.Stem(t)] {
			continue
		}
		seen[nlp.Stem(t)] = true
		c := concept{stems: map[string]float64{nlp.Stem(t): exactWeight}}
		if lx != nil {
			syn, rel, err := lx.Related(t)
			if err != nil {
				return nil, err
			}
			c.widen(syn, synonymWeight)
			c.widen(rel, relatedWeight)
		}
		q.concepts = append(q.concepts, c)
	}
	return q, nil
}

func (c *concept) widen(words []string, w float64) {
	for _, x := range words {
		if len(x) < 3 || nlp.IsStopword(x) || promptFillers[x] {
			continue
		}
		if s := nlp.Stem(x); c.stems[s] < w {
			c.stems[s] = w
		}
	}
}

// hit is what one sentence matches: per concept the best weight, and
// the words said that matched.
type hit struct {
	weights []float64
	terms   []string
}

// hits matches every sentence against q.
func (d *doc) hits(q *query) []hit {
	out := make([]hit, len(d.sents))
	for k, s := range d.sents {
		h := hit{weights: make([]float64, len(q.concepts))}
		for _, t := range nlp.Tokens(s.text) {
			st := nlp.Stem(t)
			for ci, c := range q.concepts {
				if w := c.stems[st]; w > 0 {
					h.weights[ci] = max(h.weights[ci], w)
					if !slices.Contains(h.terms, t) {
						h.terms = append(h.terms, t)
					}
				}
			}
		}
		out[k] = h
	}
	return out
}

// matchOf is how well sentences i..j match: the mean over the prompt's
// concepts of the best weight any sentence gives it (0..1), the words
// that matched and the best sentence.
func (d *doc) matchOf(i, j int) (float64, *Match) {
	if d.query == nil {
		return 0, nil
	}
	m := &Match{Terms: []string{}}
	if i < 0 || len(d.query.concepts) == 0 {
		return 0, m
	}
	n := len(d.query.concepts)
	best := make([]float64, n)
	bestSent, bestSum, said := -1, 0.0, 0
	for k := i; k <= j; k++ {
		h := d.hit[k]
		sum := 0.0
		for ci, w := range h.weights {
			best[ci] = max(best[ci], w)
			sum += w
		}
		for _, t := range h.terms {
			if len(m.Terms) < 5 && !slices.Contains(m.Terms, t) {
				m.Terms = append(m.Terms, t)
			}
		}
		if sum > 0 {
			said++
		}
		if sum > bestSum {
			bestSent, bestSum = k, sum
		}
	}
	cover := 0.0
	for _, w := range best {
		cover += w
	}
	if bestSent < 0 {
		return 0, m
	}
	m.Matched, m.Quote = true, quote(d.sents[bestSent].text)
	// A moment about the prompt, not one that brushes it: the coverage
	// of the prompt's words, scaled by the share of sentences that match.
	return cover / float64(n) * (0.5 + 0.5*float64(said)/float64(j-i+1)), m
}
