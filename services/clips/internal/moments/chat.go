package moments

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/nlp"
)

// Chat lets a chat model word the titles and hooks of the clips the local
// engine chose and scored: the model never picks the moments, so the
// ranking stays measured and deterministic. A model that is unreachable or
// answers malformed JSON twice leaves the local wording, and Analysis.Engine
// says so.
type Chat struct {
	Model chatmodel.Completer
	Local Local
}

// Name is the model's "provider:model".
func (c *Chat) Name() string { return c.Model.Name() }

const chatSystem = "You write short-form video packaging. For each clip, write a title (at most 70 characters) " +
	"and a hook (the first line a viewer hears or reads, at most 150 characters) from the clip's own words. " +
	"Answer only with JSON matching the schema; keep every id; never invent facts that are not in the excerpt."

// maxExcerpt bounds the words of one clip sent to the model.
const maxExcerpt = 1500

// Rank ranks with the local engine, then asks the model for the wording,
// unless the transcript is too unreliable to word anything from: then the
// local titles (the video's title, time range and confident keywords)
// stand, and Analysis.Engine says so.
func (c *Chat) Rank(ctx context.Context, in Input) (Result, error) {
	res, err := c.steered(ctx, in)
	if err != nil || len(res.Clips) == 0 {
		return res, err
	}
	if res.Analysis.TranscriptQuality == QualityLow {
		res.Analysis.Engine = "local (transcript quality low)"
		return res, nil
	}
	d := prepare(in)
	var b strings.Builder
	for _, cl := range res.Clips {
		text := clipText(d.textOf(Window{Start: cl.Start, End: cl.End}), maxExcerpt)
		fmt.Fprintf(&b, "Clip %s (%.0f–%.0f s, %s, keywords: %s):\n%s\n\n", cl.ID, cl.Start, cl.End, cl.Category, strings.Join(cl.Keywords, ", "), text)
	}
	var ans chatAnswer
	fallback, err := chatmodel.Ask(ctx, c.Model, chatSystem, "clip_titles", b.String(), chatSchema, &ans, func() error {
		got := map[string]bool{}
		for _, a := range ans.Clips {
			t, h := strings.TrimSpace(a.Title), strings.TrimSpace(a.Hook)
			if t == "" || h == "" || utf8.RuneCountInString(t) > 70 || utf8.RuneCountInString(h) > 150 {
				return fmt.Errorf("clip %s: a title of 1..70 and a hook of 1..150 characters", a.ID)
			}
			got[a.ID] = true
		}
		for _, cl := range res.Clips {
			if !got[cl.ID] {
				return fmt.Errorf("clip %s is missing", cl.ID)
			}
		}
		return nil
	})
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if err != nil {
		res.Analysis.Engine = fallback
		return res, nil
	}
	words := map[string][2]string{}
	for _, a := range ans.Clips {
		words[a.ID] = [2]string{strings.TrimSpace(a.Title), strings.TrimSpace(a.Hook)}
	}
	for i := range res.Clips {
		w := words[res.Clips[i].ID]
		res.Clips[i].Title, res.Clips[i].Hook = w[0], w[1]
	}
	res.Analysis.Engine = c.Model.Name()
	return res, nil
}

// NewEngine is the local engine with lexicon lx (nil: none), or the
// chat wording over it when m is set.
func NewEngine(m chatmodel.Completer, lx Lexicon) Engine {
	if m == nil {
		return Local{Lexicon: lx}
	}
	return &Chat{Model: m, Local: Local{Lexicon: lx}}
}

// textOf is the confidently heard text of the sentences inside w.
func (d *doc) textOf(w Window) string {
	i, j := d.span(w)
	if i < 0 {
		return ""
	}
	return d.reliable(d.sents[i].from, d.sents[j].to)
}

const matchSystem = "You find the parts of a video transcript that match what a viewer asks for. The transcript is " +
	"numbered sentences with their start and end in seconds. Answer only with JSON matching the schema: every sentence " +
	"that matches the request, with its number, its start and end exactly as given, and a quote copied word for word " +
	"from that sentence. Name no sentence that does not match; an empty list when none does."

// maxMatchText bounds the transcript sent to the model to find a
// prompt's sentences, in bytes (about 10,000 words, an hour of talk):
// the model is not asked about the sentences after it.
const maxMatchText = 60000

// steered ranks locally, steered by the prompt. With a prompt and a
// transcript of high quality, the model names the matching sentences;
// its answer counts only when every sentence it names exists with the
// times it gives (±1 s) and holds its quote, else it is asked once more
// and then WordNet's matching stands.
func (c *Chat) steered(ctx context.Context, in Input) (Result, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return c.Local.Rank(ctx, in)
	}
	d := prepare(in)
	if d.quality == QualityLow || len(d.sents) == 0 {
		return c.Local.Rank(ctx, in)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Request: %s\n\nTranscript:\n", strings.TrimSpace(in.Prompt))
	sent := 0
	for k, s := range d.sents {
		line := fmt.Sprintf("[%d] (%.1f–%.1f) %s\n", k, s.start, s.end, s.text)
		if b.Len()+len(line) > maxMatchText {
			break
		}
		b.WriteString(line)
		sent = k + 1
	}
	var ans chatMatches
	_, err := chatmodel.Ask(ctx, c.Model, matchSystem, "prompt_matches", b.String(), chatMatchSchema, &ans, func() error {
		for _, m := range ans.Moments {
			if m.Sentence < 0 || m.Sentence >= sent {
				return fmt.Errorf("sentence %d does not exist", m.Sentence)
			}
			s := d.sents[m.Sentence]
			if math.Abs(m.Start-s.start) > 1 || math.Abs(m.End-s.end) > 1 {
				return fmt.Errorf("sentence %d is at %.1f–%.1f, not %.1f–%.1f", m.Sentence, s.start, s.end, m.Start, m.End)
			}
			if q := strings.Join(strings.Fields(m.Quote), " "); q == "" || !strings.Contains(strings.ToLower(s.text), strings.ToLower(q)) {
				return fmt.Errorf("sentence %d does not say %q", m.Sentence, m.Quote)
			}
		}
		return nil
	})
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if err != nil {
		return c.Local.Rank(ctx, in)
	}
	// The model's sentences are the matches: one concept, the request.
	q := &query{prompt: strings.TrimSpace(in.Prompt), concepts: []concept{{}}}
	hits := make([]hit, len(d.sents))
	for k := range hits {
		hits[k].weights = []float64{0}
	}
	for _, m := range ans.Moments {
		h := &hits[m.Sentence]
		h.weights[0] = 1
		for _, t := range nlp.Tokens(m.Quote) {
			if !nlp.IsStopword(t) && !slices.Contains(h.terms, t) {
				h.terms = append(h.terms, t)
			}
		}
	}
	return rank(in, q, hits), nil
}
