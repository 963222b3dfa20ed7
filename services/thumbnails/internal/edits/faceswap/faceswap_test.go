package faceswap

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision"
)

// withLandmarks is a face in box with made-up landmarks: Largest only
// looks at boxes and at whether points are there.
func withLandmarks(box image.Rectangle) vision.Face {
	var l vision.Landmarks
	for i := range l {
		l[i] = box.Min.Add(image.Pt(i%box.Dx(), i%box.Dy()))
	}
	return vision.Face{Rect: box, Landmarks: &l}
}

func TestLargest(t *testing.T) {
	small := withLandmarks(image.Rect(0, 0, 40, 40))
	big := withLandmarks(image.Rect(100, 100, 180, 180))
	sameSize := withLandmarks(image.Rect(300, 0, 380, 80))
	boxOnly := vision.Face{Rect: image.Rect(0, 0, 400, 400)}
	if _, ok := Largest(nil); ok {
		t.Error("Largest(nil) reported a face")
	}
	if _, ok := Largest([]vision.Face{boxOnly}); ok {
		t.Error("a face without landmarks was chosen")
	}
	if got, _ := Largest([]vision.Face{small, boxOnly}); got.Rect != small.Rect {
		t.Errorf("one face with landmarks: got %v", got.Rect)
	}
	if got, _ := Largest([]vision.Face{small, big, boxOnly, sameSize}); got.Rect != big.Rect {
		t.Errorf("got %v, want the largest box with landmarks %v (the first of equal ones)", got.Rect, big.Rect)
	}
}

// scene is a swap on the evaluation photos: a target picture, a source
// picture, and the faces dlib finds in them.
type scene struct {
	target, source *image.NRGBA
	tFace, sFace   vision.Face
}

func newScene(t testing.TB, target, source *image.NRGBA) scene {
	t.Helper()
	return scene{target: target, source: source, tFace: detectOne(t, target), sFace: detectOne(t, source)}
}

// scenes are the swaps the landmark test checks. The real faces are the
// astronaut (frontal, smiling with her teeth showing, fringe over her
// forehead), the camera man (turned to the side, half hidden by his
// camera) and pigo's sample photo (frontal, mouth closed); the others
// are the astronaut mirrored, tilted by 8° and enlarged, and the face
// photo shrunk and tilted the other way, on a grey wall.
func scenes(t testing.TB) map[string]scene {
	t.Helper()
	astronaut, man, camera := evalPhoto(t, "astronaut.png"), photo(t), evalPhoto(t, "camera.png")
	grey := func(int, int) color.NRGBA { return color.NRGBA{90, 90, 95, 255} }
	tilted := compose(astronaut, 720, 640, placement{mirror: true, scale: 1.4, angle: 8 * math.Pi / 180, at: complex(360, 420)},
		[3]float64{1, 1, 1}, grey)
	small := compose(man, 640, 360, placement{scale: 0.6, angle: -8 * math.Pi / 180, at: complex(420, 180)},
		[3]float64{1, 1, 1}, grey)
	return map[string]scene{
		"astronaut ← face photo":        newScene(t, astronaut, man),
		"face photo ← astronaut":        newScene(t, man, astronaut),
		"tilted astronaut ← face photo": newScene(t, tilted, man),
		"small face photo ← astronaut":  newScene(t, small, astronaut),
		"camera man ← face photo":       newScene(t, camera, man),
	}
}

// The swapped face takes the target's pose: dlib, run again on the
// result, finds a face whose 68 landmarks lie where the target's were,
// within 6 % of the face width on average.
func TestSwapPutsTheSourceFaceOnTheTargetsLandmarks(t *testing.T) {
	for name, s := range scenes(t) {
		t.Run(name, func(t *testing.T) {
			got := swap(t, s.target, s.tFace, s.source, s.sFace)
			want := s.tFace.Landmarks
			found, ok := nearestFace(detector(t).Detect(got), want)
			if !ok {
				t.Fatal("no face with landmarks in the result")
			}
			mean, worst := landmarkError(found, want)
			t.Logf("landmarks off by %.1f %% of the face width on average, %.1f %% at most (face width %.0f px)",
				100*mean, 100*worst, want.FaceWidth())
			if mean > 0.06 {
				t.Errorf("mean landmark error %.1f %% of the face width, want at most 6 %%", 100*mean)
			}
			// The face changed: a swap that did nothing would pass the
			// landmark test too.
			if d := meanDifference(got, s.target, want.Bounds()); d < 8 {
				t.Errorf("the face changed by %.1f levels on average", d)
			}
		})
	}
}

// nearestFace returns the face of faces whose landmarks' centroid is
// nearest to want's.
func nearestFace(faces []vision.Face, want *vision.Landmarks) (*vision.Landmarks, bool) {
	wx, wy := want.Centroid(0, len(want))
	var best *vision.Landmarks
	bestD := math.Inf(1)
	for _, f := range faces {
		if f.Landmarks == nil {
			continue
		}
		x, y := f.Landmarks.Centroid(0, len(f.Landmarks))
		if d := math.Hypot(x-wx, y-wy); d < bestD {
			best, bestD = f.Landmarks, d
		}
	}
	return best, best != nil
}

// landmarkError is the mean and largest distance between corresponding
// points, over want's face width.
func landmarkError(got, want *vision.Landmarks) (mean, worst float64) {
	for i := range want {
		d := math.Hypot(float64(got[i].X-want[i].X), float64(got[i].Y-want[i].Y))
		mean += d
		worst = math.Max(worst, d)
	}
	w := want.FaceWidth()
	return mean / float64(len(want)) / w, worst / w
}

// meanDifference is the mean absolute difference of the colour
// components of a and b inside r.
func meanDifference(a, b *image.NRGBA, r image.Rectangle) float64 {
	r = r.Intersect(a.Rect).Intersect(b.Rect)
	var sum float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p, q := a.NRGBAAt(x, y), b.NRGBAAt(x, y)
			sum += math.Abs(float64(p.R)-float64(q.R)) + math.Abs(float64(p.G)-float64(q.G)) + math.Abs(float64(p.B)-float64(q.B))
		}
	}
	return sum / float64(3*r.Dx()*r.Dy())
}

// markerColour is painted on the source's nose bridge so that the
// swapped face can be found in the result: nothing in the photos is
// this green.
var markerColour = color.NRGBA{20, 200, 40, 255}

// markerPoint is the landmark the marker is centred on: the nose bridge
// between the eyes, well inside the replaced region.
const markerPoint = 28

// greenness measures how far a pixel is from anything in a face: the
// green channel over the larger of the other two.
func greenness(c color.NRGBA) int { return int(c.G) - int(max(c.R, c.B)) }

// marked returns a copy of img with a green disc of radius 4 % of f's face
// width on its nose bridge.
func marked(img *image.NRGBA, f vision.Face) *image.NRGBA {
	out := toNRGBA(img)
	c := centre(f.Landmarks[markerPoint])
	r := 0.04 * f.Landmarks.FaceWidth()
	for y := int(imag(c) - r); y <= int(imag(c)+r); y++ {
		for x := int(real(c) - r); x <= int(real(c)+r); x++ {
			if cmplxAbs(complex(float64(x)+0.5, float64(y)+0.5)-c) <= r {
				out.SetNRGBA(x, y, markerColour)
			}
		}
	}
	return out
}

// markerCentre returns the centroid of img's green pixels and their count.
func markerCentre(img *image.NRGBA) (centre complex128, n int) {
	var sx, sy int
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if greenness(img.NRGBAAt(x, y)) > 40 {
				n, sx, sy = n+1, sx+x, sy+y
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return complex(float64(sx)/float64(n)+0.5, float64(sy)/float64(n)+0.5), n
}

// The source's content lands where its landmarks say: a mark on the
// source's nose bridge ends on the target's, whatever the two faces'
// sizes, tilts and mirroring.
func TestSwapCarriesTheSourceOntoTheTargetsFeatures(t *testing.T) {
	for name, s := range scenes(t) {
		t.Run(name, func(t *testing.T) {
			for y := range s.target.Rect.Dy() {
				for x := range s.target.Rect.Dx() {
					if greenness(s.target.NRGBAAt(x, y)) > 40 {
						t.Fatalf("the target already has a green pixel at (%d,%d)", x, y)
					}
				}
			}
			got := swap(t, s.target, s.tFace, marked(s.source, s.sFace), s.sFace)
			at, n := markerCentre(got)
			if n == 0 {
				t.Fatal("no marker in the result")
			}
			fw := s.tFace.Landmarks.FaceWidth()
			want := centre(s.tFace.Landmarks[markerPoint])
			if d := cmplxAbs(at - want); d > 0.03*fw {
				t.Errorf("marker at %.1f, %.1f px from the target's nose bridge %.1f (face width %.0f)", at, d, want, fw)
			}
			// The disc keeps about its size relative to the face (the
			// camera man's profile squeezes it across).
			wantArea := math.Pi * (0.04 * fw) * (0.04 * fw)
			if float64(n) < wantArea/3 || float64(n) > 3*wantArea {
				t.Errorf("%d marker pixels, want about %.0f", n, wantArea)
			}
		})
	}
}

// Only the target's face changes: every changed pixel is inside the
// target face's hull, and most of the hull's inside changed.
func TestSwapLeavesEverythingOutsideTheFaceAlone(t *testing.T) {
	s := scenes(t)["astronaut ← face photo"]
	got := swap(t, s.target, s.tFace, s.source, s.sFace)
	hull := hullOf(s.tFace.Landmarks.Hull(maskForehead))
	changed, inside := 0, 0
	for y := range s.target.Rect.Dy() {
		for x := range s.target.Rect.Dx() {
			in := hull.holds(complex(float64(x)+0.5, float64(y)+0.5))
			if in {
				inside++
			}
			if got.NRGBAAt(x, y) == s.target.NRGBAAt(x, y) {
				continue
			}
			if !in {
				t.Fatalf("pixel (%d,%d) outside the face hull changed: %v → %v", x, y, s.target.NRGBAAt(x, y), got.NRGBAAt(x, y))
			}
			changed++
		}
	}
	if changed < inside/2 {
		t.Errorf("only %d of the hull's %d pixels changed", changed, inside)
	}
}

// The target's open mouth (the astronaut smiles with her teeth showing)
// stays hers: the face photo's closed lips are not stretched over it.
func TestSwapKeepsTheTargetsOpenMouth(t *testing.T) {
	s := scenes(t)["astronaut ← face photo"]
	if o := s.tFace.Landmarks.MouthOpening(); o < 0.03 {
		t.Fatalf("the astronaut's mouth opening is %.3f: not open", o)
	}
	got := swap(t, s.target, s.tFace, s.source, s.sFace)
	l := s.tFace.Landmarks
	mouth := hullOf(l[vision.InnerLipsStart:vision.InnerLipsEnd])
	fw := l.FaceWidth()
	// Pixels inside the inner lips, at least mouthFeather from their edge.
	kept, n := 0, 0
	for y := range got.Rect.Dy() {
		for x := range got.Rect.Dx() {
			z := complex(float64(x)+0.5, float64(y)+0.5)
			if !mouth.holds(z) || distanceToEdge(mouth, z) < mouthFeather*fw {
				continue
			}
			n++
			if got.NRGBAAt(x, y) == s.target.NRGBAAt(x, y) {
				kept++
			}
		}
	}
	if n == 0 || kept != n {
		t.Errorf("%d of %d pixels inside the open mouth kept", kept, n)
	}
}

// distanceToEdge is the distance from z to the nearest edge of p.
func distanceToEdge(p polygon, z complex128) float64 {
	best := math.Inf(1)
	for i, j := 0, len(p)-1; i < len(p); j, i = i, i+1 {
		a, b := p[j], p[i]
		ab := b - a
		k := 0.0
		if n := real(ab)*real(ab) + imag(ab)*imag(ab); n > 0 {
			k = math.Max(0, math.Min(1, (real(z-a)*real(ab)+imag(z-a)*imag(ab))/n))
		}
		best = math.Min(best, cmplxAbs(z-(a+complex(k, 0)*ab)))
	}
	return best
}

// The swapped face takes the target's colour statistics: its mean (which
// the gradient-domain blend alone would mostly fix) and its spread per
// Lab channel (which only the colour transfer fixes: the blend keeps the
// source's gradients). The source is tinted blue and washed out.
func TestSwapTransfersTheTargetsColour(t *testing.T) {
	target := photo(t)
	source := compose(photo(t), 360, 420, placement{mirror: true, scale: 0.85, at: complex(180, 210)},
		[3]float64{0.8, 0.95, 1.25}, func(int, int) color.NRGBA { return color.NRGBA{40, 40, 60, 255} })
	for i := range source.Pix {
		if i%4 != 3 {
			source.Pix[i] = uint8(0.5*float64(source.Pix[i]) + 100)
		}
	}
	tFace, sFace := detectOne(t, target), detectOne(t, source)
	got := swap(t, target, tFace, source, sFace)
	// The central part of each face: eyes, nose and mouth.
	inner := func(f vision.Face) image.Rectangle {
		r := f.Landmarks.Bounds()
		return r.Inset(r.Dx() / 4)
	}
	tMean, tStd := labStatsIn(target, inner(tFace))
	sMean, sStd := labStatsIn(source, inner(sFace))
	gMean, gStd := labStatsIn(got, inner(tFace))
	t.Logf("Lab mean/std: target %.1f/%.1f, source %.1f/%.1f, result %.1f/%.1f", tMean, tStd, sMean, sStd, gMean, gStd)
	if before, after := labDistance(sMean, tMean), labDistance(gMean, tMean); before < 10 || after > before/3 {
		t.Errorf("mean: the result's face is ΔE %.1f from the target's, the source's %.1f: want at most a third", after, before)
	}
	if before, after := labDistance(sStd, tStd), labDistance(gStd, tStd); before < 5 || after > before/3 {
		t.Errorf("spread: the result's face is %.1f from the target's, the source's %.1f: want at most a third", after, before)
	}
}

func TestSwapWithoutAFaceInTheImageReturnsTheTarget(t *testing.T) {
	s := scenes(t)["astronaut ← face photo"]
	outside := vision.Face{Rect: image.Rect(1000, 1000, 1100, 1100), Landmarks: s.tFace.Landmarks.Translate(image.Pt(1000, 1000))}
	got := swap(t, s.target, outside, s.source, s.sFace)
	if got.Rect != s.target.Rect || string(got.Pix) != string(s.target.Pix) {
		t.Fatal("the target changed although its face is outside it")
	}
}

func TestSwapNeedsLandmarks(t *testing.T) {
	s := scenes(t)["astronaut ← face photo"]
	boxOnly := vision.Face{Rect: s.tFace.Rect}
	if _, err := Swap(t.Context(), s.target, boxOnly, s.source, s.sFace); !errors.Is(err, ErrNoLandmarks) {
		t.Errorf("target face without landmarks: %v", err)
	}
	if _, err := Swap(t.Context(), s.target, s.tFace, s.source, vision.Face{Rect: s.sFace.Rect}); !errors.Is(err, ErrNoLandmarks) {
		t.Errorf("source face without landmarks: %v", err)
	}
}

// labStatsIn returns the mean and standard deviation of each Lab channel
// of img inside r.
func labStatsIn(img *image.NRGBA, r image.Rectangle) (mean, std [3]float64) {
	var sum, sq [3]float64
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			l, a, b := rgbToLab(float32(c.R), float32(c.G), float32(c.B))
			for k, v := range [3]float32{l, a, b} {
				sum[k] += float64(v)
				sq[k] += float64(v) * float64(v)
			}
			n++
		}
	}
	for k := range 3 {
		mean[k] = sum[k] / float64(n)
		std[k] = math.Sqrt(math.Max(0, sq[k]/float64(n)-mean[k]*mean[k]))
	}
	return mean, std
}

func labDistance(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// benchScene is a 1280×720 target with a face about 200 px wide (the
// astronaut enlarged 2.2× into a grey frame) and pigo's face photo as
// the source.
func benchScene(b testing.TB) scene {
	astronaut := evalPhoto(b, "astronaut.png")
	target := compose(astronaut, 1280, 720, placement{scale: 2.2, at: complex(760, 560)}, [3]float64{1, 1, 1},
		func(x, y int) color.NRGBA {
			return color.NRGBA{uint8(200 - y/8), uint8(190 - y/8), uint8(170 - x/16), 255}
		})
	return newScene(b, target, photo(b))
}

// A swap whose context has ended stops with its error instead of
// solving a face that may span the whole picture.
func TestSwapStopsWithItsContext(t *testing.T) {
	s := benchScene(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if out, err := Swap(ctx, s.target, s.tFace, s.source, s.sFace); !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("got %v, %v; want context.Canceled", out != nil, err)
	}
}

// BenchmarkSwap swaps a face about 200 px wide in a 1280×720 picture
// (the faces are detected once, outside the loop).
func BenchmarkSwap(b *testing.B) {
	s := benchScene(b)
	b.Logf("target face %v, width %.0f px", s.tFace.Rect, s.tFace.Landmarks.FaceWidth())
	for b.Loop() {
		swap(b, s.target, s.tFace, s.source, s.sFace)
	}
}

// Pictures need not start at the origin, and a face cut by the frame is
// aligned by all its landmarks and swapped up to the frame: the result is
// in target's own frame, moved to the origin, only the face changes, up
// to the frame, and the marker lands on the nose bridge as it does in
// the full picture.
func TestSwapAtTheEdgeOfAnOffsetPicture(t *testing.T) {
	s := scenes(t)["face photo ← astronaut"]
	l := s.tFace.Landmarks
	// Cut the frame through the face's middle, left of the nose.
	cut := image.Rect(l[31].X-4, 40, s.target.Rect.Max.X, s.target.Rect.Max.Y-20)
	target := s.target.SubImage(cut).(*image.NRGBA)
	src := marked(s.source, s.sFace)
	srcView := src.SubImage(image.Rect(20, 10, 500, 500)).(*image.NRGBA)
	got := swap(t, target, s.tFace, srcView, s.sFace)
	if got.Rect != image.Rect(0, 0, cut.Dx(), cut.Dy()) {
		t.Fatalf("result bounds %v", got.Rect)
	}
	hull := hullOf(l.Translate(cut.Min.Mul(-1)).Hull(maskForehead))
	changedAtEdge := 0
	for y := range got.Rect.Dy() {
		for x := range got.Rect.Dx() {
			if got.NRGBAAt(x, y) == target.NRGBAAt(x+cut.Min.X, y+cut.Min.Y) {
				continue
			}
			if !hull.holds(complex(float64(x)+0.5, float64(y)+0.5)) {
				t.Fatalf("pixel (%d,%d) outside the face changed", x, y)
			}
			// The edge column itself is the blend's fixed boundary.
			if x == 1 {
				changedAtEdge++
			}
		}
	}
	if changedAtEdge < int(0.3*l.FaceWidth()) {
		t.Errorf("only %d pixels changed along the frame's edge through the face", changedAtEdge)
	}
	at, n := markerCentre(got)
	if n == 0 {
		t.Fatal("no marker in the result")
	}
	want := centre(l[markerPoint].Sub(cut.Min))
	if d := cmplxAbs(at - want); d > 0.03*l.FaceWidth() {
		t.Errorf("marker at %.1f, %.1f px from the nose bridge %.1f", at, d, want)
	}
}
