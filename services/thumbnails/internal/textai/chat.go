package textai

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"hookline.dev/pkg/ai/chatmodel"
)

// Chat words the products with a chat model, from the same measured
// pieces the local engine uses, and holds its answers to the same rules.
// An answer that breaks them is asked for once more; a second bad answer,
// or a model that cannot be reached, falls back to Local.
type Chat struct {
	Model chatmodel.Completer
	Local *Local
}

var _ Engine = (*Chat)(nil)

// excerptChars bounds the transcript sent to the model: the measured
// pieces carry the whole video, the excerpt its voice.
const excerptChars = 6000

// Name is the model's "provider:model".
func (c *Chat) Name() string { return c.Model.Name() }

const system = "You write YouTube packaging for creators. Answer only with JSON matching the schema. " +
	"Use the measured facts given; never invent facts that are not in the transcript."

// ask runs one task with the model (Ask).
func (c *Chat) ask(ctx context.Context, name, user string, schema map[string]any, out any, valid func() error) (string, error) {
	return chatmodel.Ask(ctx, c.Model, system, name, user, schema, out, valid)
}

func facts(d digest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Title: %s\n", d.title)
	if t := d.contentType(); t != "" {
		fmt.Fprintf(&b, "Content type: %s\n", t)
	}
	b.WriteString("Key phrases (strongest first): ")
	for i, p := range d.phrases {
		if i == 12 {
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Text)
	}
	fmt.Fprintf(&b, "\nSummary: %s\n", summaryText(d, 600))
	if d.hook != "" {
		fmt.Fprintf(&b, "Strongest opening line: %s\n", d.hook)
	}
	fmt.Fprintf(&b, "Transcript excerpt: %s\n", clip(d.text, excerptChars))
	return b.String()
}

func str() map[string]any { return map[string]any{"type": "string"} }

func object(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	slices.Sort(req)
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

func array(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

// Concepts asks for three concepts.
func (c *Chat) Concepts(ctx context.Context, src Source) (Analysis, error) {
	d := measure(src)
	var ans struct {
		Summary  string `json:"summary"`
		Concepts []struct {
			Title         string `json:"title"`
			Description   string `json:"description"`
			Prompt        string `json:"prompt"`
			HookText      string `json:"hookText"`
			TextStyle     string `json:"textStyle"`
			TextPlacement string `json:"textPlacement"`
		} `json:"concepts"`
	}
	concept := object(map[string]any{"title": str(), "description": str(), "prompt": str(), "hookText": str(), "textStyle": str(), "textPlacement": str()})
	schema := object(map[string]any{"summary": str(), "concepts": array(concept)})
	user := facts(d) + "\nWrite a two-sentence summary and exactly three clearly different thumbnail concepts. " +
		"Each prompt is a complete image-generation prompt (under 600 characters) that includes its hookText in double quotes; hookText is 1-5 words."
	fallback, err := c.ask(ctx, "thumbnail_concepts", user, schema, &ans, func() error {
		if len(ans.Concepts) != ConceptCount {
			return fmt.Errorf("%d concepts, want %d", len(ans.Concepts), ConceptCount)
		}
		seen := map[string]bool{}
		for i, k := range ans.Concepts {
			if strings.TrimSpace(k.Title) == "" || strings.TrimSpace(k.Prompt) == "" || strings.TrimSpace(k.HookText) == "" || CodePoints(k.Prompt) > 1500 {
				return fmt.Errorf("concept %d incomplete", i)
			}
			if seen[strings.ToLower(k.Prompt)] {
				return fmt.Errorf("concept %d repeats another", i)
			}
			seen[strings.ToLower(k.Prompt)] = true
		}
		return nil
	})
	if ctx.Err() != nil {
		return Analysis{}, ctx.Err()
	}
	if err != nil {
		a := c.Local.concepts(src)
		a.Engine = fallback
		return a, nil
	}
	a := Analysis{Title: d.title, Summary: clip(ans.Summary, 600), Engine: c.Name()}
	if a.Title == "" {
		a.Title = "Your Video"
	}
	for i, k := range ans.Concepts {
		a.Concepts = append(a.Concepts, Concept{ID: fmt.Sprintf("concept-%d", i+1), Title: k.Title, Description: k.Description,
			Prompt: conceptPrompt(k.Prompt, k.HookText, k.TextPlacement), HookText: k.HookText, TextStyle: k.TextStyle, TextPlacement: k.TextPlacement})
	}
	return a, nil
}

// Titles asks for in.Count titles that keep the keyword rule.
func (c *Chat) Titles(ctx context.Context, in TitlesInput) (Titles, error) {
	d := measure(in.Source)
	count := in.Count
	if count <= 0 {
		count = DefaultTitles
	}
	k := d.mainKeyword(in.Keywords)
	var ans struct {
		Titles []struct {
			Title   string `json:"title"`
			Pattern string `json:"pattern"`
			Reason  string `json:"reason"`
		} `json:"titles"`
	}
	pattern := map[string]any{"type": "string", "enum": []string{string(HowTo), string(Number), string(Question), string(Curiosity), string(Outcome), string(Contrarian)}}
	schema := object(map[string]any{"titles": array(object(map[string]any{"title": str(), "pattern": pattern, "reason": str()}))})
	user := facts(d) + fmt.Sprintf("\nWrite exactly %d video titles of at most %d characters. Every title contains %q, in its first half where possible. "+
		"Use the patterns how-to, number, question, curiosity-gap, outcome and contrarian (all six when there are six or more titles). Give a one-sentence reason for each.",
		count, MaxTitle, k)
	fallback, err := c.ask(ctx, "video_titles", user, schema, &ans, func() error {
		if len(ans.Titles) != count {
			return fmt.Errorf("%d titles, want %d", len(ans.Titles), count)
		}
		seen, patterns := map[string]bool{}, map[string]bool{}
		for i, t := range ans.Titles {
			switch {
			case CodePoints(t.Title) == 0 || CodePoints(t.Title) > MaxTitle:
				return fmt.Errorf("title %d has %d characters", i, CodePoints(t.Title))
			case !strings.Contains(strings.ToLower(t.Title), strings.ToLower(k)):
				return fmt.Errorf("title %d lacks the keyword", i)
			case seen[strings.ToLower(t.Title)]:
				return fmt.Errorf("title %d repeats another", i)
			}
			seen[strings.ToLower(t.Title)], patterns[t.Pattern] = true, true
		}
		if count >= patternsLen && len(patterns) < patternsLen {
			return fmt.Errorf("%d of the six patterns used", len(patterns))
		}
		return nil
	})
	if ctx.Err() != nil {
		return Titles{}, ctx.Err()
	}
	if err != nil {
		t := c.Local.titles(in)
		t.Engine = fallback
		return t, nil
	}
	out := Titles{Engine: c.Name()}
	for _, t := range ans.Titles {
		out.Titles = append(out.Titles, Title{Title: strings.TrimSpace(t.Title), Pattern: Pattern(t.Pattern), Reason: t.Reason})
	}
	return out, nil
}

// Description asks for the wording; chapters stay measured.
func (c *Chat) Description(ctx context.Context, in DescriptionInput) (Description, error) {
	src := in.Source
	if src.Title == "" {
		src.Title = in.Title
	}
	d := measure(src)
	var ans struct {
		Hook     string   `json:"hook"`
		Summary  string   `json:"summary"`
		Tags     []string `json:"tags"`
		Hashtags []string `json:"hashtags"`
	}
	schema := object(map[string]any{"hook": str(), "summary": str(), "tags": array(str()), "hashtags": array(str())})
	user := facts(d) + fmt.Sprintf("\nWrite a description for the video titled %q: a hook line of at most %d characters, a summary paragraph, "+
		"up to 20 search tags, and %d to %d hashtags (each one word starting with #).", in.Title, MaxHookLine, MinHashtags, MaxHashtags)
	fallback, err := c.ask(ctx, "video_description", user, schema, &ans, func() error {
		switch {
		case CodePoints(ans.Hook) == 0 || CodePoints(ans.Hook) > MaxHookLine || strings.Contains(ans.Hook, "\n"):
			return errors.New("hook line missing, too long or not one line")
		case len(ans.Hashtags) < MinHashtags || len(ans.Hashtags) > MaxHashtags:
			return fmt.Errorf("%d hashtags", len(ans.Hashtags))
		}
		for _, h := range ans.Hashtags {
			if !strings.HasPrefix(h, "#") || strings.ContainsAny(h, " \t\n,") || CodePoints(h) < 2 {
				return fmt.Errorf("hashtag %q", h)
			}
		}
		return nil
	})
	if ctx.Err() != nil {
		return Description{}, ctx.Err()
	}
	if err != nil {
		out := c.Local.description(in)
		out.Engine = fallback
		return out, nil
	}
	out := Description{Engine: c.Name(), Hashtags: ans.Hashtags}
	out.Chapters, out.ChaptersEstimated = chapters(src)
	out.Tags = tags(digest{}, append(append([]string(nil), in.Keywords...), ans.Tags...))
	out.Description = composeDescription(strings.TrimSpace(ans.Hook), clip(ans.Summary, 1500), out.Chapters, in.Links, out.Hashtags)
	return out, nil
}

// Optimize asks for a prompt and headline.
func (c *Chat) Optimize(ctx context.Context, idea string) (Optimized, error) {
	var ans struct {
		Prompt   string `json:"prompt"`
		Headline string `json:"headline"`
	}
	schema := object(map[string]any{"prompt": str(), "headline": str()})
	user := "Rough thumbnail idea: " + idea + "\nRewrite it as one detailed image-generation prompt for a YouTube thumbnail " +
		"(subject, composition, lighting, palette, text placement; under 800 characters) and a headline of 1-5 words. " +
		"The prompt must contain the headline in double quotes."
	fallback, err := c.ask(ctx, "optimized_prompt", user, schema, &ans, func() error {
		words := len(strings.Fields(ans.Headline))
		switch {
		case CodePoints(ans.Prompt) < 10 || CodePoints(ans.Prompt) > 1500:
			return errors.New("prompt length")
		case words < 1 || words > 6 || CodePoints(ans.Headline) > 60:
			return errors.New("headline length")
		}
		return nil
	})
	if ctx.Err() != nil {
		return Optimized{}, ctx.Err()
	}
	if err != nil {
		o, lerr := c.Local.Optimize(ctx, idea)
		o.Engine = fallback
		return o, lerr
	}
	prompt := strings.Join(strings.Fields(ans.Prompt), " ")
	headline := strings.Trim(strings.TrimSpace(ans.Headline), "\"“”")
	if !strings.Contains(prompt, "\""+headline+"\"") {
		prompt += "; headline \"" + headline + "\""
	}
	return Optimized{Prompt: prompt, Headline: headline, Engine: c.Name()}, nil
}
