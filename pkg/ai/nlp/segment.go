package nlp

import (
	"math"
	"sort"
	"strings"
)

// Timed is a caption segment: seconds and text.
type Timed struct {
	Start, End float64
	Text       string
}

// Section is a topic section of a timed transcript.
type Section struct {
	Start, End                float64
	FirstSegment, LastSegment int
	Text                      string
	// Phrases are the section's strongest key phrases.
	Phrases []Phrase
}

// TextTiling parameters.
const (
	// blockWords is the size of the windows compared on each side of a
	// gap: enough words for a topic's vocabulary to show.
	blockWords = 100
	// maxSections bounds the sections of a long video, as chapters.
	maxSections   = 12
	sectionPhrase = 5
)

// Segment splits timed captions into topic sections, TextTiling-style:
// at each gap between segments the content stems of about blockWords words
// before and after are compared (cosine); a gap's depth is how far its
// similarity lies below the peaks on both sides; the deepest gaps that
// stand out (depth above mean + sd/2 of the local minima) become
// boundaries, deepest first, as long as every section lasts at least
// minSeconds and a twelfth-of-the-video minimum for long videos.
func Segment(segs []Timed, minSeconds float64) []Section {
	if len(segs) == 0 {
		return nil
	}
	bags := make([]map[string]float64, len(segs))
	words := make([]int, len(segs))
	for i, s := range segs {
		bags[i] = map[string]float64{}
		for _, w := range Tokens(s.Text) {
			words[i]++
			if content(w) {
				bags[i][Stem(w)]++
			}
		}
	}
	// sim[g] compares the blocks around gap g (before segment g).
	sim := make([]float64, len(segs))
	for g := 1; g < len(segs); g++ {
		left, right := map[string]float64{}, map[string]float64{}
		for i, n := g-1, 0; i >= 0 && n < blockWords; i-- {
			add(left, bags[i])
			n += words[i]
		}
		for i, n := g, 0; i < len(segs) && n < blockWords; i++ {
			add(right, bags[i])
			n += words[i]
		}
		sim[g] = cosine(left, right)
	}
	depth := make([]float64, len(segs))
	var minima []float64
	for g := 1; g < len(segs); g++ {
		lp, rp := sim[g], sim[g]
		for i := g - 1; i >= 1 && sim[i] >= lp; i-- {
			lp = sim[i]
		}
		for i := g + 1; i < len(segs) && sim[i] >= rp; i++ {
			rp = sim[i]
		}
		depth[g] = (lp - sim[g]) + (rp - sim[g])
		if (g == 1 || sim[g] <= sim[g-1]) && (g == len(segs)-1 || sim[g] <= sim[g+1]) {
			minima = append(minima, depth[g])
		}
	}
	mean, sd := meanSD(minima)
	cut := mean + sd/2

	total := segs[len(segs)-1].End - segs[0].Start
	minLen := math.Max(minSeconds, total/maxSections)
	gaps := make([]int, 0, len(segs))
	for g := 1; g < len(segs); g++ {
		if depth[g] > cut && depth[g] > 0 {
			gaps = append(gaps, g)
		}
	}
	sort.SliceStable(gaps, func(a, b int) bool { return depth[gaps[a]] > depth[gaps[b]] })
	bounds := []int{0, len(segs)}
	for _, g := range gaps {
		if len(bounds)-1 >= maxSections {
			break
		}
		i := sort.SearchInts(bounds, g)
		if bounds[i] == g {
			continue
		}
		prev, next := bounds[i-1], bounds[i]
		if segs[g].Start-segs[prev].Start < minLen || endOf(segs, next)-segs[g].Start < minLen {
			continue
		}
		bounds = append(bounds[:i], append([]int{g}, bounds[i:]...)...)
	}
	out := make([]Section, 0, len(bounds)-1)
	for k := 0; k+1 < len(bounds); k++ {
		a, b := bounds[k], bounds[k+1]
		texts := make([]string, 0, b-a)
		for _, s := range segs[a:b] {
			texts = append(texts, s.Text)
		}
		text := strings.Join(texts, " ")
		out = append(out, Section{Start: segs[a].Start, End: segs[b-1].End, FirstSegment: a, LastSegment: b - 1, Text: text,
			Phrases: KeyPhrases(text, sectionPhrase)})
	}
	return out
}

func endOf(segs []Timed, next int) float64 { return segs[next-1].End }

func add(dst, src map[string]float64) {
	for k, v := range src {
		dst[k] += v
	}
}

func cosine(a, b map[string]float64) float64 {
	dot, na, nb := 0.0, 0.0, 0.0
	for k, v := range a {
		na += v * v
		dot += v * b[k]
	}
	for _, v := range b {
		nb += v * v
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func meanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)))
}
