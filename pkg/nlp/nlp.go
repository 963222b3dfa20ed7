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
	"unicode"
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
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || (r == '\'' || r == '’') && start >= 0
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			out = append(out, token(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token(s[start:]))
	}
	return out
}

func token(t string) string {
	t = strings.ReplaceAll(strings.ToLower(t), "’", "'")
	return strings.TrimRight(t, "'")
}

// IsStopword reports a function word or a spoken filler.
func IsStopword(w string) bool { return stopwords[w] }

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

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all almost also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each else even ever
every few for from further get gets getting got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's like likely me might more most much must
mustn't my myself no nor not now of off on once one only or other ought our ours ourselves out over own quite rather really same shan't
she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then there there's these they
they'd they'll they're they've this those through to too under until up upon us very was wasn't we we'd we'll we're we've were weren't
what what's when when's where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll you're you've
your yours yourself yourselves um uh uhm erm hmm yeah yep okay ok oh gonna wanna gotta kinda sorta actually basically literally right
well anyway stuff thing things lot lots way going go goes went come comes came make makes made take takes took put puts see look looks
want wants know knows think thinks say says said tell told use used using really something anything everything nothing someone anyone
everyone many may also still back two three first next last new good great little big let us today now thank thanks guys hey hi hello
welcome s t d ll ve re m don isn ain called call calls`) {
		m[w] = true
	}
	return m
}()
