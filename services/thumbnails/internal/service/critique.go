package service

import (
	"context"
	"errors"
	"strings"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
)

// OpCritique names a critique in billing's usage history.
const OpCritique = "thumbnails.critique"

// Critique measures a picture and writes its critique, for 1 credit: the
// picture is checked, its memory acquired (memory.go) and the picture
// loaded before the reservation (a bad one costs nothing), and the
// critique is stored in the transaction that completes the reservation,
// so a retry of the same request (Idempotency-Key) answers it again
// instead of paying twice.
func (s *Service) Critique(ctx context.Context, p principal.Principal, imageURL, niche *string) (critique.Record, error) {
	f := apierr.Fields{}
	var u, n string
	if imageURL == nil || strings.TrimSpace(*imageURL) == "" {
		f.Add("imageUrl", "is required")
	} else {
		u = strings.TrimSpace(*imageURL)
	}
	if niche != nil {
		n = strings.TrimSpace(*niche)
		f.Check(nlp.CodePoints(n) <= critique.MaxNiche, "niche", "must be at most 100 characters")
	}
	if err := f.Err(); err != nil {
		return critique.Record{}, err
	}
	key := credits.KeyOf(p)
	id := ResultID(p.OrgID, OpCritique, key, 0)
	if c, err := s.Store.Critique(ctx, p.OrgID, id); !errors.Is(err, critique.ErrNotFound) {
		return c, err
	}
	img, err := s.EditImages.Check(ctx, p.OrgID, "imageUrl", u)
	if err != nil {
		return critique.Record{}, err
	}
	release, err := s.hold(ctx, "imageUrl", img.DecodeBytes+critiquePerPixel*int64(img.Width)*int64(img.Height))
	if err != nil {
		return critique.Record{}, err
	}
	defer release()
	if img, err = s.EditImages.Decode(ctx, p.OrgID, "imageUrl", img); err != nil {
		return critique.Record{}, err
	}
	rs, err := s.Credits.Reserve(ctx, credits.Request{OrgID: p.OrgID, Operation: OpCritique, Key: key,
		Items: []credits.Item{{Credits: 1, ResourceType: "critique", ResourceID: id}}})
	if err != nil {
		return critique.Record{}, err
	}
	r := rs[0]
	c := critique.Record{ID: id, OrgID: p.OrgID, ImageURL: u, Niche: n, Engine: localEngine, CreatedAt: s.now()}
	m, err := critique.Measure(ctx, img.Img, s.Faces.Detect(img.Img), s.OCR)
	if err != nil {
		s.refund(ctx, r, "the text of the picture could not be read")
		return c, err
	}
	if s.Critic == nil {
		c.Critique = critique.Judge(m, n)
	} else {
		c.Critique, c.Engine = s.Critic.Word(ctx, m, n)
	}
	completed, err := s.CompletedEvent(ctx, r)
	if err == nil {
		err = s.Store.SaveCritique(ctx, c, r, completed)
	}
	if err != nil {
		if errors.Is(err, credits.ErrSettled) {
			return c, errRefundedMeanwhile(err)
		}
		s.refund(ctx, r, "database: the critique could not be stored")
		return c, err
	}
	return c, nil
}
