package translate

import (
	"context"
	"fmt"
	"strings"

	"hookline.dev/pkg/ai/chatmodel"
)

// Provider translates with the configured text provider's chat model:
// fluent, whole sentences, in any of Languages. Its answer is held to the
// request: one translation per sentence, none empty, every number and
// name kept; a second bad answer fails the translation (and the next
// engine, if any, translates).
type Provider struct {
	Model chatmodel.Completer
}

var _ Engine = (*Provider)(nil)

// Languages are the ISO 639-1 languages the provider is asked to
// translate into: those the major chat models are documented to write
// well. Their names are told to the model.
var Languages = map[string]string{
	"ar": "Arabic", "bn": "Bengali", "ca": "Catalan", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek",
	"en": "English", "es": "Spanish", "fa": "Persian", "fi": "Finnish", "fr": "French", "gl": "Galician", "he": "Hebrew",
	"hi": "Hindi", "hu": "Hungarian", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean",
	"ms": "Malay", "nl": "Dutch", "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian",
	"ru": "Russian", "sv": "Swedish", "sw": "Swahili", "th": "Thai", "tl": "Tagalog", "tr": "Turkish",
	"uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zh": "Chinese (Simplified)",
}

// Name is the engine's name in a render's captionTranslation.
func (p *Provider) Name() string { return "provider" }

// Quality is fluent.
func (p *Provider) Quality() string { return Fluent }

// Targets are Languages but from.
func (p *Provider) Targets(from string) []string {
	var out []string
	for l := range Languages {
		if l != from {
			out = append(out, l)
		}
	}
	return out
}

const providerSystem = "You translate the captions of a short video, sentence by sentence, for viewers who read the target language. " +
	"Translate each numbered sentence on its own into natural, spoken target language of about the same length. " +
	"Keep every listed number and name exactly as written. Answer only with JSON matching the schema, one translation per id."

// providerAnswer is the JSON providerSchema asks for.
type providerAnswer struct {
	Sentences []providerSentence `json:"sentences"`
}

type providerSentence struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// providerSchema is the strict JSON schema of providerAnswer.
var providerSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []string{"sentences"},
	"properties": map[string]any{"sentences": map[string]any{"type": "array", "items": map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"id", "text"},
		"properties": map[string]any{"id": map[string]any{"type": "integer"}, "text": map[string]any{"type": "string"}},
	}}},
}

// Translate asks the model for every sentence at once.
func (p *Provider) Translate(ctx context.Context, from, to string, sentences []Sentence) ([]string, error) {
	fromName, toName := Languages[from], Languages[to]
	if fromName == "" || toName == "" || from == to {
		return nil, fmt.Errorf("%w: %s→%s", ErrUnsupported, from, to)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From %s into %s.\n\n", fromName, toName)
	for i, s := range sentences {
		fmt.Fprintf(&b, "%d: %s\n", i, s.Text)
		if len(s.Keep) > 0 {
			fmt.Fprintf(&b, "   keep as written: %s\n", strings.Join(s.Keep, ", "))
		}
	}
	var ans providerAnswer
	out := make([]string, len(sentences))
	_, err := chatmodel.Ask(ctx, p.Model, providerSystem, "caption_translation", b.String(), providerSchema, &ans, func() error {
		clear(out)
		for _, a := range ans.Sentences {
			t := strings.Join(strings.Fields(a.Text), " ")
			if a.ID < 0 || a.ID >= len(sentences) || t == "" {
				return fmt.Errorf("sentence %d: an id of 0..%d and a translation", a.ID, len(sentences)-1)
			}
			for _, k := range sentences[a.ID].Keep {
				if !strings.Contains(t, k) {
					return fmt.Errorf("sentence %d: %q is not kept", a.ID, k)
				}
			}
			out[a.ID] = t
		}
		for i, t := range out {
			if t == "" {
				return fmt.Errorf("sentence %d is missing", i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
