package critique

import (
	"math"

	"hookline.dev/pkg/media/imaging"
)

// Reference points of the scores: the measured value at which a term
// reaches its best. The package documentation gives every formula.
const (
	// goodContrast is a punchy thumbnail's RMS contrast.
	goodContrast = 0.25
	// goodColourfulness is between Hasler and Süsstrunk's "highly" (59)
	// and "extremely" (82) colourful.
	goodColourfulness = 70
	// goodSaturation is a vivid picture's mean HSV saturation.
	goodSaturation = 0.6
	// goodWarmth is the warm share at which warmth adds all it can.
	goodWarmth = 0.35
	// visibleFace and closeFace are the face-box shares of the frame at
	// which a face is fully visible, and a close-up.
	visibleFace = 0.06
	closeFace   = 0.15
	// goodEyeContrast is the eye band's luma deviation of open, lit eyes.
	goodEyeContrast = 0.10
	// goodTextHeight is the height, in pixels at mobile size, of text
	// that reads on a phone (about 60 px at 720p): the wording asks for
	// it when text is lost.
	goodTextHeight = 8
	// noTextScore is the text readability of a picture where no text is
	// read: nothing is hard to read, but nothing tells the viewer what
	// the video is, so it is low, and text that mostly vanishes at
	// mobile size scores below it.
	noTextScore = 3.0
	// emptyEdges, busyEdges and clutteredSpan shape simplicity: below
	// emptyEdges of edge pixels the frame is empty, up to busyEdges it
	// is simple, and it falls to 0 over clutteredSpan more.
	emptyEdges    = 0.02
	busyEdges     = 0.10
	clutteredSpan = 0.25
)

// Score weights: clickability mixes the base scores; overall mixes all
// seven. Each set sums to 1.
const (
	clickContrast, clickColour, clickFace, clickText, clickComposition = 0.25, 0.20, 0.25, 0.20, 0.10

	overallContrast, overallComposition, overallText, overallFace = 0.15, 0.15, 0.15, 0.15
	overallColour, overallClick, overallEmotion                   = 0.10, 0.20, 0.10
)

// Rate turns metrics into the seven scores (0–10, one decimal).
func Rate(m Metrics) Scores {
	s := Scores{
		Contrast:        tenth(10 * contrastTerm(m)),
		Composition:     tenth(10 * (0.6*m.Thirds + 0.4*simplicity(m.EdgeDensity))),
		TextReadability: tenth(textReadability(m.Reading)),
		FaceVisibility:  tenth(10 * faceVisibility(m)),
		ColorAppeal:     tenth(10 * (0.8*imaging.Clamp01(m.Colourfulness/goodColourfulness) + 0.2*exposure(m.Brightness))),
	}
	// Clickability mixes the published base scores, so a reader can
	// recompute it from the response.
	s.Clickability = tenth(clickContrast*s.Contrast + clickColour*s.ColorAppeal + clickFace*s.FaceVisibility +
		clickText*s.TextReadability + clickComposition*s.Composition)
	// The expression counts as much as the face is close: a laugh a
	// thumb's width across carries little.
	s.EmotionalImpact = tenth(10 * (0.30*closeUp(m) + 0.20*closeUp(m)*expressiveness(m.Face.Expression) +
		0.20*imaging.Clamp01(m.Saturation/goodSaturation) + 0.10*imaging.Clamp01(m.Warmth/goodWarmth) +
		0.20*contrastTerm(m)))
	return s
}

// Overall is the weighted mean of the seven scores, one decimal.
func Overall(s Scores) float64 {
	return tenth(overallContrast*s.Contrast + overallComposition*s.Composition + overallText*s.TextReadability +
		overallFace*s.FaceVisibility + overallColour*s.ColorAppeal + overallClick*s.Clickability +
		overallEmotion*s.EmotionalImpact)
}

// tenth rounds v to one decimal, halves away from zero.
func tenth(v float64) float64 { return math.Round(v*10) / 10 }

func contrastTerm(m Metrics) float64 { return imaging.Clamp01(m.Contrast / goodContrast) }

// exposure is 1 for a mean luma within 0.25..0.75, falling to 0 at black
// or white.
func exposure(brightness float64) float64 {
	return 1 - imaging.Clamp01((math.Abs(brightness-0.5)-0.25)/0.25)
}

// simplicity rewards a few large elements: 0 for an empty frame, 1 for an
// edge density within emptyEdges..busyEdges, falling to 0 as it clutters.
func simplicity(edges float64) float64 {
	switch {
	case edges < emptyEdges:
		return edges / emptyEdges
	case edges <= busyEdges:
		return 1
	default:
		return imaging.Clamp01(1 - (edges-busyEdges)/clutteredSpan)
	}
}

// textReadability is the share of the text read at full size that is read
// again at mobile size, times 10; noTextScore when no text is read.
func textReadability(r Reading) float64 {
	if len(r.Words) == 0 {
		return noTextScore
	}
	return 10 * r.Survived
}

// faceVisibility (0..1) of the largest face: size, position and eyes
// (lit, by the eye band's contrast, and open, by the landmarks).
func faceVisibility(m Metrics) float64 {
	if m.Faces == 0 {
		return 0
	}
	f := m.Face
	size := imaging.Clamp01(math.Sqrt(f.Share / visibleFace))
	position := 1 - imaging.Clamp01(3*(f.Height-2.0/3))
	if f.CutOff {
		position /= 2
	}
	eyes := imaging.Clamp01(f.EyeContrast/goodEyeContrast) * eyesOpen(f.Expression)
	return 0.45*size + 0.30*position + 0.25*eyes
}

// closeUp (0..1) is how close the largest face is: 0 without a face.
func closeUp(m Metrics) float64 {
	if m.Faces == 0 {
		return 0
	}
	return imaging.Clamp01(math.Sqrt(m.Face.Share / closeFace))
}
