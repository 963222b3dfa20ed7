package service

import (
	"context"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/ffrender"
)

// CensorWords is each organization's own words for the profanity filter
// (*postgres.Store). Every method may return a database failure.
type CensorWords interface {
	// CensorWords returns the organization's words, none when it set
	// none.
	CensorWords(ctx context.Context, orgID string) ([]string, error)
	// SetCensorWords replaces them.
	SetCensorWords(ctx context.Context, orgID string, words []string, now time.Time) error
}

// CensorList is what the profanity filter of an organization listens
// for: the built-in list's size and source, and the organization's own
// words.
type CensorList struct {
	Words        []string
	BuiltinCount int
}

// CensorList returns the organization's list.
func (s *API) CensorList(ctx context.Context, orgID string) (CensorList, error) {
	words, err := s.Censor.CensorWords(ctx, orgID)
	return CensorList{Words: words, BuiltinCount: censor.Builtin().Len()}, err
}

// SetCensorWords replaces the organization's own words (validated by
// censor.Words; absent is 400).
func (s *API) SetCensorWords(ctx context.Context, orgID string, in *[]string) (CensorList, error) {
	if in == nil {
		return CensorList{}, apierr.Field("words", "required: the list of words and phrases ([] for none)")
	}
	words, err := censor.Words(*in)
	if err != nil {
		return CensorList{}, err
	}
	if err := s.Censor.SetCensorWords(ctx, orgID, words, s.now()); err != nil {
		return CensorList{}, err
	}
	return CensorList{Words: words, BuiltinCount: censor.Builtin().Len()}, nil
}

// censored masks the listed words (the built-in list and the
// organization's own) of the text a render draws: the captions, the hook
// title and the keyword cards; and returns the captions' listed words'
// stretches for the renderer to bleep or mute.
func (s *Worker) censored(ctx context.Context, orgID string, text *captions.Spec) ([]ffrender.Span, error) {
	own, err := s.Censor.CensorWords(ctx, orgID)
	if err != nil {
		return nil, err
	}
	list := censor.Builtin().With(own)
	texts := make([]string, len(text.Words))
	for i, w := range text.Words {
		texts[i] = w.Text
	}
	listed := list.Match(texts)
	words := make([]captions.Word, len(text.Words))
	var spans []ffrender.Span
	for i, w := range text.Words {
		if listed[i] {
			spans = append(spans, ffrender.Span{From: w.Start, To: w.End})
			w.Text = censor.Mask(w.Text)
		}
		words[i] = w
	}
	text.Words = words
	text.Hook = list.MaskText(text.Hook)
	cards := make([]captions.Cutaway, len(text.Cutaways))
	for i, c := range text.Cutaways {
		c.Text = list.MaskText(c.Text)
		cards[i] = c
	}
	text.Cutaways = cards
	return spans, nil
}
