package critique

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/ai/chatmodel"
)

// Chat lets a chat model word a critique (ARCHITECTURE §7: "chat provider
// adds wording"): the model reads the measurements, the scores and the
// local wording as a draft, and rewrites strengths, weaknesses,
// improvements and summary. Scores and attention areas stay measured, so
// the numbers never depend on the model. A model that is unreachable or
// answers badly twice leaves the local wording.
type Chat struct {
	Model chatmodel.Completer
}

const chatSystem = "You are a YouTube thumbnail consultant. Rewrite the draft critique of one thumbnail for its creator: " +
	"concrete, specific to the measurements and the niche, one sentence per item. Never change or invent numbers; " +
	"use only the measurements given. Answer only with JSON matching the schema."

// Limits of the model's answer.
const (
	maxItems       = 6
	maxItemChars   = 300
	maxSummaryChar = 600
)

// Word is the local critique of the measured m with the model's wording,
// and the engine that wrote the words: the model's "provider:model", or
// "local (fallback: …)" when the local wording stayed.
func (c *Chat) Word(ctx context.Context, m Metrics, niche string) (Critique, string) {
	local := Judge(m, niche)
	var ans chatAnswer
	fallback, err := chatmodel.Ask(ctx, c.Model, chatSystem, "thumbnail_critique", prompt(m, local, niche), chatSchema, &ans, func() error {
		return checkAnswer(local, ans.Strengths, ans.Weaknesses, ans.Improvements, ans.Summary)
	})
	if err != nil {
		return local, fallback
	}
	out := local
	out.Strengths, out.Weaknesses, out.Improvements = trimAll(ans.Strengths), trimAll(ans.Weaknesses), trimAll(ans.Improvements)
	out.Summary = strings.TrimSpace(ans.Summary)
	return out, c.Model.Name()
}

// prompt is what the model reads: the measurements, the scores and the
// local draft.
func prompt(m Metrics, cr Critique, niche string) string {
	var b strings.Builder
	if niche == "" {
		niche = "general"
	}
	fmt.Fprintf(&b, "Niche: %s\nSize: %d×%d\n", niche, m.Width, m.Height)
	fmt.Fprintf(&b, "Measurements: RMS contrast %.2f, colourfulness %.0f, brightness %.2f, saturation %.2f, warm share %.2f, edge density %.3f, faces %d",
		m.Contrast, m.Colourfulness, m.Brightness, m.Saturation, m.Warmth, m.EdgeDensity, m.Faces)
	if m.Faces > 0 {
		fmt.Fprintf(&b, " (largest: %.0f%% of the frame, cut off %v)", 100*m.Face.Share, m.Face.CutOff)
	}
	fmt.Fprintf(&b, ", text regions %d\n", len(m.Text))
	if len(m.Reading.Words) > 0 {
		fmt.Fprintf(&b, "Text read at full size: %q; at phone size (%d px wide): %q; %.0f%% of its letters survive\n",
			strings.Join(m.Reading.Words, " "), mobileSide, strings.Join(m.Reading.MobileWords, " "), 100*m.Reading.Survived)
	} else {
		b.WriteString("No text read\n")
	}
	s := cr.Scores
	fmt.Fprintf(&b, "Scores (0-10): overall %.1f, contrast %.1f, composition %.1f, textReadability %.1f, faceVisibility %.1f, colorAppeal %.1f, clickability %.1f, emotionalImpact %.1f\n",
		cr.OverallScore, s.Contrast, s.Composition, s.TextReadability, s.FaceVisibility, s.ColorAppeal, s.Clickability, s.EmotionalImpact)
	fmt.Fprintf(&b, "Draft strengths: %q\nDraft weaknesses: %q\nDraft improvements: %q\nDraft summary: %q\n",
		cr.Strengths, cr.Weaknesses, cr.Improvements, cr.Summary)
	fmt.Fprintf(&b, "Rules: at most %d items per list, each at most %d characters; keep at least one improvement when the draft has one; "+
		"the summary (at most %d characters) states the overall score %.1f.", maxItems, maxItemChars, maxSummaryChar, cr.OverallScore)
	return b.String()
}

// checkAnswer holds the model to the rules the prompt states.
func checkAnswer(local Critique, strengths, weaknesses, improvements []string, summary string) error {
	for name, list := range map[string][]string{"strengths": strengths, "weaknesses": weaknesses, "improvements": improvements} {
		if len(list) > maxItems {
			return fmt.Errorf("%s: at most %d items", name, maxItems)
		}
		for _, s := range list {
			if n := utf8.RuneCountInString(strings.TrimSpace(s)); n == 0 || n > maxItemChars {
				return fmt.Errorf("%s: items of 1 to %d characters", name, maxItemChars)
			}
		}
	}
	if len(local.Improvements) > 0 && len(improvements) == 0 {
		return errors.New("improvements: at least one")
	}
	s := strings.TrimSpace(summary)
	if n := utf8.RuneCountInString(s); n == 0 || n > maxSummaryChar {
		return fmt.Errorf("summary: 1 to %d characters", maxSummaryChar)
	}
	if !strings.Contains(s, fmt.Sprintf("%.1f", local.OverallScore)) {
		return errors.New("summary: must state the overall score")
	}
	return nil
}

func trimAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.TrimSpace(s)
	}
	return out
}
