package moments

import (
	"fmt"
	"math"
	"strings"
)

// Scores are a clip's sub-scores, 0..100, each the weighted mean of the
// features it groups:
//
//	hook   Hook                                 does the opening line stop the scroll
//	flow   SelfContained, Pace                  does it stand alone and is it easy to follow
//	value  Salience                             does it carry what the video is about
//	trend  Emotion, Length (+ Energy, Peaks,    what feeds reward: feeling, a feed-friendly
//	       Scenes once prepared)                length, loudness, laughter or applause, cuts
//
// ViralScore = round(Σ weight × sub-score) with the group weights of
// ScoreWeights (the summed feature weights of the group), so the
// sub-scores add up to it exactly.
type Scores struct {
	Hook, Flow, Value, Trend int
}

// ScoreWeights are the weights of the sub-scores; they sum to 1.
type ScoreWeights struct {
	Hook, Flow, Value, Trend float64
}

// groups maps the features onto the sub-scores.
func groups(f Features) [4]float64 {
	return [4]float64{f.Hook, f.SelfContained + f.Pace, f.Salience, f.Emotion + f.Length + f.Energy + f.Peaks + f.Scenes}
}

// weightsOf are the sub-score weights of feature weights w.
func weightsOf(w Features) ScoreWeights {
	g := groups(w)
	return ScoreWeights{Hook: g[0], Flow: g[1], Value: g[2], Trend: g[3]}
}

// subScores are f's sub-scores under feature weights w and the viral
// score they add up to.
func subScores(f, w Features) (Scores, int) {
	// Each feature weighted, grouped: Σ w_k f_k per group.
	var wf Features
	wf.Hook, wf.SelfContained, wf.Salience, wf.Emotion = f.Hook*w.Hook, f.SelfContained*w.SelfContained, f.Salience*w.Salience, f.Emotion*w.Emotion
	wf.Pace, wf.Length, wf.Energy, wf.Peaks, wf.Scenes = f.Pace*w.Pace, f.Length*w.Length, f.Energy*w.Energy, f.Peaks*w.Peaks, f.Scenes*w.Scenes
	num, den := groups(wf), groups(w)
	var s [4]int
	for g := range s {
		if den[g] > 0 {
			s[g] = int(math.Round(100 * clamp01(num[g]/den[g])))
		}
	}
	sc := Scores{Hook: s[0], Flow: s[1], Value: s[2], Trend: s[3]}
	return sc, ViralScore(sc, weightsOf(w))
}

// ViralScore is the documented rule: round(Σ weight × sub-score).
func ViralScore(s Scores, w ScoreWeights) int {
	return int(math.Round(w.Hook*float64(s.Hook) + w.Flow*float64(s.Flow) + w.Value*float64(s.Value) + w.Trend*float64(s.Trend)))
}

// quoteWords bounds a quote.
const quoteWords = 12

// quote is s cut to quoteWords words, with an ellipsis when cut.
func quote(s string) string {
	ws := strings.Fields(s)
	if len(ws) <= quoteWords {
		return strings.Join(ws, " ")
	}
	return strings.Join(ws[:quoteWords], " ") + "…"
}

// tailQuote is the last quoteWords/2 words of s, with a leading ellipsis
// when cut.
func tailQuote(s string) string {
	ws := strings.Fields(s)
	if n := quoteWords / 2; len(ws) > n {
		return "…" + strings.Join(ws[len(ws)-n:], " ")
	}
	return strings.Join(ws, " ")
}

// opening says how a clip whose first sentence is s opens.
func opening(s sentence) string {
	h := s.hook
	switch {
	case s.dangling:
		return "opens on a reference to what came before"
	case h.Question:
		return "opens with a question"
	case h.Curiosity:
		return "opens with a curiosity gap"
	case h.BoldClaim:
		return "opens with a bold claim"
	case h.Number:
		return "opens with a number"
	case h.DirectAddress:
		return "opens by speaking to the viewer"
	}
	return "opens without a hook"
}

// reasons explain c's score in short sentences that quote the clip's
// words. Only sentences heard wholly with confidence are quoted.
func (d *doc) reasons(c scored) []string {
	out := []string{}
	if c.i < 0 {
		return out
	}
	say := func(what, text string) { out = append(out, what+": '"+text+"'") }
	first, last := d.sents[c.i], d.sents[c.j]
	if first.reliable {
		say(opening(first), quote(first.text))
	}
	if last.reliable {
		if last.complete {
			say("ends on a complete thought", tailQuote(last.text))
		} else {
			say("ends mid-sentence", tailQuote(last.text))
		}
	}
	// The window's most keyword-dense and most emotional sentences.
	sal, emo := -1, -1
	for k := c.i; k <= c.j; k++ {
		s := d.sents[k]
		if !s.reliable || s.words < 4 {
			continue
		}
		if s.salience > 0 && (sal < 0 || s.salience/float64(s.words) > d.sents[sal].salience/float64(d.sents[sal].words)) {
			sal = k
		}
		if s.emotion > 0 && (emo < 0 || s.emotion > d.sents[emo].emotion) {
			emo = k
		}
	}
	if sal >= 0 && c.f.Salience >= 0.3 {
		say("carries the video's key terms", quote(d.sents[sal].text))
	}
	if emo >= 0 && c.f.Emotion >= 0.2 {
		say("shows feeling", quote(d.sents[emo].text))
	}
	if len(out) == 0 {
		out = append(out, "is not quoted: its words were recognised with little confidence")
	}
	if c.f.Peaks > 0 {
		out = append(out, "has a laughter- or applause-like burst")
	}
	if c.f.Energy >= 0.5 {
		out = append(out, fmt.Sprintf("is louder than the video's average (energy %.0f%%)", 100*c.f.Energy))
	}
	return out
}
