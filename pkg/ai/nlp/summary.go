package nlp

import (
	"math"
	"slices"
	"sort"
)

// summaryCandidates bounds TextRank's graph: longer texts are first cut to
// their strongest sentences by TF-IDF weight.
const summaryCandidates = 400

// Summary returns the n most central sentences of text by TextRank over
// sentence similarity (shared content stems over the log of the lengths),
// in their original order.
func Summary(text string, n int) []Sentence {
	sents := Sentences(text)
	if len(sents) <= n {
		return sents
	}
	ids := map[string]int{}
	bags := make([][]int, len(sents))
	weight := make([]float64, len(sents))
	for i, s := range sents {
		seen := map[int]bool{}
		toks := Tokens(s.Text)
		for _, w := range toks {
			if !content(w) {
				continue
			}
			st := Stem(w)
			id, ok := ids[st]
			if !ok {
				id = len(ids)
				ids[st] = id
			}
			if !seen[id] {
				seen[id] = true
				bags[i] = append(bags[i], id)
				weight[i] += IDF(w)
			}
		}
		slices.Sort(bags[i])
		if len(toks) > 0 {
			weight[i] /= math.Sqrt(float64(len(toks)))
		}
	}
	idx := make([]int, len(sents))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > summaryCandidates {
		sort.SliceStable(idx, func(a, b int) bool { return weight[idx[a]] > weight[idx[b]] })
		idx = idx[:summaryCandidates]
		slices.Sort(idx)
	}
	k := len(idx)
	sim := make([][]float64, k)
	out := make([]float64, k)
	for a := range k {
		sim[a] = make([]float64, k)
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			x, y := bags[idx[a]], bags[idx[b]]
			if len(x) < 2 || len(y) < 2 {
				continue
			}
			if v := float64(overlap(x, y)) / (math.Log(float64(len(x))) + math.Log(float64(len(y)))); v > 0 {
				sim[a][b], sim[b][a] = v, v
				out[a] += v
				out[b] += v
			}
		}
	}
	score := make([]float64, k)
	next := make([]float64, k)
	for i := range score {
		score[i] = 1
	}
	for range 30 {
		for i := range k {
			s := 0.0
			for j := range k {
				if sim[j][i] > 0 {
					s += sim[j][i] / out[j] * score[j]
				}
			}
			next[i] = 0.15 + 0.85*s
		}
		score, next = next, score
	}
	rank := make([]int, k)
	for i := range rank {
		rank[i] = i
	}
	sort.SliceStable(rank, func(a, b int) bool { return score[rank[a]] > score[rank[b]] })
	chosen := make([]int, 0, n)
	for _, r := range rank[:n] {
		chosen = append(chosen, idx[r])
	}
	slices.Sort(chosen)
	res := make([]Sentence, len(chosen))
	for i, c := range chosen {
		res[i] = sents[c]
	}
	return res
}

// overlap counts the common elements of two sorted slices.
func overlap(a, b []int) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}
