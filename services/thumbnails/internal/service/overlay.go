package service

import (
	"context"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
	"hookline.dev/services/thumbnails/internal/analyze/overlay"
)

// TextOverlay suggests text for a picture: where (the calmest regions,
// clear of faces and away from text already there), in what colours, and
// what, from its prompt. Free.
func (s *Service) TextOverlay(ctx context.Context, p principal.Principal, imageURL, prompt, faceName *string) ([]overlay.Suggestion, error) {
	u, pr, name, err := overlay.Validate(imageURL, prompt, faceName)
	if err != nil {
		return nil, err
	}
	img, err := s.Images.Load(ctx, p.OrgID, "imageUrl", u)
	if err != nil {
		return nil, err
	}
	faces := s.Faces.Detect(img.Img)
	// The text already on the picture, as OCR reads it.
	text, err := critique.TextBoxes(ctx, s.OCR, img.Img)
	if err != nil {
		return nil, err
	}
	return overlay.Suggest(overlay.Input{Img: img.Img, Faces: faces, Text: text, Saliency: vision.Saliency(img.Img), Prompt: pr, FaceName: name}), nil
}
