// Package moments finds the short-form moments of a long video: candidate
// windows of 15–90 s that start and end on sentence boundaries, scored on
// what makes a clip travel (the hook of its opening line, whether it
// stands alone, how much of the video's vocabulary it carries, emotion,
// pace, length, and — once the source is prepared — audio energy,
// laughter/applause-like peaks and scene changes), then chosen greedily
// without overlap. The weights and the reasoning behind them are in the
// service README.
//
// Rank is deterministic: the same transcript and signals give the same
// clips with the same ids. A clip's id is derived from its window, so a
// rescore of the same windows (Input.Keep) keeps every id.
package moments

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/videosite"
)

// Window limits, in seconds.
const (
	MinSeconds = 15
	MaxSeconds = 90
)

// MaxClips bounds the clips of one project.
const MaxClips = 10

// Transcript quality.
const (
	// MinConfidence is the least recogniser confidence of a word that
	// titles, hooks, keywords and the content type may use: below it a
	// word is shown in captions (it is what was heard) but never built
	// on. Chosen with pocketsphinx on synthetic speech, where the words
	// at 0.9 or more were mostly right and most words fell under it; kept
	// for Moonshine on recorded speech, where it keeps most words and
	// leaves out nearly all the wrong ones (transcribe's
	// TestThresholdsOnRealSpeech holds it to that).
	MinConfidence = 0.9
	// reliableShare: a transcript with fewer confident words than this
	// share is low quality, and its clips are titled from what is
	// reliable (the video's title, the time range, confident keywords).
	reliableShare = 0.6
	// minTypeCues is the evidence a content type needs: this many
	// different cues of the type, not one word said twice.
	minTypeCues = 3
)

// The transcript qualities Analysis.TranscriptQuality takes.
const (
	QualityHigh = "high"
	QualityLow  = "low"
)

// Signals are what preparation measures in the source (media.Signals).
type Signals struct {
	Step   float64   // seconds per Energy sample
	Energy []float64 // loudness 0..1 per step
	Peaks  []float64 // laughter/applause-like bursts, seconds
	Scenes []float64 // scene changes, seconds
}

// Window is a clip's span in seconds.
type Window struct{ Start, End float64 }

// Input is what Rank reads.
type Input struct {
	Segments []videosite.Segment
	// Signals are nil until the source is prepared.
	Signals *Signals
	// Keep, when set, are the windows to rescore instead of choosing new
	// ones: the clips a client already holds ids for.
	Keep []Window
	// VideoTitle is the source's title, what a low-quality transcript's
	// clips are titled from.
	VideoTitle string
	// Terms are the project's custom vocabulary: keywords of every clip
	// that says them, weighted as the video's strongest.
	Terms []string
	// Prompt, when set, steers the ranking: the moments that match it
	// come first (each clip's Match says how), the rest follow.
	Prompt string
}

// Features are a clip's measured features, each 0..1.
type Features struct {
	Hook          float64
	SelfContained float64
	Salience      float64
	Emotion       float64
	Pace          float64
	Length        float64
	// The audio and picture features are 0 until the source is prepared.
	Energy float64
	Peaks  float64
	Scenes float64
}

// Clip is a ranked moment.
type Clip struct {
	ID           string
	Title        string
	Start        float64
	End          float64
	Hook         string
	Category     string
	ViralScore   int
	HookStrength string
	PlatformFit  []string
	Mood         string
	Keywords     []string
	Features     Features
	// Scores are the features grouped into sub-scores that add up to
	// ViralScore (Analysis.ScoreWeights); Reasons say why in words.
	Scores  Scores
	Reasons []string
	// Match is nil without a prompt.
	Match *Match
}

// Analysis describes the whole video.
type Analysis struct {
	ContentType     string
	SuggestedFormat string
	SuggestedStyle  string
	// TranscriptQuality is QualityLow when most of the transcript's words
	// were recognised with little confidence, else QualityHigh.
	TranscriptQuality string
	// Engine names what wrote the titles and hooks: "local", a chat
	// model's "provider:model", or the local fallback and why.
	Engine string
	// ScoreWeights are the weights the clips' Scores add up to their
	// ViralScore with.
	ScoreWeights ScoreWeights
	// Prompt is the prompt the clips were ranked for, "" without.
	Prompt string
}

// Result is a ranked set of clips, best first.
type Result struct {
	Analysis Analysis
	Clips    []Clip
}

// Engine ranks moments. Local is the default; a chat provider may reword
// titles and hooks of what Local chose.
type Engine interface {
	Rank(ctx context.Context, in Input) (Result, error)
	Name() string
}

// Local is the offline engine.
type Local struct {
	// Lexicon widens a prompt's words; nil matches the words and their
	// stems only.
	Lexicon Lexicon
}

// Name names the engine.
func (Local) Name() string { return "local" }

// Rank ranks in's moments.
func (l Local) Rank(_ context.Context, in Input) (Result, error) {
	q, err := parsePrompt(in.Prompt, l.Lexicon)
	if err != nil {
		return Result{}, err
	}
	return rank(in, q, nil), nil
}

// The feature weights; see the README for the reasoning. Without signals
// the audio and picture weights are spread over the text features.
var (
	textWeights = Features{Hook: 0.30, SelfContained: 0.15, Salience: 0.20, Emotion: 0.15, Pace: 0.10, Length: 0.10}
	fullWeights = Features{Hook: 0.25, SelfContained: 0.15, Salience: 0.15, Emotion: 0.10, Pace: 0.05, Length: 0.05, Energy: 0.10, Peaks: 0.10, Scenes: 0.05}
)

func (f Features) dot(w Features) float64 {
	return f.Hook*w.Hook + f.SelfContained*w.SelfContained + f.Salience*w.Salience + f.Emotion*w.Emotion +
		f.Pace*w.Pace + f.Length*w.Length + f.Energy*w.Energy + f.Peaks*w.Peaks + f.Scenes*w.Scenes
}

// sentence is a timed sentence with its per-sentence measurements.
type sentence struct {
	text       string
	from, to   int // byte offsets in the transcript
	reliable   bool
	start, end float64
	words      int
	hook       nlp.HookFeatures
	emotion    float64
	salience   float64 // summed TF-IDF weight of the video's keywords
	dangling   bool    // opens with a reference to what came before
	complete   bool    // ends a thought: . ! or ?
}

// doc is a transcript prepared for scoring, with prefix sums over its
// sentences.
type doc struct {
	sents                []sentence
	words, emo, sal      []float64 // prefix sums
	text                 string
	doubts               []span // the low-confidence words of text
	quality              string
	videoTitle           string
	contentType          nlp.ContentType
	signals              *Signals
	meanEnergy, duration float64
	terms                []string
	weights              Features
	query                *query // nil without a prompt
	hit                  []hit  // per sentence, with a prompt
}

// Rank scores the transcript's candidate windows and picks the best
// non-overlapping ones (or rescores in.Keep), with in.Prompt matched on
// its words and their stems only (Local with a Lexicon widens them).
func Rank(in Input) Result {
	q, _ := parsePrompt(in.Prompt, nil) // no lexicon, no error
	return rank(in, q, nil)
}

// rank ranks in for prompt q (nil: none). hits, when set, are the
// sentences found to match q elsewhere (a chat model's validated answer),
// replacing the word matching.
func rank(in Input, q *query, hits []hit) Result {
	d := prepare(in)
	d.query = q
	if q != nil {
		d.hit = hits
		if d.hit == nil {
			d.hit = d.hits(q)
		}
	}
	res := Result{Analysis: d.analysis()}
	var picked []scored
	if len(in.Keep) > 0 {
		for _, w := range in.Keep {
			i, j := d.span(w)
			if i < 0 {
				c := scored{w: w, i: -1}
				c.match, c.m = d.matchOf(-1, -1)
				picked = append(picked, c)
				continue
			}
			c := d.score(i, j)
			c.w = w // the id and the span the client holds stay
			picked = append(picked, c)
		}
		if q != nil {
			// The matching moments the kept clips miss are added.
			picked = d.choose(MaxClips, picked, true)
		}
	} else {
		picked = d.choose(maxClips(d.duration), nil, false)
	}
	sort.SliceStable(picked, func(a, b int) bool { return picked[a].order(picked[b]) < 0 })
	for _, c := range picked {
		res.Clips = append(res.Clips, d.clip(c, res.Analysis))
	}
	if res.Clips == nil {
		res.Clips = []Clip{}
	}
	return res
}

// maxClips grows with the video: one per two minutes, 3..MaxClips.
func maxClips(duration float64) int {
	return min(MaxClips, max(3, int(duration/120)))
}

var danglingStarts = map[string]bool{
	"and": true, "but": true, "so": true, "because": true, "or": true, "also": true, "then": true, "which": true,
	"this": true, "that": true, "these": true, "those": true, "it": true, "he": true, "she": true, "they": true,
	"them": true, "there": true, "another": true, "plus": true, "otherwise": true, "anyway": true,
}

func prepare(in Input) *doc {
	text, at, doubts := timeline(in.Segments)
	d := &doc{text: text, doubts: doubts, signals: in.Signals, videoTitle: strings.TrimSpace(in.VideoTitle), terms: in.Terms}
	if n := len(in.Segments); n > 0 {
		d.duration = in.Segments[n-1].End
	}
	d.quality = quality(in.Segments)
	d.weights = textWeights
	if in.Signals != nil {
		d.weights = fullWeights
	}
	sure := d.reliable(0, len(text))
	weights := map[string]float64{}
	for _, k := range nlp.Keywords(sure, 40) {
		for _, t := range nlp.Tokens(k.Text) {
			weights[nlp.Stem(t)] = math.Max(weights[nlp.Stem(t)], k.Score)
		}
	}
	top := 0.0
	for _, w := range weights {
		top = math.Max(top, w)
	}
	for _, term := range in.Terms {
		for _, t := range nlp.Tokens(term) {
			weights[nlp.Stem(t)] = math.Max(top, 1)
		}
	}
	for _, s := range nlp.Sentences(text) {
		toks := nlp.Tokens(s.Text)
		if len(toks) == 0 {
			continue
		}
		// Doubtful words are not built on: the hook, emotion and keyword
		// weight are those of what was heard with confidence.
		said := d.reliable(s.Start, s.End)
		sal := 0.0
		for _, t := range nlp.Tokens(said) {
			sal += weights[nlp.Stem(t)]
		}
		last := lastRune(s.Text)
		d.sents = append(d.sents, sentence{
			text: s.Text, from: s.Start, to: s.End, reliable: said == s.Text,
			start: at(s.Start), end: at(s.End), words: len(toks),
			hook: nlp.Hook(said), emotion: nlp.Emotion(said), salience: sal,
			dangling: danglingStarts[toks[0]], complete: strings.ContainsRune(".!?…", last),
		})
	}
	n := len(d.sents)
	d.words, d.emo, d.sal = make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
	for i, s := range d.sents {
		d.words[i+1] = d.words[i] + float64(s.words)
		d.emo[i+1] = d.emo[i] + s.emotion*float64(s.words)
		d.sal[i+1] = d.sal[i] + s.salience
	}
	d.contentType = nlp.Story
	if t, ok := contentType(sure, 0); ok {
		d.contentType = t
	}
	if in.Signals != nil && len(in.Signals.Energy) > 0 {
		sum := 0.0
		for _, e := range in.Signals.Energy {
			sum += e
		}
		d.meanEnergy = sum / float64(len(in.Signals.Energy))
		d.duration = math.Max(d.duration, float64(len(in.Signals.Energy))*in.Signals.Step)
	}
	return d
}

// lastRune is the last character of s before closing quotes and brackets.
func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, "\"')”’ "))
	return r
}

// span is a half-open byte range of the transcript.
type span struct{ from, to int }

// timeline joins the segments' text and returns a function from a byte
// offset of the text to seconds (the time of the word there when the
// segment has word timings, else interpolated across the segment) and
// where the words below MinConfidence are.
func timeline(segs []videosite.Segment) (string, func(int) float64, []span) {
	type mark struct {
		off int
		t   float64
	}
	var b strings.Builder
	var marks []mark
	var doubts []span
	for _, s := range segs {
		t := strings.TrimSpace(s.Text)
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		off := b.Len()
		b.WriteString(t)
		marks = append(marks, mark{off, s.Start})
		from := 0
		for _, w := range s.Words {
			wt := strings.TrimSpace(w.Text)
			if wt == "" {
				continue
			}
			if k := indexFold(t[from:], wt); k >= 0 {
				at := off + from + k
				marks = append(marks, mark{at, w.Start}, mark{at + len(wt), w.End})
				if w.Confidence < MinConfidence {
					doubts = append(doubts, span{at, at + len(wt)})
				}
				from += k + len(wt)
			}
		}
		marks = append(marks, mark{off + len(t), s.End})
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].off < marks[j].off })
	return b.String(), func(o int) float64 {
		k := sort.Search(len(marks), func(i int) bool { return marks[i].off >= o })
		switch {
		case len(marks) == 0:
			return 0
		case k == len(marks):
			return marks[k-1].t
		case marks[k].off == o || k == 0:
			return marks[k].t
		}
		a, z := marks[k-1], marks[k]
		return a.t + (z.t-a.t)*float64(o-a.off)/float64(z.off-a.off)
	}, doubts
}

// indexFold is the byte offset of the first occurrence of word in s as a
// whole word, ignoring case, or -1: a recogniser's words are lower case
// while its segment text starts sentences with a capital, and the word "i"
// is not the i of "furious".
func indexFold(s, word string) int {
	inWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i+len(word) <= len(s); i++ {
		// Only where a word starts is compared: a miss costs one rune
		// mid-word, not a comparison of the whole word.
		if before, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && inWord(before) {
			continue
		}
		if !strings.EqualFold(s[i:i+len(word)], word) {
			continue
		}
		if after, _ := utf8.DecodeRuneInString(s[i+len(word):]); i+len(word) == len(s) || !inWord(after) {
			return i
		}
	}
	return -1
}

// reliable is the transcript between byte offsets from and to without
// its low-confidence words.
func (d *doc) reliable(from, to int) string {
	var b strings.Builder
	at := from
	for _, x := range d.doubts {
		if x.to <= from || x.from >= to {
			continue
		}
		b.WriteString(d.text[at:max(at, x.from)])
		at = max(at, x.to)
	}
	if at < to {
		b.WriteString(d.text[at:to])
	}
	if b.Len() == to-from {
		return d.text[from:to]
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// quality is QualityLow when fewer than reliableShare of the words carry
// MinConfidence. Segments without word timings are captions: certain.
func quality(segs []videosite.Segment) string {
	sure, all := 0, 0
	for _, s := range segs {
		if len(s.Words) == 0 {
			n := len(strings.Fields(s.Text))
			sure, all = sure+n, all+n
			continue
		}
		for _, w := range s.Words {
			all++
			if w.Confidence >= MinConfidence {
				sure++
			}
		}
	}
	if all > 0 && float64(sure) < reliableShare*float64(all) {
		return QualityLow
	}
	return QualityHigh
}

// contentType is the type text gives evidence of: the best-scoring type
// with at least minScore and minTypeCues different cues.
func contentType(text string, minScore float64) (nlp.ContentType, bool) {
	ts := nlp.DetectType(text)
	if len(ts) == 0 || ts[0].Score <= minScore || ts[0].Cues < minTypeCues {
		return "", false
	}
	return ts[0].Type, true
}

// scored is a candidate window over sentences i..j.
type scored struct {
	w     Window
	i, j  int
	f     Features
	score float64
	match float64 // how well it matches the prompt, 0..1
	m     *Match
}

// order compares clips, negative when c comes first: the prompt's best
// match first (a clip that matches has a match above 0), then by score.
func (c scored) order(o scored) int {
	return cmp.Or(cmp.Compare(o.match, c.match), cmp.Compare(o.score, c.score))
}

// choose scores every window of MinSeconds..MaxSeconds on sentence
// boundaries and adds to out the best that overlap none, up to n; with
// onlyMatches, only windows that match the prompt. The prompt's matches
// are taken first.
func (d *doc) choose(n int, out []scored, onlyMatches bool) []scored {
	var cands []scored
	for i := range d.sents {
		for j := i; j < len(d.sents); j++ {
			dur := d.sents[j].end - d.sents[i].start
			if dur > MaxSeconds {
				break
			}
			if dur >= MinSeconds {
				cands = append(cands, d.score(i, j))
			}
		}
	}
	// Sorting indices: the candidates of an hour are ~10,000 structs.
	order := make([]int, len(cands))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := cands[a], cands[b]
		return cmp.Or(x.order(y), cmp.Compare(x.w.Start, y.w.Start), cmp.Compare(x.w.End, y.w.End))
	})
	for _, k := range order {
		c := cands[k]
		if len(out) >= n {
			break
		}
		if onlyMatches && (c.m == nil || !c.m.Matched) {
			break
		}
		free := true
		for _, o := range out {
			if c.w.Start < o.w.End && o.w.Start < c.w.End {
				free = false
				break
			}
		}
		if free {
			out = append(out, c)
		}
	}
	return out
}

// span finds the sentences a kept window covers; i < 0 when none.
func (d *doc) span(w Window) (int, int) {
	i, j := -1, -1
	for k, s := range d.sents {
		mid := (s.start + s.end) / 2
		if mid >= w.Start && mid <= w.End {
			if i < 0 {
				i = k
			}
			j = k
		}
	}
	return i, j
}

// salienceScale maps a window's keyword weight per word to 0..1: the
// densest windows of a transcript carry about this much.
const salienceScale = 0.6

func (d *doc) score(i, j int) scored {
	first, last := d.sents[i], d.sents[j]
	w := Window{Start: first.start, End: last.end}
	dur := math.Max(w.End-w.Start, 1)
	words := d.words[j+1] - d.words[i]
	f := Features{
		Hook:     first.hook.Score,
		Salience: math.Min(1, (d.sal[j+1]-d.sal[i])/math.Max(words, 1)/salienceScale),
		Emotion:  math.Min(1, (d.emo[j+1]-d.emo[i])/math.Max(words, 1)*2),
		Pace:     paceFit(words / dur),
		Length:   lengthFit(dur),
	}
	f.SelfContained = 0.5
	if first.dangling {
		f.SelfContained = 0
	}
	if last.complete {
		f.SelfContained += 0.5
	}
	if d.signals != nil {
		d.audio(w, &f)
	}
	c := scored{w: w, i: i, j: j, f: f, score: f.dot(d.weights)}
	c.match, c.m = d.matchOf(i, j)
	return c
}

// paceFit prefers about 2.7 words a second: brisk, still easy to follow
// with captions.
func paceFit(wps float64) float64 {
	d := (wps - 2.7) / 1.1
	return math.Exp(-d * d)
}

// lengthFit prefers 20–60 s, the sweet spot of every short-form feed.
func lengthFit(dur float64) float64 {
	switch {
	case dur < 20:
		return 0.5 + 0.5*(dur-MinSeconds)/5
	case dur <= 60:
		return 1
	default:
		return math.Max(0.4, 1-0.6*(dur-60)/(MaxSeconds-60))
	}
}

// audio adds the measured signals of w: loudness against the video's
// mean, a laughter/applause-like peak inside, and the cut rate.
func (d *doc) audio(w Window, f *Features) {
	s := d.signals
	if s.Step > 0 && len(s.Energy) > 0 && d.meanEnergy > 0 {
		a, z := int(w.Start/s.Step), min(len(s.Energy), int(math.Ceil(w.End/s.Step)))
		if a < z {
			sum := 0.0
			for _, e := range s.Energy[a:z] {
				sum += e
			}
			ratio := sum / float64(z-a) / d.meanEnergy
			f.Energy = clamp01((ratio - 0.8) / 0.5)
		}
	}
	for _, p := range s.Peaks {
		if p >= w.Start && p <= w.End {
			f.Peaks = 1
			break
		}
	}
	cuts := 0
	for _, c := range s.Scenes {
		if c > w.Start && c < w.End {
			cuts++
		}
	}
	f.Scenes = clamp01(float64(cuts) / ((w.End - w.Start) / 60) / 8)
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// clip describes a chosen window.
func (d *doc) clip(c scored, a Analysis) Clip {
	cl := Clip{
		ID: ClipID(c.w), Start: round2(c.w.Start), End: round2(c.w.End), Features: c.f, Category: a.ContentType,
		PlatformFit: PlatformFit(c.w.End - c.w.Start), Keywords: []string{}, Mood: "calm", HookStrength: "low",
		Match: c.m, Reasons: d.reasons(c),
	}
	cl.Scores, cl.ViralScore = subScores(c.f, d.weights)
	if c.i < 0 {
		return cl
	}
	// Only what was heard with confidence is built on.
	text := d.reliable(d.sents[c.i].from, d.sents[c.j].to)
	first := d.sents[c.i]
	switch {
	case first.hook.Score >= 0.45:
		cl.HookStrength = "high"
	case first.hook.Score >= 0.2:
		cl.HookStrength = "medium"
	}
	if t, ok := contentType(text, 15); ok {
		cl.Category = string(t)
	}
	// The creator's terms count whatever the recogniser's confidence.
	cl.Keywords = termsIn(d.text[d.sents[c.i].from:d.sents[c.j].to], d.terms)
	for _, k := range nlp.KeyPhrases(text, 5) {
		if len(cl.Keywords) < 5 && !slices.ContainsFunc(cl.Keywords, func(s string) bool { return strings.EqualFold(s, k.Text) }) {
			cl.Keywords = append(cl.Keywords, k.Text)
		}
	}
	cl.Title = d.title(c, cl.Keywords)
	cl.Hook = cl.Title
	if d.quality == QualityHigh {
		if k := d.firstReliable(c); k >= 0 {
			cl.Hook = clipText(d.sents[k].text, 150)
		}
	}
	cl.Mood = mood(c.f, nlp.ContentType(cl.Category))
	return cl
}

// firstReliable is the first sentence of c heard wholly with confidence,
// -1 when none is.
func (d *doc) firstReliable(c scored) int {
	for k := c.i; k <= c.j; k++ {
		if d.sents[k].reliable {
			return k
		}
	}
	return -1
}

// titleRunes bounds a clip title.
const titleRunes = 70

// title is the opening line when it hooks and fits, else the window's
// most keyword-dense sentence, cut at a word to fit 70 characters. Only
// sentences heard wholly with confidence qualify; without one, or when
// the transcript as a whole is unreliable, the title is what is known for
// certain: the video's title and the clip's time range, with the confident
// keywords.
func (d *doc) title(c scored, keywords []string) string {
	if d.quality == QualityHigh {
		first := d.sents[c.i]
		if first.reliable && first.hook.Score >= 0.2 && nlp.CodePoints(first.text) <= titleRunes {
			return strings.TrimRight(first.text, ".,;: ")
		}
		best, bestSal := -1, -1.0
		for k := c.i; k <= c.j; k++ {
			s := d.sents[k]
			if v := s.salience / float64(s.words); s.reliable && v > bestSal && s.words >= minTitleWords {
				best, bestSal = k, v
			}
		}
		if best >= 0 {
			if t := strings.TrimRight(clipText(d.sents[best].text, titleRunes), ".,;: "); t != "" {
				return t
			}
		}
		// No sentence was heard whole: the most salient one's longest
		// run of confident words, a phrase that was said.
		best, bestSal = -1, -1.0
		var run string
		for k := c.i; k <= c.j; k++ {
			s := d.sents[k]
			if r := d.confidentRun(k); len(strings.Fields(r)) >= minTitleWords && s.salience/float64(s.words) > bestSal {
				best, bestSal, run = k, s.salience/float64(s.words), r
			}
		}
		if best >= 0 {
			return strings.TrimRight(clipText(run, titleRunes), ".,;: ")
		}
	}
	return d.plainTitle(c.w, keywords)
}

// minTitleWords is the fewest words a sentence or phrase needs to title a
// clip.
const minTitleWords = 4

// confidentRun is the longest stretch of sentence k's words between its
// low-confidence words.
func (d *doc) confidentRun(k int) string {
	s := d.sents[k]
	best := ""
	at := s.from
	take := func(to int) {
		if r := strings.TrimSpace(d.text[at:max(at, to)]); len(r) > len(best) {
			best = r
		}
	}
	for _, x := range d.doubts {
		if x.to <= s.from || x.from >= s.to {
			continue
		}
		take(x.from)
		at = max(at, x.to)
	}
	take(s.to)
	return best
}

// plainTitle names a clip by what is certain: "Video title: keyword,
// keyword (1:05–1:40)", shortened to fit.
func (d *doc) plainTitle(w Window, keywords []string) string {
	when := " (" + clock(w.Start) + "–" + clock(w.End) + ")"
	room := titleRunes - nlp.CodePoints(when)
	head := d.videoTitle
	if head == "" {
		head = "Clip"
	}
	if nlp.CodePoints(head) > room {
		return clipText(head, room) + when
	}
	for i, k := range keywords {
		sep := ": "
		if i > 0 {
			sep = ", "
		}
		if nlp.CodePoints(head+sep+k) > room {
			break
		}
		head += sep + k
	}
	return head + when
}

// clock writes seconds as m:ss.
func clock(s float64) string {
	t := int(math.Round(s))
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

// clipText cuts s at a word boundary to at most n code points, with an
// ellipsis when cut.
func clipText(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	cut := n - 1
	for k := cut; k > n/2; k-- {
		if unicode.IsSpace(r[k]) {
			cut = k
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), func(x rune) bool { return unicode.IsSpace(x) || unicode.IsPunct(x) }) + "…"
}

// mood names how the clip feels from its features.
func mood(f Features, t nlp.ContentType) string {
	switch {
	case f.Peaks > 0 && (t == nlp.Story || t == nlp.Interview):
		return "funny"
	case f.Energy >= 0.7 || f.Pace >= 0.9 && f.Emotion >= 0.4:
		return "energetic"
	case f.Emotion >= 0.5:
		return "emotional"
	case t == nlp.Tutorial || t == nlp.News || t == nlp.Review:
		return "informative"
	case f.Hook >= 0.45:
		return "intriguing"
	}
	return "calm"
}

// PlatformFit lists the short-form feeds a clip of dur seconds fits:
// YouTube Shorts and TikTok are at their best up to a minute, Reels up to
// 90 s; longer moments still suit TikTok and LinkedIn.
func PlatformFit(dur float64) []string {
	switch {
	case dur <= 60:
		return []string{"youtube_shorts", "tiktok", "instagram_reels"}
	case dur <= MaxSeconds:
		return []string{"tiktok", "instagram_reels", "linkedin"}
	}
	return []string{"tiktok", "linkedin"}
}

// ClipID is the id of a window: stable across rescoring.
func ClipID(w Window) string {
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%.2f-%.2f", w.Start, w.End)
	return fmt.Sprintf("clip_%012x", h.Sum64()&0xffffffffffff)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// analysis picks the format and subtitle style for the whole video.
func (d *doc) analysis() Analysis {
	a := Analysis{ContentType: string(d.contentType), SuggestedFormat: "portrait", TranscriptQuality: d.quality, Engine: "local", ScoreWeights: weightsOf(d.weights)}
	if d.query != nil {
		a.Prompt = d.query.prompt
	}
	// Screen content (a game, a tutorial's screen) loses what matters when
	// cropped to 9:16; everything else is for the vertical feeds.
	if d.contentType == nlp.Gaming || d.contentType == nlp.Tutorial {
		a.SuggestedFormat = "landscape"
	}
	emotion := 0.0
	if n := len(d.words); n > 1 && d.words[n-1] > 0 {
		emotion = d.emo[n-1] / d.words[n-1]
	}
	switch {
	case d.contentType == nlp.Gaming:
		a.SuggestedStyle = "energetic"
	case emotion >= 0.25:
		a.SuggestedStyle = "glow"
	case d.contentType == nlp.Story || d.contentType == nlp.List:
		a.SuggestedStyle = "bold"
	case d.contentType == nlp.Interview || d.contentType == nlp.News:
		a.SuggestedStyle = "minimal"
	default:
		a.SuggestedStyle = "clean"
	}
	return a
}

// termsIn are the terms text says (as whole words, any case), at most 5.
func termsIn(text string, terms []string) []string {
	out := []string{}
	said := " " + strings.Join(nlp.Tokens(text), " ") + " "
	for _, t := range terms {
		if len(out) < 5 && strings.Contains(said, " "+strings.Join(nlp.Tokens(t), " ")+" ") {
			out = append(out, t)
		}
	}
	return out
}
