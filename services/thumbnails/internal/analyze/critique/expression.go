package critique

import (
	"image"
	"math"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
)

// Expression is what a face's 68 landmarks say about how it looks: the
// measures of vision.Landmarks (each over the face width) and the eyes'
// openness. A thumbnail's face sells its video by its expression: a
// laugh, raised brows, a wide smile read from across a feed; a blank face
// does not.
type Expression struct {
	// MouthOpening, BrowRaise and SmileWidth are vision.Landmarks'.
	MouthOpening, BrowRaise, SmileWidth float64
	// EyeOpening is the eyes' mean aspect ratio (lid to lid over corner
	// to corner, Soukupová and Čech's EAR): about 0.3 open, below 0.15
	// closed.
	EyeOpening float64
}

// Reference points of the expression, measured on the evaluation photos
// with dlib's landmarks: a neutral face (pigo's sample) has a mouth
// opening of 0.00, brows 0.12 above the eyes and a mouth 0.38 wide; the
// astronaut's broad smile 0.08, 0.13 and 0.48.
const (
	// restMouth and openMouth: the inner lips' gap at which a mouth
	// starts to read as open, and the span over which it becomes fully
	// open (speech, a laugh).
	restMouth, openMouth = 0.02, 0.10
	// restBrow and raisedBrow: the brows' height at rest (a little above
	// the neutral face's) and the span to surprise.
	restBrow, raisedBrow = 0.13, 0.08
	// restSmile and wideSmile: the mouth's width at rest and the span to a
	// broad smile.
	restSmile, wideSmile = 0.40, 0.12
	// closedEyes and openEyes: the eye aspect ratio below which eyes read
	// as shut, and the span to fully open.
	closedEyes, openEyes = 0.10, 0.10
)

// expressionOf returns the expression of the largest of faces (by its box
// inside bounds, the face Measure describes; the first of equal ones), or
// nil when that face has no landmarks.
func expressionOf(faces []vision.Face, bounds image.Rectangle) *Expression {
	var best *vision.Face
	for i := range faces {
		if r := faces[i].Rect.Intersect(bounds); !r.Empty() && (best == nil || area(r) > area(best.Rect.Intersect(bounds))) {
			best = &faces[i]
		}
	}
	if best == nil || best.Landmarks == nil {
		return nil
	}
	return measureExpression(best.Landmarks)
}

// measureExpression reads the expression off landmarks l.
func measureExpression(l *vision.Landmarks) *Expression {
	return &Expression{
		MouthOpening: l.MouthOpening(),
		BrowRaise:    l.BrowRaise(),
		SmileWidth:   l.SmileWidth(),
		EyeOpening:   (eyeAspect(l, vision.RightEyeStart) + eyeAspect(l, vision.LeftEyeStart)) / 2,
	}
}

// eyeAspect is the aspect ratio of the eye whose six points start at
// first: the two lid-to-lid distances over twice the corner-to-corner.
func eyeAspect(l *vision.Landmarks, first int) float64 {
	d := func(i, j int) float64 {
		a, b := l[first+i], l[first+j]
		return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y))
	}
	if w := d(0, 3); w > 0 {
		return (d(1, 5) + d(2, 4)) / (2 * w)
	}
	return 0
}

// expressiveness (0..1) is how strongly the face expresses something: an
// open mouth, raised brows or a wide smile, each 0 at rest and 1 at its
// reference, combined so that any one of them alone can make a face
// expressive and together they add up without passing 1. 0 without
// landmarks.
func expressiveness(e *Expression) float64 {
	if e == nil {
		return 0
	}
	mouth := imaging.Clamp01((e.MouthOpening - restMouth) / openMouth)
	brows := imaging.Clamp01((e.BrowRaise - restBrow) / raisedBrow)
	smile := imaging.Clamp01((e.SmileWidth - restSmile) / wideSmile)
	return 1 - (1-mouth)*(1-brows)*(1-smile)
}

// eyesOpen (0..1) is how open the eyes are; 1 without landmarks, where
// the eye band's contrast alone judges them.
func eyesOpen(e *Expression) float64 {
	if e == nil {
		return 1
	}
	return imaging.Clamp01((e.EyeOpening - closedEyes) / openEyes)
}
