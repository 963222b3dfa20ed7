package matte

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"slices"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/media/vision/dlib/dlibtest"
	"hookline.dev/pkg/testkit"
)

func landmarker(t testing.TB) *dlib.Model { return dlibtest.Model(t) }

// personPhotos are the evaluation photos with a person whose face the
// detector marks.
var personPhotos = map[string]bool{"astronaut.png": true, "camera.png": true}

// shortfalls are the measured failures of the classical remover on the
// evaluation photos, logged rather than failed until it reaches them
// (none today; the camera man's coat, cut away below the throat until
// the body was walked from the face, was one).
var shortfalls = map[string]string{}

// bodies are, for the evaluation photos with a person, a point of the
// body well below the face and a point of what surrounds it, in
// fractions of the picture's width and height.
var bodies = map[string]struct{ subject, background [2]float64 }{
	"astronaut.png": {subject: [2]float64{0.3, 0.75}, background: [2]float64{0.92, 0.75}},  // the suit; the black table
	"camera.png":    {subject: [2]float64{0.12, 0.62}, background: [2]float64{0.4, 0.875}}, // his coat; the grass by the tripod
}

// objects are the evaluation photos without a face, with points of each
// that are the subject and points that are background, in fractions of
// the picture's width and height.
var objects = map[string]struct{ subject, background [][2]float64 }{
	"plant.jpg": { // leaves, the pot's rim and its foot on the bottom edge; the jacket behind
		subject:    [][2]float64{{0.45, 0.3}, {0.5, 0.65}, {0.62, 0.95}},
		background: [][2]float64{{0.06, 0.45}},
	},
	"chelsea.png": { // between the eyes, the chest, the body at the left edge, the forehead; the blurred room right and below right
		subject:    [][2]float64{{0.55, 0.5}, {0.3, 0.9}, {0.04, 0.7}, {0.45, 0.08}},
		background: [][2]float64{{0.95, 0.35}, {0.95, 0.9}},
	},
	"coffee.png": {subject: [][2]float64{{0.47, 0.28}}, background: [][2]float64{{0.9, 0.8}}}, // the coffee; the table
	"rocket.jpg": { // the rocket's body; the sky, the launch towers
		subject:    [][2]float64{{0.5, 0.6}},
		background: [][2]float64{{0.3, 0.3}, {0.3, 0.6}, {0.86, 0.75}},
	},
}

// failOrLog fails the test, or logs a known shortfall of photo.
func failOrLog(t *testing.T, photo, what, format string, args ...any) {
	t.Helper()
	if shortfalls[photo] == what {
		t.Logf("known shortfall: "+format, args...)
		return
	}
	t.Errorf(format, args...)
}

// TestPersonMaskOnEvalPhotos is issue 22's person mask on every
// evaluation photo. Where a face is marked: the face's outline is opaque
// (alpha ≥ 0.95), the neck below the chin kept (≥ 0.8 over a strip as
// wide as the mouth, 0.3 face heights deep, twice what the seed fixes),
// the top corners transparent (≤ 0.05), and the person one region without
// holes. Without a face the saliency path still finds a subject; what it
// keeps is logged.
func TestPersonMaskOnEvalPhotos(t *testing.T) {
	if testing.Short() {
		t.Skip("segments every evaluation photo (the heaviest test of make test-unit): make test runs it")
	}
	det := landmarker(t)
	for _, name := range testkit.EvalPhotos(t) {
		t.Run(name, func(t *testing.T) {
			img := testkit.EvalPhoto(t, name)
			faces := det.Detect(img)
			cut, err := Classical{}.Remove(t.Context(), img, faces)
			if err != nil {
				t.Fatal(err)
			}
			alpha := Coverage(cut)
			w, h := alpha.Rect.Dx(), alpha.Rect.Dy()
			corner := max(4, min(w, h)/20)
			top := max(cornerAlpha(alpha, image.Rect(0, 0, corner, corner)), cornerAlpha(alpha, image.Rect(w-corner, 0, w, corner)))
			on := make([]bool, w*h)
			count := 0
			for i, a := range alpha.Pix {
				on[i] = a >= 128
				if on[i] {
					count++
				}
			}
			_, regions := components8(on, w, h)
			filled := append([]bool(nil), on...)
			fillHoles(filled, w, h)
			holes := 0
			for i := range on {
				if filled[i] != on[i] {
					holes++
				}
			}
			summary := fmt.Sprintf("subject %.1f%% of the picture, top corners' alpha ≤ %.2f, %d regions, %d hole pixels",
				100*float64(count)/float64(w*h), float64(top)/255, len(regions), holes)
			if !personPhotos[name] {
				t.Logf("no face (%d found): %s", len(faces), summary)
				checkObject(t, name, alpha, regions, count)
				return
			}
			if len(faces) == 0 || faces[0].Landmarks == nil {
				t.Fatal("no face with landmarks")
			}
			t.Log(summary)
			l := faces[0].Landmarks
			hull := make([]bool, w*h)
			fillPolygon(hull, w, h, l.Hull(foreheadLift))
			if a, at := least(alpha, func(x, y int) bool { return hull[y*w+x] }, image.Rect(0, 0, w, h)); a < 242 {
				t.Errorf("face outline: alpha %.2f at %v", float64(a)/255, at)
			}
			band := NeckBand(l, 0.3)
			if a, at := least(alpha, func(int, int) bool { return true }, band); a < 204 {
				failOrLog(t, name, "neck band", "neck band %v: alpha %.2f at %v", band, float64(a)/255, at)
			}
			if top > 13 {
				t.Errorf("top corners: alpha up to %.2f", float64(top)/255)
			}
			if len(regions) != 1 || holes != 0 {
				t.Errorf("%d regions, %d hole pixels: want one region without holes", len(regions), holes)
			}
			at := func(p [2]float64) uint8 { return alpha.AlphaAt(int(p[0]*float64(w)), int(p[1]*float64(h))).A }
			if b := bodies[name]; at(b.subject) < 242 || at(b.background) > 13 {
				t.Errorf("body %v: alpha %.2f (want ≥ 0.95); beside it %v: alpha %.2f (want ≤ 0.05)",
					b.subject, float64(at(b.subject))/255, b.background, float64(at(b.background))/255)
			}
		})
	}
}

// checkObject asserts what a faceless photo's cut-out must show.
func checkObject(t *testing.T, name string, alpha *image.Alpha, regions []int, count int) {
	t.Helper()
	w, h := alpha.Rect.Dx(), alpha.Rect.Dy()
	if count < w*h*3/100 {
		t.Errorf("subject is %.1f%% of the picture, want ≥ 3%%", 100*float64(count)/float64(w*h))
	}
	if largest := slices.Max(append(regions, 0)); 10*largest < 9*count {
		t.Errorf("largest region %d of %d subject pixels: want one main region", largest, count)
	}
	at := func(p [2]float64) uint8 { return alpha.AlphaAt(int(p[0]*float64(w)), int(p[1]*float64(h))).A }
	o := objects[name]
	for _, p := range o.subject {
		if a := at(p); a < 242 {
			t.Errorf("subject point %v: alpha %.2f", p, float64(a)/255)
		}
	}
	for _, p := range o.background {
		if a := at(p); a > 13 {
			failOrLog(t, name, "background", "background point %v: alpha %.2f", p, float64(a)/255)
		}
	}
	corner := max(4, min(w, h)/20)
	for _, r := range []image.Rectangle{image.Rect(0, 0, corner, corner), image.Rect(w-corner, 0, w, corner)} {
		if m := meanAlpha(alpha, r); m > 0.05 {
			t.Errorf("top corner %v: mean alpha %.2f", r, m)
		}
	}
}

func meanAlpha(m *image.Alpha, r image.Rectangle) float64 {
	sum := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			sum += int(m.AlphaAt(x, y).A)
		}
	}
	return float64(sum) / 255 / float64(max(1, r.Dx()*r.Dy()))
}

// least is the lowest alpha over the pixels of r (within m) that in
// selects, and where it is.
func least(m *image.Alpha, in func(x, y int) bool, r image.Rectangle) (uint8, image.Point) {
	low, at := uint8(255), r.Min
	r = r.Intersect(m.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a := m.AlphaAt(x, y).A; in(x, y) && a < low {
				low, at = a, image.Pt(x, y)
			}
		}
	}
	return low, at
}

func cornerAlpha(m *image.Alpha, r image.Rectangle) uint8 {
	hi := uint8(0)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			hi = max(hi, m.AlphaAt(x, y).A)
		}
	}
	return hi
}

// TestTrimapPlant measures the trimap-seeded cut of the plant against its
// reference matte (OpenCV's information-flow matting): the mean absolute
// alpha error over the picture.
func TestTrimapPlant(t *testing.T) {
	img := testkit.EvalPhoto(t, "plant.jpg")
	ref := testkit.EvalPhoto(t, "plant_matte.png")
	tri := testkit.EvalPhoto(t, "plant_trimap.png")
	cut, err := Classical{}.Trimap(t.Context(), img, tri)
	if err != nil {
		t.Fatal(err)
	}
	b := ref.Bounds()
	sum, unknownSum, unknown := 0.0, 0.0, 0
	for y := range b.Dy() {
		for x := range b.Dx() {
			want := float64(color.GrayModel.Convert(ref.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y) / 255 //nolint:forcetypeassert // GrayModel gives Gray
			got := float64(cut.NRGBAAt(x, y).A) / 255
			d := math.Abs(got - want)
			sum += d
			tv, _, _, _ := tri.At(tri.Bounds().Min.X+x, tri.Bounds().Min.Y+y).RGBA()
			if v := tv >> 8; v > 5 && v < 250 {
				unknownSum += d
				unknown++
			}
		}
	}
	mae := sum / float64(b.Dx()*b.Dy())
	t.Logf("plant: MAE %.4f over the picture, %.4f over the trimap's unknown region (%d px)", mae, unknownSum/float64(max(unknown, 1)), unknown)
	if mae > 0.08 {
		t.Errorf("MAE %.4f > 0.08", mae)
	}
}

// TestRemovePlant measures the faceless remover (no trimap) on the plant
// against its reference matte: the mean absolute alpha error over the
// picture, and the pot, which stands on the bottom edge: at least 80% of
// the trimap's certain subject in the pot's rows is kept, and all of it
// on the pot's white price label, which runs off the bottom edge, is
// opaque (alpha ≥ 0.95).
func TestRemovePlant(t *testing.T) {
	cut, err := Classical{}.Remove(t.Context(), testkit.EvalPhoto(t, "plant.jpg"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mae, pot := plantScores(t, cut)
	t.Logf("plant: MAE %.4f, pot's certain subject kept %.3f", mae, pot)
	if mae > 0.1 {
		t.Errorf("MAE %.4f > 0.1", mae)
	}
	if pot < 0.8 {
		t.Errorf("pot: %.3f of its certain subject kept, want ≥ 0.8", pot)
	}
	tri := vision.RGBA8(testkit.EvalPhoto(t, "plant_trimap.png"), 0)
	w, h := tri.Rect.Dx(), tri.Rect.Dy()
	sure := func(x, y int) bool { return tri.Pix[y*tri.Stride+4*x] >= 250 }
	if a, at := least(Coverage(cut), sure, potLabel(w, h)); a < 242 {
		t.Errorf("pot's label: alpha %.2f at %v", float64(a)/255, at)
	}
}

// potLabel is the plant's price label on the pot, from its top to the
// picture's bottom edge, in a w×h picture of the plant.
func potLabel(w, h int) image.Rectangle {
	return image.Rect(w*48/100, h*78/100, w*56/100, h)
}

// BenchmarkRemovePlant1500x1000 is the faceless remover on a 1.5 MP
// photograph: the plant enlarged.
func BenchmarkRemovePlant1500x1000(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1500, 1000))
	drawScaled(img, img.Rect, testkit.EvalPhoto(b, "plant.jpg"))
	benchRemove(b, img, nil)
}

// BenchmarkRemoveAstronaut1280x720 is issue 22's target: the classical
// remover with a landmark-seeded person on a 1280×720 picture, the
// astronaut scaled to 1280 px wide and cut to her head and torso (faces
// detected beforehand, as the service does once per edit).
func BenchmarkRemoveAstronaut1280x720(b *testing.B) {
	photo := testkit.EvalPhoto(b, "astronaut.png")
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	drawScaled(img, image.Rect(0, 0, 1280, 1280), photo)
	faces := landmarker(b).Detect(img)
	if len(faces) == 0 || faces[0].Landmarks == nil {
		b.Fatal("no face with landmarks")
	}
	benchRemove(b, img, faces)
}

// TestSavedFaceCropDropsTheWall is the astronaut's face saved as a tight
// square crop (256 px, JPEG at quality 90; framed by dlib's landmarks as
// the assets service stores it, and 1.6 times the cascade's box as it
// did before): the light wall beside her neck, which such a crop shows
// little of at its frame, is background (alpha ≤ 0.05), while her neck
// and the suit's collar under her chin stay (≥ 0.95).
func TestSavedFaceCropDropsTheWall(t *testing.T) {
	photo := testkit.EvalPhoto(t, "astronaut.png")
	boxes := map[string][]vision.Face{"dlib": landmarker(t).Detect(photo), "cascade": detector(t).Detect(photo)}
	for name, faces := range boxes {
		t.Run(name, func(t *testing.T) {
			if len(faces) == 0 {
				t.Fatal("no face")
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, vision.SquareCrop(photo, faces[0], 256), &jpeg.Options{Quality: 90}); err != nil {
				t.Fatal(err)
			}
			img, err := jpeg.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			cut, err := Classical{}.Remove(t.Context(), img, landmarker(t).Detect(img))
			if err != nil {
				t.Fatal(err)
			}
			alpha := Coverage(cut)
			at := func(p [2]float64) float64 {
				return float64(alpha.AlphaAt(int(p[0]*256), int(p[1]*256)).A) / 255
			}
			// Fractions of the crop's side, the same places on the two
			// crops: the wall right of the neck, and the collar.
			wall := map[string][2]float64{"dlib": {0.92, 0.74}, "cascade": {0.86, 0.74}}[name]
			if a := at(wall); a > 0.05 {
				t.Errorf("wall beside the neck %v: alpha %.2f", wall, a)
			}
			if a := at([2]float64{0.5, 0.97}); a < 0.95 {
				t.Errorf("collar: alpha %.2f", a)
			}
		})
	}
}

// plantScores measures a cut-out of the plant against its reference
// matte and trimap: the mean absolute alpha error over the picture, and
// the share of the trimap's certain subject that is at least half opaque
// in the pot's rows (below potTop of the picture's height).
func plantScores(t *testing.T, cut *image.NRGBA) (mae, potRecall float64) {
	t.Helper()
	ref := testkit.EvalPhoto(t, "plant_matte.png")
	tri := testkit.EvalPhoto(t, "plant_trimap.png")
	b := ref.Bounds()
	sum, sure, kept := 0.0, 0, 0
	for y := range b.Dy() {
		for x := range b.Dx() {
			want := float64(color.GrayModel.Convert(ref.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y) / 255 //nolint:forcetypeassert // GrayModel gives Gray
			got := cut.NRGBAAt(x, y).A
			sum += math.Abs(float64(got)/255 - want)
			if float64(y) < potTop*float64(b.Dy()) {
				continue
			}
			if tv, _, _, _ := tri.At(tri.Bounds().Min.X+x, tri.Bounds().Min.Y+y).RGBA(); tv>>8 >= 250 {
				sure++
				if got >= 128 {
					kept++
				}
			}
		}
	}
	return sum / float64(b.Dx()*b.Dy()), float64(kept) / float64(max(sure, 1))
}

// potTop is where the plant's pot starts, as a fraction of the picture's
// height.
const potTop = 0.62
