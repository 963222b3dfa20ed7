// Package nlp measures English text the way Hookline's text products need
// it (ARCHITECTURE §7): sentences, tokens and stems, key phrases (RAKE
// candidates scored with TextRank centrality and TF-IDF against shipped
// background word frequencies), an extractive TextRank summary, topic
// sections of timed transcripts (TextTiling), the content type from
// lexical cues, and hook and emotion features of a sentence.
//
// Everything is deterministic, offline and linear or n·log n in the text
// except TextRank, which is bounded. The background list is SUBTLEX-US
// (data/README.md): spoken English, like the transcripts measured here.
package nlp

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed data/subtlex.tsv.gz
var subtlexGz []byte

type background struct {
	idf    map[string]float64
	maxIDF float64
}

// loadBackground parses the embedded list once per process.
var loadBackground = sync.OnceValue(func() background {
	b := background{idf: make(map[string]float64, 50000)}
	zr, err := gzip.NewReader(bytes.NewReader(subtlexGz))
	if err != nil {
		panic("nlp: embedded frequency list: " + err.Error()) // a build defect, caught by every test
	}
	counts := map[string]float64{}
	total := 0.0
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		w, c, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(c, 64)
		if err != nil {
			continue
		}
		counts[w] = n
		total += n
	}
	for w, n := range counts {
		v := math.Log(total / (n + 1))
		b.idf[w] = v
		b.maxIDF = math.Max(b.maxIDF, v)
	}
	return b
})

// IDF is a word's background weight: log(total/(count+1)) in SUBTLEX-US,
// the largest weight for a word the list does not have.
func IDF(word string) float64 {
	b := loadBackground()
	if v, ok := b.idf[word]; ok {
		return v
	}
	return b.maxIDF
}

// Tokens are the lower-cased words of s: letters and digits, with inner
// apostrophes kept ("don't").
func Tokens(s string) []string {
	var out []string
	for _, p := range Split(s, tokenRules) {
		out = append(out, token(p.Text))
	}
	return out
}

// tokenRules keep an apostrophe inside a word (a trailing one is trimmed
// by token).
var tokenRules = Rules{Class: func(rs []rune, i int, word []rune) Class {
	if (rs[i] == '\'' || rs[i] == '’') && len(word) > 0 {
		return Join
	}
	return Sep
}}

func token(t string) string {
	t = strings.ReplaceAll(strings.ToLower(t), "’", "'")
	return strings.TrimRight(t, "'")
}

// Stem strips common English inflections, enough to merge "edit",
// "edits", "edited" and "editing".
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		return undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		return undouble(w[:n-2])
	case n > 4 && strings.HasSuffix(w, "es") && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "sses")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case n > 3 && strings.HasSuffix(w, "'s"):
		return w[:n-2]
	}
	return w
}

func undouble(w string) string {
	if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// CodePoints counts Unicode code points after trimming white space.
func CodePoints(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }
