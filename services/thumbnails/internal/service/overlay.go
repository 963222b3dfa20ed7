package service

import (
	"context"
	"image"

	"hookline.dev/pkg/principal"
	"hookline.dev/pkg/vision"
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
	return overlay.Suggest(overlay.Input{Img: img.Img, Faces: faces, Text: textBoxes(img.Img, faces), Saliency: vision.Saliency(img.Img), Prompt: pr, FaceName: name}), nil
}

// textBoxes are the boxes of the text already on img: the critique's text
// detector, the one measurement of written text the service has.
func textBoxes(img image.Image, faces []vision.Face) []image.Rectangle {
	var out []image.Rectangle
	for _, t := range critique.Measure(img, faces).Text {
		out = append(out, t.Rect.Add(img.Bounds().Min))
	}
	return out
}
