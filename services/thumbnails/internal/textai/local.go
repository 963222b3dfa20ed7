package textai

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"hookline.dev/pkg/ai/nlp"
)

// Local is the offline engine. It is deterministic and safe for
// concurrent use; the zero value is ready.
type Local struct{}

var _ Engine = (*Local)(nil)

// Name is "local".
func (*Local) Name() string { return "local" }

// Concepts writes three distinct thumbnail concepts.
func (l *Local) Concepts(ctx context.Context, src Source) (Analysis, error) {
	if err := ctx.Err(); err != nil {
		return Analysis{}, err
	}
	return l.concepts(src), nil
}

// Titles writes in.Count titles (DefaultTitles when 0).
func (l *Local) Titles(ctx context.Context, in TitlesInput) (Titles, error) {
	if err := ctx.Err(); err != nil {
		return Titles{}, err
	}
	return l.titles(in), nil
}

// Description writes a description with tags, hashtags and chapters.
func (l *Local) Description(ctx context.Context, in DescriptionInput) (Description, error) {
	if err := ctx.Err(); err != nil {
		return Description{}, err
	}
	return l.description(in), nil
}

var quotedRe = regexp.MustCompile(`["“]([^"”]{1,60})["”]`)

// Optimize turns a rough idea into a structured image prompt with a
// headline: the idea's own quoted words when it has them, else its key
// phrase (with the idea's number, or a question mark for a question).
func (l *Local) Optimize(ctx context.Context, idea string) (Optimized, error) {
	if err := ctx.Err(); err != nil {
		return Optimized{}, err
	}
	idea = strings.Join(strings.Fields(idea), " ")
	d := measure(Source{Text: idea})
	main := d.mainKeyword(nil)
	if main == "" {
		main = firstWords(idea, 3)
	}
	headline := ""
	if m := quotedRe.FindStringSubmatch(idea); m != nil {
		headline = strings.ToUpper(strings.TrimSpace(m[1]))
	} else {
		h := nlp.Hook(idea)
		headline = upperWords(main, 3)
		if n := numberRe.FindString(idea); h.Number && n != "" && !strings.Contains(headline, n) {
			headline = n + " " + upperWords(main, 2)
		}
		if h.Question {
			headline += "?"
		}
	}
	at := archetypesFor(d.contentType())[0]
	subject := main
	if second := d.phrase(0, main); second != "" && !strings.HasSuffix(second, "ing") {
		subject += " with " + second
	}
	var sceneText string
	if at.id == versus.id {
		sceneText = fmt.Sprintf(at.scene, main, d.phrase(0, main))
	} else {
		sceneText = fmt.Sprintf(at.scene, subject)
	}
	prompt := fmt.Sprintf("YouTube thumbnail about %s: %s; %s; %s text, %s; headline \"%s\"",
		strings.TrimRight(idea, ".!"), sceneText, mood(d), at.textStyle, at.placement, strings.Trim(headline, "\"“”"))
	return Optimized{Prompt: prompt, Headline: headline, Engine: l.Name()}, nil
}
