package critique

import (
	"image"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib/dlibtest"
	"hookline.dev/pkg/testkit"
)

// dlibFace returns the one face dlib finds in img, with its landmarks.
func dlibFace(t *testing.T, img image.Image) vision.Face {
	t.Helper()
	fs := dlibtest.Model(t).Detect(img)
	if len(fs) != 1 || fs[0].Landmarks == nil {
		t.Fatalf("%d faces", len(fs))
	}
	return fs[0]
}

// moved returns a copy of l with the points idx moved by (dx, dy) face
// widths.
func moved(l *vision.Landmarks, dx, dy float64, idx ...int) *vision.Landmarks {
	out := *l
	w := l.FaceWidth()
	for _, i := range idx {
		out[i] = out[i].Add(image.Pt(int(dx*w), int(dy*w)))
	}
	return &out
}

var (
	lowerLip = []int{55, 56, 57, 58, 59, 65, 66, 67} // outer and inner, below the mouth's corners
	brows    = []int{17, 18, 19, 20, 21, 22, 23, 24, 25, 26}
)

// The real faces: the astronaut's broad smile with her teeth showing is
// expressive, the face photo's closed, relaxed mouth is not; and on the
// face photo's real points, opening the mouth (the lower lip moved down)
// or raising the brows makes it expressive, more so together.
func TestExpressivenessFromLandmarks(t *testing.T) {
	astronaut := measureExpression(dlibFace(t, testkit.EvalPhoto(t, "astronaut.png")).Landmarks)
	neutral := dlibFace(t, facePhoto(t)).Landmarks
	t.Logf("astronaut %+v → %.2f; face photo %+v → %.2f", *astronaut, expressiveness(astronaut),
		*measureExpression(neutral), expressiveness(measureExpression(neutral)))
	if e := expressiveness(astronaut); e < 0.6 {
		t.Errorf("the astronaut's smile: expressiveness %.2f", e)
	}
	if e := expressiveness(measureExpression(neutral)); e > 0.1 {
		t.Errorf("the face photo's neutral face: expressiveness %.2f", e)
	}
	open := moved(neutral, 0, 0.08, lowerLip...)
	raised := moved(neutral, 0, -0.06, brows...)
	both := moved(open, 0, -0.06, brows...)
	e := func(l *vision.Landmarks) float64 { return expressiveness(measureExpression(l)) }
	if got := measureExpression(open).MouthOpening; got < 0.07 {
		t.Fatalf("the opened mouth measures %.3f", got)
	}
	if !(e(open) > 0.4 && e(raised) > 0.4 && e(both) > e(open) && e(both) > e(raised)) {
		t.Errorf("expressiveness: open mouth %.2f, raised brows %.2f, both %.2f", e(open), e(raised), e(both))
	}
	if expressiveness(nil) != 0 || eyesOpen(nil) != 1 {
		t.Error("a face without landmarks has an expression")
	}
}

// On the same picture, the critique's emotional impact rises with the
// face's expression: the astronaut with her smile taken away (mouth shut
// and narrowed) scores below her real smile, which scores below the same
// smile with the mouth opened wider and the brows raised. Every other
// measure of the picture is the same.
func TestEmotionalImpactRisesWithExpression(t *testing.T) {
	img := testkit.EvalPhoto(t, "astronaut.png")
	face := dlibFace(t, img)
	l := face.Landmarks
	shut := *l
	for _, p := range [][2]int{{61, 67}, {62, 66}, {63, 65}} {
		mid := l[p[0]].Add(l[p[1]]).Div(2)
		shut[p[0]], shut[p[1]] = mid, mid
	}
	narrowed := moved(&shut, 0.05, 0, 48, 49, 59, 60)
	narrowed = moved(narrowed, -0.05, 0, 54, 53, 55, 64)
	wide := moved(moved(l, 0, 0.06, lowerLip...), 0, -0.06, brows...)
	rate := func(lm *vision.Landmarks) Scores {
		f := face
		f.Landmarks = lm
		return Rate(measure(t, img, []vision.Face{f}))
	}
	flat, real, more := rate(narrowed), rate(l), rate(wide)
	t.Logf("emotional impact: no smile %.1f, her smile %.1f, wider %.1f", flat.EmotionalImpact, real.EmotionalImpact, more.EmotionalImpact)
	if !(flat.EmotionalImpact < real.EmotionalImpact && real.EmotionalImpact < more.EmotionalImpact) {
		t.Errorf("emotional impact: no smile %.1f, her smile %.1f, wider %.1f", flat.EmotionalImpact, real.EmotionalImpact, more.EmotionalImpact)
	}
	if flat.Contrast != real.Contrast || flat.ColorAppeal != real.ColorAppeal {
		t.Error("the picture's other scores moved with the landmarks")
	}
}

// Closed eyes lower face visibility: the astronaut's upper lids moved
// onto the lower ones.
func TestFaceVisibilityFallsWithClosedEyes(t *testing.T) {
	img := testkit.EvalPhoto(t, "astronaut.png")
	face := dlibFace(t, img)
	closed := *face.Landmarks
	for _, p := range [][2]int{{37, 41}, {38, 40}, {43, 47}, {44, 46}} {
		closed[p[0]] = closed[p[1]]
	}
	shut := face
	shut.Landmarks = &closed
	open, eyesShut := measure(t, img, []vision.Face{face}), measure(t, img, []vision.Face{shut})
	if o := eyesOpen(open.Face.Expression); o < 0.9 {
		t.Errorf("the astronaut's eyes are %.2f open", o)
	}
	if a, b := Rate(open).FaceVisibility, Rate(eyesShut).FaceVisibility; b >= a {
		t.Errorf("face visibility: eyes open %.1f, shut %.1f", a, b)
	}
}
