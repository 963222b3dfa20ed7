package moments

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/textai"
)

// Chat lets a chat model word the titles and hooks of the clips the local
// engine chose and scored: the model never picks the moments, so the
// ranking stays measured and deterministic. A model that is unreachable or
// answers malformed JSON twice leaves the local wording, and Analysis.Engine
// says so.
type Chat struct {
	Model textai.Completer
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
	res, err := c.Local.Rank(ctx, in)
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
	fallback, err := textai.Ask(ctx, c.Model, chatSystem, "clip_titles", b.String(), chatSchema, &ans, func() error {
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
func NewEngine(m textai.Completer, lx Lexicon) Engine {
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
