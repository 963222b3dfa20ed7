package faceswap

import (
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

// swapScene is the swap the tests look at: the face photo as the target,
// and as the source the same photo with a green mark on the forehead,
// mirrored, scaled to 0.7, tilted by 7° and tinted blue, on a dark
// gradient, so that alignment, colour transfer and blending each have
// work to do.
func swapScene(t testing.TB) (target, source *image.NRGBA, tFace, sFace vision.Face) {
	t.Helper()
	target = photo(t)
	marked := image.NewNRGBA(target.Rect)
	draw.Draw(marked, marked.Rect, target, image.Point{}, draw.Src)
	draw.Draw(marked, markerRect, image.NewUniform(markerColour), image.Point{}, draw.Src)
	source = compose(marked, 400, 360, placement{mirror: true, scale: 0.7, angle: 0.12, at: complex(210, 170)},
		[3]float64{0.8, 0.95, 1.25},
		func(_, y int) color.NRGBA { return color.NRGBA{30, uint8(60 + y/6), 90, 255} })
	return target, source, detectOne(t, target), detectOne(t, source)
}

func TestSwapPutsTheSourceFaceInTheTargetBox(t *testing.T) {
	target, source, tFace, sFace := swapScene(t)
	got := Swap(target, tFace, source, sFace)
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

func TestSwapLeavesEverythingOutsideTheMaskAlone(t *testing.T) {
	target, source, tFace, sFace := swapScene(t)
	got := Swap(target, tFace, source, sFace)
	m := faceMask(tFace.Rect, target.Rect)
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

func TestSwapTransfersTheTargetsColour(t *testing.T) {
	target, source, tFace, sFace := swapScene(t)
	got := Swap(target, tFace, source, sFace)
	// The central part of each face box: skin, eyes, nose and mouth.
	inner := func(r image.Rectangle) image.Rectangle { return r.Inset(r.Dx() / 4) }
	tMean := meanLab(target, inner(tFace.Rect))
	sMean := meanLab(source, inner(sFace.Rect))
	gMean := meanLab(got, inner(tFace.Rect))
	before, after := labDistance(sMean, tMean), labDistance(gMean, tMean)
	t.Logf("mean Lab: target %.1f, source %.1f, result %.1f", tMean, sMean, gMean)
	if before < 10 {
		t.Fatalf("the tinted source is only ΔE %.1f from the target; the test needs a different colour", before)
	}
	if after > before/3 {
		t.Errorf("result's face is ΔE %.1f from the target's, the source's was %.1f: want at most a third", after, before)
	}
}

func TestSwapWithoutAFaceInTheImageReturnsTheTarget(t *testing.T) {
	target, source, _, sFace := swapScene(t)
	outside := vision.Face{Rect: image.Rect(1000, 1000, 1100, 1100)}
	got := Swap(target, outside, source, sFace)
	for i := range got.Pix {
		if got.Pix[i] != target.Pix[i] {
			t.Fatal("the target changed although its face box is outside it")
		}
	}
}

func meanLab(img *image.NRGBA, r image.Rectangle) [3]float64 {
	var sum [3]float64
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			l, a, b := rgbToLab(float32(c.R), float32(c.G), float32(c.B))
			sum[0], sum[1], sum[2] = sum[0]+float64(l), sum[1]+float64(a), sum[2]+float64(b)
			n++
		}
	}
	for c := range sum {
		sum[c] /= float64(n)
	}
	return sum
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
func benchScene(b *testing.B) (target, source *image.NRGBA, tFace, sFace vision.Face) {
	p := photo(b)
	target = compose(p, 1280, 720, placement{scale: 1.1, at: complex(820, 380)}, [3]float64{1, 1, 1},
		func(x, y int) color.NRGBA { return color.NRGBA{uint8(200 - y/8), uint8(190 - y/8), uint8(170 - x/16), 255} })
	source = compose(p, 320, 400, placement{mirror: true, scale: 1, at: complex(160, 200)}, [3]float64{1.1, 0.95, 0.85},
		func(int, int) color.NRGBA { return color.NRGBA{255, 255, 255, 255} })
	return target, source, detectOne(b, target), detectOne(b, source)
}

func BenchmarkSwap(b *testing.B) {
	target, source, tFace, sFace := benchScene(b)
	b.Logf("target face %v", tFace.Rect)
	for b.Loop() {
		Swap(target, tFace, source, sFace)
	}
}
