package faceswap

import (
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"

	"hookline.dev/pkg/vision"
)

func TestLargest(t *testing.T) {
	small := vision.Face{Rect: image.Rect(0, 0, 40, 40), Score: 90}
	big := vision.Face{Rect: image.Rect(100, 100, 180, 180), Score: 10}
	sameSize := vision.Face{Rect: image.Rect(300, 0, 380, 80), Score: 5}
	if _, ok := Largest(nil); ok {
		t.Error("Largest(nil) reported a face")
	}
	if got, _ := Largest([]vision.Face{small}); got != small {
		t.Errorf("one face: got %v", got)
	}
	if got, _ := Largest([]vision.Face{small, big, sameSize}); got != big {
		t.Errorf("got %v, want the largest box %v (the first of equal ones)", got, big)
	}
}

// markerColour is painted on the source's forehead so that the swapped
// face can be found in the result: nothing in the face photo is green.
var markerColour = color.NRGBA{20, 200, 40, 255}

// markerRect is the marker on the face photo, centred on the forehead
// between the eyes, inside the replaced ellipse.
var markerRect = image.Rect(152, 133, 166, 147)

// greenness measures how far a pixel is from anything in a face: the
// green channel over the larger of the other two.
func greenness(c color.NRGBA) int { return int(c.G) - int(max(c.R, c.B)) }

// markedPhoto is the face photo with the marker on its forehead.
func markedPhoto(t testing.TB) *image.NRGBA {
	p := photo(t)
	draw.Draw(p, markerRect, image.NewUniform(markerColour), image.Point{}, draw.Src)
	return p
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

// swapScene is the swap the tests look at: the face photo as the target,
// and as the source the same photo with a green mark on the forehead,
// mirrored, scaled to 0.7, tilted by 7° and tinted blue, on a dark
// gradient, so that alignment, colour transfer and blending each have
// work to do.
func swapScene(t testing.TB) (target, source *image.NRGBA, tFace, sFace vision.Face) {
	t.Helper()
	target = photo(t)
	source = compose(markedPhoto(t), 400, 360, placement{mirror: true, scale: 0.7, angle: 0.12, at: complex(210, 170)},
		[3]float64{0.8, 0.95, 1.25},
		func(_, y int) color.NRGBA { return color.NRGBA{30, uint8(60 + y/6), 90, 255} })
	return target, source, detectOne(t, target), detectOne(t, source)
}

func TestSwapPutsTheSourceFaceInTheTargetBox(t *testing.T) {
	target, source, tFace, sFace := swapScene(t)
	got := swap(t, target, tFace, source, sFace)
	if got.Rect != target.Rect {
		t.Fatalf("result bounds %v, want %v", got.Rect, target.Rect)
	}

	// The marker from the source's forehead is in the result, where the
	// target's forehead is: the mirror and tilt were undone by the eyes.
	var n, sx, sy int
	for y := range got.Rect.Dy() {
		for x := range got.Rect.Dx() {
			if greenness(target.NRGBAAt(x, y)) > 40 {
				t.Fatalf("the target already has a green pixel at (%d,%d)", x, y)
			}
			if greenness(got.NRGBAAt(x, y)) > 40 {
				n, sx, sy = n+1, sx+x, sy+y
			}
		}
	}
	area := markerRect.Dx() * markerRect.Dy()
	if n < area/2 || n > 2*area {
		t.Fatalf("%d marker pixels in the result, want about %d", n, area)
	}
	centre := image.Pt(sx/n, sy/n)
	want := image.Pt((markerRect.Min.X+markerRect.Max.X)/2, (markerRect.Min.Y+markerRect.Max.Y)/2)
	if !centre.In(tFace.Rect) {
		t.Errorf("marker at %v, outside the target face %v", centre, tFace.Rect)
	}
	if d := math.Hypot(float64(centre.X-want.X), float64(centre.Y-want.Y)); d > 0.03*float64(tFace.Rect.Dx()) {
		t.Errorf("marker at %v, %.1f px from the target's forehead %v", centre, d, want)
	}

	// The result still shows a face where the target's was.
	d, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	best := 0.0
	for _, f := range d.Detect(got) {
		best = math.Max(best, iou(f.Rect, tFace.Rect))
	}
	if best < 0.5 {
		t.Errorf("best IoU of a face in the result with the target face = %.2f, want ≥ 0.5", best)
	}
}

// A face a fifth the size of the source's, in a tilted target: the large
// source is shrunk before sampling, and the marker still lands on the
// target's forehead.
func TestSwapOntoASmallTiltedFace(t *testing.T) {
	place := placement{scale: 0.4, angle: -0.12, at: complex(150, 130)}
	target := compose(photo(t), 300, 260, place, [3]float64{1.1, 0.9, 0.75},
		func(x, _ int) color.NRGBA { return color.NRGBA{70, 80, uint8(110 + x/4), 255} })
	source := compose(markedPhoto(t), 660, 820, placement{scale: 2, at: complex(330, 410)}, [3]float64{1, 1, 1},
		func(int, int) color.NRGBA { return color.NRGBA{250, 250, 250, 255} })
	tFace, sFace := detectOne(t, target), detectOne(t, source)
	if ratio := float64(sFace.Rect.Dx()) / float64(tFace.Rect.Dx()); ratio < 4 {
		t.Fatalf("source face only %.1f× the target's", ratio)
	}
	got := swap(t, target, tFace, source, sFace)
	centre, n := markerCentre(got)
	if n == 0 {
		t.Fatal("no marker in the result")
	}
	marker := (complex(float64(markerRect.Min.X), float64(markerRect.Min.Y)) + complex(float64(markerRect.Max.X), float64(markerRect.Max.Y))) / 2
	want := place.toScene(320, 400)(marker)
	if d := cmplxAbs(centre - want); d > 0.04*float64(tFace.Rect.Dx()) {
		t.Errorf("marker at %.1f, %.1f px from the target's forehead at %.1f (face %v)", centre, d, want, tFace.Rect)
	}
}

func TestSwapLeavesEverythingOutsideTheMaskAlone(t *testing.T) {
	target, source, tFace, sFace := swapScene(t)
	got := swap(t, target, tFace, source, sFace)
	m := faceMask(tFace.Rect, target.Rect, nil)
	// The mask must be the face, not the picture, for this to mean much.
	if a, box := area(m.rect), area(tFace.Rect); a > 3*box/2 {
		t.Fatalf("mask bounds %v cover %d px, the face box only %d", m.rect, a, box)
	}
	changedInside := 0
	for y := range target.Rect.Dy() {
		for x := range target.Rect.Dx() {
			p := image.Pt(x, y)
			inside := p.In(m.rect) && m.weight[(y-m.rect.Min.Y)*m.rect.Dx()+x-m.rect.Min.X] > 0
			same := got.NRGBAAt(x, y) == target.NRGBAAt(x, y)
			switch {
			case !inside && !same:
				t.Fatalf("pixel %v outside the mask changed: %v → %v", p, target.NRGBAAt(x, y), got.NRGBAAt(x, y))
			case inside && !same:
				changedInside++
			}
		}
	}
	if changedInside < area(tFace.Rect)/3 {
		t.Errorf("only %d pixels of the face changed", changedInside)
	}
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
	// The central part of each face box: skin, eyes, nose and mouth.
	inner := func(r image.Rectangle) image.Rectangle { return r.Inset(r.Dx() / 4) }
	tMean, tStd := labStatsIn(target, inner(tFace.Rect))
	sMean, sStd := labStatsIn(source, inner(sFace.Rect))
	gMean, gStd := labStatsIn(got, inner(tFace.Rect))
	t.Logf("Lab mean/std: target %.1f/%.1f, source %.1f/%.1f, result %.1f/%.1f", tMean, tStd, sMean, sStd, gMean, gStd)
	if before, after := labDistance(sMean, tMean), labDistance(gMean, tMean); before < 10 || after > before/3 {
		t.Errorf("mean: the result's face is ΔE %.1f from the target's, the source's %.1f: want at most a third", after, before)
	}
	if before, after := labDistance(sStd, tStd), labDistance(gStd, tStd); before < 5 || after > before/3 {
		t.Errorf("spread: the result's face is %.1f from the target's, the source's %.1f: want at most a third", after, before)
	}
}

func TestSwapWithoutAFaceInTheImageReturnsTheTarget(t *testing.T) {
	target, source, _, sFace := swapScene(t)
	outside := vision.Face{Rect: image.Rect(1000, 1000, 1100, 1100)}
	got := swap(t, target, outside, source, sFace)
	for i := range got.Pix {
		if got.Pix[i] != target.Pix[i] {
			t.Fatal("the target changed although its face box is outside it")
		}
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

func iou(a, b image.Rectangle) float64 {
	in := area(a.Intersect(b))
	return float64(in) / float64(area(a)+area(b)-in)
}

// benchScene is a 1280×720 target with a face of about 250 px (the face
// photo enlarged into a studio backdrop) and the mirrored, tinted photo
// as the source.
func benchScene(b testing.TB) (target, source *image.NRGBA, tFace, sFace vision.Face) {
	p := photo(b)
	target = compose(p, 1280, 720, placement{scale: 1.1, at: complex(820, 380)}, [3]float64{1, 1, 1},
		func(x, y int) color.NRGBA {
			return color.NRGBA{uint8(200 - y/8), uint8(190 - y/8), uint8(170 - x/16), 255}
		})
	source = compose(p, 320, 400, placement{mirror: true, scale: 1, at: complex(160, 200)}, [3]float64{1.1, 0.95, 0.85},
		func(int, int) color.NRGBA { return color.NRGBA{255, 255, 255, 255} })
	return target, source, detectOne(b, target), detectOne(b, source)
}

// A swap whose context has ended stops with its error instead of
// feathering and solving a face that may span the whole picture.
func TestSwapStopsWithItsContext(t *testing.T) {
	target, source, tFace, sFace := benchScene(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if out, err := Swap(ctx, target, tFace, source, sFace); !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("got %v, %v; want context.Canceled", out != nil, err)
	}
}

func BenchmarkSwap(b *testing.B) {
	target, source, tFace, sFace := benchScene(b)
	b.Logf("target face %v", tFace.Rect)
	for b.Loop() {
		swap(b, target, tFace, source, sFace)
	}
}

// Pictures need not start at the origin, and a face cut by the frame is
// aligned as the whole face and swapped up to the frame: the result is in
// target's own frame, moved to the origin, only the clipped mask changes,
// and the marker lands on the forehead as it does in the full picture.
func TestSwapAtTheEdgeOfAnOffsetPicture(t *testing.T) {
	full, source, tFace, sFace := swapScene(t)
	target := full.SubImage(image.Rect(100, 40, 320, 400)).(*image.NRGBA)
	srcView := source.SubImage(image.Rect(20, 10, 400, 360)).(*image.NRGBA)
	got := swap(t, target, tFace, srcView, sFace)
	if got.Rect != image.Rect(0, 0, 220, 360) {
		t.Fatalf("result bounds %v", got.Rect)
	}
	box := fullBox(tFace.Rect, target.Rect).Sub(target.Rect.Min)
	if want := tFace.Rect.Sub(target.Rect.Min); box != want {
		t.Fatalf("the cut face's box is restored as %v, want %v", box, want)
	}
	m := faceMask(box, got.Rect, nil)
	changed, n, sx, sy := 0, 0, 0, 0
	for y := range got.Rect.Dy() {
		for x := range got.Rect.Dx() {
			want := target.NRGBAAt(x+100, y+40)
			if got.NRGBAAt(x, y) == want {
				continue
			}
			p := image.Pt(x, y)
			if !p.In(m.rect) || m.weight[(y-m.rect.Min.Y)*m.rect.Dx()+x-m.rect.Min.X] == 0 {
				t.Fatalf("pixel %v outside the mask changed", p)
			}
			changed++
			if greenness(got.NRGBAAt(x, y)) > 40 {
				n, sx, sy = n+1, sx+x, sy+y
			}
		}
	}
	if changed < area(box)/4 {
		t.Errorf("only %d pixels of the clipped face changed", changed)
	}
	want := image.Pt((markerRect.Min.X+markerRect.Max.X)/2-100, (markerRect.Min.Y+markerRect.Max.Y)/2-40)
	if n == 0 {
		t.Fatal("no marker in the result")
	}
	if d := math.Hypot(float64(sx/n-want.X), float64(sy/n-want.Y)); d > 0.03*float64(box.Dx()) {
		t.Errorf("marker at (%d,%d), %.1f px from the forehead %v", sx/n, sy/n, d, want)
	}
}
