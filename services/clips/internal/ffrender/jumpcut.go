package ffrender

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/media"
)

// Jump cuts. The clip's audio is measured in 10 ms frames; a frame is
// speech when it is loud (against the clip's own floor and peaks) or
// inside a spoken word, silence otherwise, and a filler when a filler
// word covers it. A run of silence and fillers between speech is a pause:
// one longer than longPause keeps keptPause of it (removeSilences), one
// holding a filler loses the filler and keeps its silence (removeFillers,
// then shortened as any pause). What is removed is snapped to the output's
// frame grid, so the video's frames and the audio's samples of every kept
// stretch are the same length and stay in sync however many cuts there are.
const (
	energyRate = 16000 // Hz, mono, for the measurement
	energyStep = 0.01  // seconds per energy frame
	longPause  = 0.4
	keptPause  = 0.15
	// wordGuard: the inside of a word (less this at each end, where the
	// recogniser's timing is loose) is speech even where it is quiet.
	wordGuard = 0.03
	// cutFade is the fade out before and in after each cut, so a cut never
	// clicks.
	cutFade = 0.012
	// outFPS is the output's frame rate; cuts fall on its grid.
	outFPS = 30
	// audioGrain is the audio frame (samples at 48 kHz) the cut selects
	// on: 1/300 s, ten to a video frame.
	audioGrain = 160
)

// fillers are the words removeFillers takes out wherever they are.
// pocketsphinx writes a spoken "um" as "ah".
var fillers = map[string]bool{"um": true, "umm": true, "uhm": true, "uh": true, "uhh": true, "er": true, "erm": true,
	"hmm": true, "hm": true, "mm": true, "ah": true}

// fillerPhrases are fillers only when they stand alone between pauses
// ("I mean it" is speech; "…, I mean, …" is not).
var fillerPhrases = [][2]string{{"you", "know"}, {"i", "mean"}}

// aloneGap is the pause that sets a filler phrase apart.
const aloneGap = 0.15

// Span is a stretch of the clip, seconds from its start.
type Span struct{ From, To float64 }

// Edit is a clip's jump cut: the stretches removed, in order, disjoint,
// on the output's frame grid.
type Edit struct {
	Removed []Span
}

// Seconds is how much the cut removes.
func (e Edit) Seconds() float64 {
	s := 0.0
	for _, r := range e.Removed {
		s += r.To - r.From
	}
	return s
}

// Out maps a time of the clip to the cut clip; a time inside a removed
// stretch goes to the cut.
func (e Edit) Out(t float64) float64 {
	shift := 0.0
	for _, r := range e.Removed {
		switch {
		case t >= r.To:
			shift += r.To - r.From
		case t > r.From:
			return r.From - shift
		default:
			return t - shift
		}
	}
	return t - shift
}

// cut reports whether t is inside a removed stretch.
func (e Edit) cut(t float64) bool {
	for _, r := range e.Removed {
		if t > r.From && t < r.To {
			return true
		}
	}
	return false
}

// Squeezed are ws in the cut clip's time, each kept unless the cut took
// all of it: words re-timed over a sentence (a translation) do not match
// the spoken words the cut was planned from, and none of them is the
// filler the cut removed.
func (e Edit) Squeezed(ws []captions.Word) []captions.Word {
	out := make([]captions.Word, 0, len(ws))
	for _, w := range ws {
		w.Start, w.End = e.Out(w.Start), e.Out(w.End)
		if w.End > w.Start {
			out = append(out, w)
		}
	}
	return out
}

// Words are ws in the cut clip's time; a word whose middle was cut (a
// removed filler) is left out.
func (e Edit) Words(ws []captions.Word) []captions.Word {
	out := make([]captions.Word, 0, len(ws))
	for _, w := range ws {
		if e.cut((w.Start + w.End) / 2) {
			continue
		}
		w.Start, w.End = e.Out(w.Start), e.Out(w.End)
		out = append(out, w)
	}
	return out
}

// Crop is the crop path in the cut clip's time: samples inside removed
// stretches are dropped, so the path steps at each cut (split halves
// included); of two samples a cut brings to one time, the later stays.
func (e Edit) Crop(path []CropPoint) []CropPoint {
	out := make([]CropPoint, 0, len(path))
	for _, p := range path {
		if e.cut(p.T) {
			continue
		}
		p.T = e.Out(p.T)
		if n := len(out); n > 0 && p.T <= out[n-1].T {
			out[n-1] = p
			continue
		}
		out = append(out, p)
	}
	return out
}

// Faces are the faces on screen in the cut clip's time; one shown only
// inside a removed stretch is left out.
func (e Edit) Faces(fs []captions.FaceBox) []captions.FaceBox {
	out := make([]captions.FaceBox, 0, len(fs))
	for _, f := range fs {
		if f.Start, f.End = e.Out(f.Start), e.Out(f.End); f.End > f.Start {
			out = append(out, f)
		}
	}
	return out
}

// videoFilter keeps the video frames outside the removed stretches
// (after fps=outFPS, frame n is at n/outFPS; the bounds sit half a frame
// before the grid points so none is on a boundary).
func (e Edit) videoFilter() string {
	return fmt.Sprintf("fps=%d,select='%s',setpts=N/%d/TB", outFPS, e.keepExpr(0.5/outFPS), outFPS)
}

// audioFilter fades around each cut and keeps the audio outside the
// removed stretches, on audioGrain-sample frames at 48 kHz.
func (e Edit) audioFilter() string {
	return fmt.Sprintf("aresample=48000,asetnsamples=n=%d:p=0,volume='%s':eval=frame,aselect='%s',asetpts=N/SR/TB",
		audioGrain, gainExpr(e.Removed, cutFade), e.keepExpr(0.5*audioGrain/48000))
}

// gainExpr is a volume expression of t that is 1 outside spans and 0
// inside them, ramping down over fade seconds before each and back up
// over fade after it (evaluated per audioGrain frame, so it never
// clicks).
func gainExpr(spans []Span, fade float64) string {
	var gain strings.Builder
	for i, r := range spans {
		if i > 0 {
			gain.WriteByte('*')
		}
		fmt.Fprintf(&gain, "max(clip((%.4f-t)/%.3f,0,1),clip((t-%.4f)/%.3f,0,1))", r.From, fade, r.To, fade)
	}
	return gain.String()
}

// keepExpr is true for a frame at t outside every removed stretch, each
// bound moved back by half.
func (e Edit) keepExpr(half float64) string {
	var b strings.Builder
	b.WriteString("1")
	for _, r := range e.Removed {
		fmt.Fprintf(&b, "-between(t,%.5f,%.5f)", r.From-half, r.To-half)
	}
	return b.String()
}

// frame classes of the plan.
const (
	silent = iota
	spoken
	filler
)

// planCuts finds what to remove from a clip length seconds long with
// words, given its loudness in dBFS per energyStep (nil without audio:
// then only the words tell speech from pauses).
func planCuts(words []captions.Word, db []float64, length float64, silences, dropFillers bool) Edit {
	n := int(math.Ceil(length / energyStep))
	if n <= 0 || (!silences && !dropFillers) {
		return Edit{}
	}
	class := make([]int, n)
	if db != nil {
		thr := speechThreshold(db)
		for i := range min(n, len(db)) {
			if db[i] > thr {
				class[i] = spoken
			}
		}
	}
	frame := func(t float64) int { return max(0, min(n, int(math.Round(t/energyStep)))) }
	isFiller := fillerWords(words)
	guard := wordGuard
	if db == nil {
		guard = 0
	}
	for i, w := range words {
		if !dropFillers || !isFiller[i] {
			for k := frame(w.Start + guard); k < frame(w.End-guard); k++ {
				class[k] = spoken
			}
		}
	}
	if dropFillers {
		for i, w := range words {
			if !isFiller[i] {
				continue
			}
			// Not into the neighbouring words: their timing wins.
			from, to := w.Start, w.End
			if i > 0 && !isFiller[i-1] {
				from = max(from, words[i-1].End)
			}
			if i+1 < len(words) && !isFiller[i+1] {
				to = min(to, words[i+1].Start)
			}
			for k := frame(from); k < frame(to); k++ {
				class[k] = filler
			}
		}
	}
	var removed []Span
	for i := 0; i < n; {
		if class[i] == spoken {
			i++
			continue
		}
		j, quiet, hasFiller := i, 0, false
		for ; j < n && class[j] != spoken; j++ {
			if class[j] == filler {
				hasFiller = true
			} else {
				quiet++
			}
		}
		run, silence := float64(j-i)*energyStep, float64(quiet)*energyStep
		keep := -1.0
		switch {
		case hasFiller && silences && silence > longPause:
			keep = keptPause
		case hasFiller:
			keep = silence
		case silences && run > longPause:
			keep = keptPause
		}
		if keep >= 0 {
			// Keep the pause's silence at its edges, half each side (all of
			// it before the first word and after the last).
			left, right := edge(class, i, j, 1), edge(class, j-1, i-1, -1)
			kl, kr := min(left, keep/2), min(right, keep/2)
			switch {
			case i == 0:
				kl, kr = 0, min(right, keep)
			case j == n:
				kl, kr = min(left, keep), 0
			}
			if kl+kr < keep { // one side is short of silence: the other gives
				kl = min(left, keep-kr)
				kr = min(right, keep-kl)
			}
			from, to := float64(i)*energyStep+kl, math.Min(length, float64(j)*energyStep-kr)
			removed = append(removed, Span{From: from, To: to})
		}
		i = j
	}
	return snap(removed, length)
}

// with adds spans (seconds of a clip length long) to the removed
// stretches, on the frame grid.
func (e Edit) with(spans []Span, length float64) Edit {
	if len(spans) == 0 {
		return e
	}
	all := append(slices.Clone(e.Removed), spans...)
	slices.SortFunc(all, func(a, b Span) int { return cmp.Compare(a.From, b.From) })
	return snap(all, length)
}

// edge is how many seconds of silence run from frame i towards stop.
func edge(class []int, i, stop, dir int) float64 {
	k := 0
	for ; i != stop && class[i] == silent; i += dir {
		k++
	}
	return float64(k) * energyStep
}

// snap puts the removed stretches on the output's frame grid, dropping
// any that come to nothing and merging any that touch.
func snap(spans []Span, length float64) Edit {
	var e Edit
	grid := func(t float64) float64 { return math.Round(t*outFPS) / outFPS }
	for _, s := range spans {
		from, to := grid(s.From), grid(s.To)
		if s.To >= length-1e-9 {
			to = length
		}
		if to-from < 0.5/outFPS {
			continue
		}
		if k := len(e.Removed); k > 0 && from <= e.Removed[k-1].To {
			e.Removed[k-1].To = max(e.Removed[k-1].To, to)
			continue
		}
		e.Removed = append(e.Removed, Span{From: from, To: to})
	}
	return e
}

// fillerWords marks the words that are fillers: a filler word anywhere, a
// filler phrase when it stands alone between pauses or punctuation.
func fillerWords(words []captions.Word) []bool {
	out := make([]bool, len(words))
	tok := make([]string, len(words))
	for i, w := range words {
		if t := nlp.Tokens(w.Text); len(t) == 1 {
			tok[i] = t[0]
		}
		out[i] = fillers[tok[i]]
	}
	apart := func(before, after int) bool { // a pause or a punctuation mark between the two words
		if before < 0 || after >= len(words) {
			return true
		}
		t := words[before].Text
		return words[after].Start-words[before].End >= aloneGap || strings.TrimRight(t, ",.;:!?") != t
	}
	for i := 0; i+1 < len(words); i++ {
		for _, p := range fillerPhrases {
			if tok[i] == p[0] && tok[i+1] == p[1] && apart(i-1, i) && apart(i+1, i+2) {
				out[i], out[i+1] = true, true
			}
		}
	}
	return out
}

// speechThreshold is the loudness (dBFS) above which a frame is speech:
// well above the clip's floor and no more than 35 dB under its peaks.
func speechThreshold(db []float64) float64 {
	s := slices.Clone(db)
	slices.Sort(s)
	floor, loud := s[len(s)/10], s[len(s)*95/100]
	return math.Max(loud-35, floor+0.3*(loud-floor))
}

// loudness measures the clip's audio: dBFS per energyStep (at least
// -100, for digital silence).
func (r *Renderer) loudness(ctx context.Context, j Job) ([]float64, error) {
	m := &media.Meter{Rate: energyRate, Step: energyStep}
	if err := r.measure(ctx, j, m, "measuring the audio"); err != nil {
		return nil, err
	}
	return m.Loudness(), nil
}

// Loudness is db (per energyStep of the clip) in the cut clip's time.
func (e Edit) Loudness(db []float64) []float64 {
	out := make([]float64, 0, len(db))
	for i, v := range db {
		if !e.cut((float64(i) + 0.5) * energyStep) {
			out = append(out, v)
		}
	}
	return out
}

// apply re-times j's text (the faces it avoids included) and b-roll to
// the cut clip.
func (e Edit) apply(j Job) Job {
	if j.Spoken != nil {
		j.Text.Words = e.Squeezed(j.Text.Words)
	} else {
		j.Text.Words = e.Words(j.Text.Words)
	}
	j.Text.Faces = e.Faces(j.Text.Faces)
	cuts := make([]captions.Cutaway, len(j.Text.Cutaways))
	for i, c := range j.Text.Cutaways {
		cuts[i] = captions.Cutaway{Start: e.Out(c.Start), End: e.Out(c.End), Text: c.Text}
	}
	j.Text.Cutaways = cuts
	footage := make([]Footage, len(j.Footage))
	for i, f := range j.Footage {
		footage[i] = Footage{Start: e.Out(f.Start), End: e.Out(f.End), File: f.File}
	}
	j.Footage = footage
	return j
}
