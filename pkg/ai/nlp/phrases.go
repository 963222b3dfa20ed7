package nlp

import (
	"math"
	"sort"
	"strings"
)

// Phrase is a key phrase or keyword with its score and how often the text
// says it.
type Phrase struct {
	Text  string
	Score float64
	Count int
}

// maxPhraseWords bounds a candidate: longer stopword-free runs are split.
const maxPhraseWords = 3

// chunks are the stretches of text between punctuation: RAKE's phrase
// delimiters besides stopwords.
func chunks(text string) [][]string {
	var out [][]string
	for _, part := range strings.FieldsFunc(text, func(r rune) bool {
		return strings.ContainsRune(".,;:!?()[]{}\"“”—–\n", r)
	}) {
		if t := Tokens(part); len(t) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func content(w string) bool {
	if IsStopword(w) || len(w) < 3 {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false // a bare number
}

type candidate struct {
	words []string
	stems []string
	key   string
	count int
	forms map[string]int
}

// KeyPhrases returns the n strongest phrases of one to three words: RAKE
// candidates (runs of content words between stopwords and punctuation),
// each word weighted by RAKE's degree/frequency, its TextRank centrality in
// the word co-occurrence graph and its background TF-IDF weight; phrases
// with the same stems are merged under their most frequent wording, and a
// single word already inside a stronger phrase is left out.
func KeyPhrases(text string, n int) []Phrase {
	cs := chunks(text)
	cands := map[string]*candidate{}
	freq, deg := map[string]float64{}, map[string]float64{}
	var order []string
	var stream [][]string // content stems per chunk, for TextRank
	for _, ch := range cs {
		var run []string
		var stems []string
		flush := func() {
			for len(run) > 0 {
				k := min(len(run), maxPhraseWords)
				addCandidate(cands, &order, run[:k], freq, deg)
				run = run[k:]
			}
		}
		for _, w := range ch {
			if content(w) {
				run = append(run, w)
				stems = append(stems, Stem(w))
			} else {
				flush()
			}
		}
		flush()
		stream = append(stream, stems)
	}
	if len(cands) == 0 {
		return nil
	}
	rank := wordRank(stream)
	long := len(Tokens(text)) > 200
	var out []Phrase
	for _, key := range order {
		c := cands[key]
		if long && c.count < 2 && len(cands) > 3*n {
			continue // said once in a long text: not what it is about
		}
		score := 0.0
		for i, s := range c.stems {
			score += deg[s] / freq[s] * IDF(c.words[i]) * (1 + 4*rank[s])
		}
		score *= math.Log1p(float64(c.count))
		out = append(out, Phrase{Text: bestForm(c.forms), Score: score, Count: c.count})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return dropContained(out, n)
}

func addCandidate(cands map[string]*candidate, order *[]string, words []string, freq, deg map[string]float64) {
	stems := make([]string, len(words))
	for i, w := range words {
		stems[i] = Stem(w)
		freq[stems[i]]++
		deg[stems[i]] += float64(len(words))
	}
	key := strings.Join(stems, " ")
	c, ok := cands[key]
	if !ok {
		c = &candidate{words: append([]string(nil), words...), stems: stems, key: key, forms: map[string]int{}}
		cands[key] = c
		*order = append(*order, key)
	}
	c.count++
	c.forms[strings.Join(words, " ")]++
}

func bestForm(forms map[string]int) string {
	best, n := "", 0
	for f, c := range forms {
		if c > n || (c == n && f < best) {
			best, n = f, c
		}
	}
	return best
}

// dropContained keeps the first n phrases whose stems are not all inside a
// phrase already kept.
func dropContained(ps []Phrase, n int) []Phrase {
	var out []Phrase
	var kept []map[string]bool
	for _, p := range ps {
		stems := map[string]bool{}
		for _, w := range Tokens(p.Text) {
			stems[Stem(w)] = true
		}
		inside := false
		for _, k := range kept {
			all := true
			for s := range stems {
				all = all && k[s]
			}
			inside = inside || all
		}
		if inside {
			continue
		}
		out, kept = append(out, p), append(kept, stems)
		if len(out) == n {
			break
		}
	}
	return out
}

// wordRank is TextRank over content stems co-occurring within a window of
// three in a chunk, normalised so the most central word is 1.
func wordRank(stream [][]string) map[string]float64 {
	const (
		window = 3
		damp   = 0.85
		iters  = 20
	)
	id := map[string]int{}
	var names []string
	var adj [][]int
	node := func(s string) int {
		if i, ok := id[s]; ok {
			return i
		}
		id[s] = len(names)
		names = append(names, s)
		adj = append(adj, nil)
		return len(names) - 1
	}
	for _, ch := range stream {
		for i, a := range ch {
			ia := node(a)
			for j := i + 1; j < len(ch) && j < i+window; j++ {
				if ib := node(ch[j]); ib != ia {
					adj[ia] = append(adj[ia], ib)
					adj[ib] = append(adj[ib], ia)
				}
			}
		}
	}
	score := make([]float64, len(names))
	next := make([]float64, len(names))
	for i := range score {
		score[i] = 1
	}
	for range iters {
		for i := range next {
			next[i] = 1 - damp
		}
		for i, ns := range adj {
			if len(ns) == 0 {
				continue
			}
			share := damp * score[i] / float64(len(ns))
			for _, j := range ns {
				next[j] += share
			}
		}
		score, next = next, score
	}
	top := 0.0
	for _, v := range score {
		top = math.Max(top, v)
	}
	out := make(map[string]float64, len(names))
	for i, s := range names {
		if top > 0 {
			out[s] = score[i] / top
		}
	}
	return out
}

// Keywords returns the n strongest single words by TF-IDF against the
// background frequencies, merged by stem under their most frequent form.
func Keywords(text string, n int) []Phrase {
	type kw struct {
		count int
		forms map[string]int
	}
	words := map[string]*kw{}
	var order []string
	for _, w := range Tokens(text) {
		if !content(w) {
			continue
		}
		s := Stem(w)
		k, ok := words[s]
		if !ok {
			k = &kw{forms: map[string]int{}}
			words[s] = k
			order = append(order, s)
		}
		k.count++
		k.forms[w]++
	}
	out := make([]Phrase, 0, len(words))
	for _, s := range order {
		k := words[s]
		form := bestForm(k.forms)
		out = append(out, Phrase{Text: form, Count: k.count, Score: (1 + math.Log(float64(k.count))) * IDF(form)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > n {
		out = out[:n]
	}
	return out
}
