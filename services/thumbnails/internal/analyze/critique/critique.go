package critique

import (
	"context"
	"errors"
	"image"
	"time"

	"hookline.dev/pkg/media/vision"
)

// MaxNiche is the longest niche accepted, in code points.
const MaxNiche = 100

// ErrNotFound: no critique of that id in the organization.
var ErrNotFound = errors.New("critique: not found")

// Scores are the seven 0–10 scores of a critique, each with one decimal.
type Scores struct {
	Contrast        float64
	Composition     float64
	TextReadability float64
	FaceVisibility  float64
	ColorAppeal     float64
	Clickability    float64
	EmotionalImpact float64
}

// Area is a place the eye goes to, in source pixels: a circle of Radius
// around (X, Y), Intensity 0..1, and a Label saying what is there ("face",
// "text", "bright region", "dark region", "colour accent" or "subject").
type Area struct {
	X         float64
	Y         float64
	Radius    float64
	Intensity float64
	Label     string
}

// Critique is what the API's critique object says of the picture (the
// service adds its id, cost and engine). Its slices are never nil, so they
// answer [] not null.
type Critique struct {
	OverallScore   float64
	Scores         Scores
	Strengths      []string
	Weaknesses     []string
	Improvements   []string
	AttentionAreas []Area
	Summary        string
	// Text is what the critique read in the picture, quoted in its
	// wording.
	Text Reading
}

// Record is a critique as the service keeps it: a critique is paid for, so
// a retried request answers the stored one instead of measuring again.
type Record struct {
	ID       string
	OrgID    string
	ImageURL string
	// Niche is the request's niche, trimmed ("" when none was given).
	Niche string
	// Engine names what wrote the critique ("local" for this package).
	Engine    string
	Critique  Critique
	CreatedAt time.Time
}

// Analyze critiques img (at its source size) for niche ("" for none):
// it measures the picture, scores the measurements and words the result.
// faces are the faces found in img, in img's coordinates; r reads its
// text. The same input always gives the same critique. Errors: those of
// r.
func Analyze(ctx context.Context, img image.Image, faces []vision.Face, r Reader, niche string) (Critique, error) {
	m, err := Measure(ctx, img, faces, r)
	if err != nil {
		return Critique{}, err
	}
	return Judge(m, niche), nil
}

// Judge is the critique of measured metrics for a niche.
func Judge(m Metrics, niche string) Critique {
	s := Rate(m)
	w := write(m, s, profileOf(niche))
	return Critique{
		OverallScore:   Overall(s),
		Scores:         s,
		Strengths:      w.strengths,
		Weaknesses:     w.weaknesses,
		Improvements:   w.improvements,
		AttentionAreas: append([]Area{}, m.Attention...),
		Summary:        w.summary,
		Text:           m.Reading,
	}
}
