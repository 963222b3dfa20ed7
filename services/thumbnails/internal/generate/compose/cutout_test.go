package compose

import (
	"image"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"hookline.dev/pkg/colour"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/vision"
	"hookline.dev/pkg/vision/dlib"
	"hookline.dev/services/thumbnails/internal/edits/matte"
	"hookline.dev/services/thumbnails/internal/generate/engine"
)

var (
	dlibOnce  sync.Once
	dlibModel *dlib.Model
	dlibErr   error
)

func landmarker(t testing.TB) *dlib.Model {
	t.Helper()
	dlibOnce.Do(func() { dlibModel, dlibErr = dlib.Open("") })
	if dlibErr != nil {
		t.Fatal(dlibErr)
	}
	return dlibModel
}

// astronautFace is a saved face made as the assets service makes one (a
// 256 px square crop around the face) from the astronaut evaluation
// photo, whose skin is close to the wall behind her, with its cut-out
// made as the thumbnails service makes it: the classical remover seeded
// by the crop's landmarks.
func astronautFace(t testing.TB) engine.Face {
	t.Helper()
	det := landmarker(t)
	photo := testkit.EvalPhoto(t, "astronaut.png")
	faces := det.Detect(photo)
	if len(faces) == 0 {
		t.Fatal("no face on the astronaut")
	}
	crop := vision.SquareCrop(photo, faces[0], 256)
	pic := encodePicture(t, crop)
	cut, err := matte.Classical{}.Remove(t.Context(), pic.Img, det.Detect(pic.Img))
	if err != nil {
		t.Fatal(err)
	}
	return engine.Face{Name: "Eileen", Crop: pic, Cutout: matte.Coverage(cut)}
}

// faceLab is the mean CIELAB colour inside the largest face's outline
// (jaw and brows) that the detector finds in img.
func faceLab(t *testing.T, img image.Image) [3]float64 {
	t.Helper()
	faces := landmarker(t).Detect(img)
	if len(faces) == 0 || faces[0].Landmarks == nil {
		t.Fatal("no face with landmarks found")
	}
	best := faces[0]
	for _, f := range faces[1:] {
		if f.Landmarks != nil && f.Rect.Dx() > best.Rect.Dx() {
			best = f
		}
	}
	hull := best.Landmarks.Hull(0)
	var sum [3]float64
	n := 0
	r := best.Landmarks.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !inPolygon(hull, float64(x)+0.5, float64(y)+0.5) {
				continue
			}
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l, a, b := colour.SRGB8ToLab(float64(cr>>8), float64(cg>>8), float64(cb>>8))
			sum[0], sum[1], sum[2] = sum[0]+l, sum[1]+a, sum[2]+b
			n++
		}
	}
	if n == 0 {
		t.Fatal("empty face outline")
	}
	return [3]float64{sum[0] / float64(n), sum[1] / float64(n), sum[2] / float64(n)}
}

func inPolygon(pts []image.Point, x, y float64) bool {
	in := false
	for i, a := range pts {
		b := pts[(i+1)%len(pts)]
		ay, by := float64(a.Y), float64(b.Y)
		if (ay <= y) != (by <= y) && x < float64(a.X)+(y-ay)/(by-ay)*float64(b.X-a.X) {
			in = !in
		}
	}
	return in
}

func deltaE(p, q [3]float64) float64 {
	return math.Sqrt((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2]))
}

// TestSavedFaceKeepsItsSkin is issue 22's hollowed face: the astronaut's
// saved face, drawn in both ratios, keeps the colour of her face (ΔE76 of
// the mean colour inside the outline the detector finds in the output,
// against the crop's, at most 12), where the colour-keyed backdrop used
// to fill her skin with the palette.
func TestSavedFaceKeepsItsSkin(t *testing.T) {
	face := astronautFace(t)
	want := faceLab(t, face.Crop.Img)
	for _, a := range []engine.Aspect{engine.Landscape, engine.Portrait} {
		t.Run(string(a), func(t *testing.T) {
			req := engine.Request{Prompt: "What it takes to fly the Space Shuttle", Aspect: a, Seed: 1, Faces: []engine.Face{face}}
			got := faceLab(t, decode(t, generate(t, req)))
			if d := deltaE(got, want); d > 12 {
				t.Errorf("face colour ΔE %.1f > 12 (Lab %.1f, want %.1f)", d, got, want)
			} else {
				t.Logf("face colour ΔE %.1f", d)
			}
			// The colour-keyed path, for the record.
			old := face
			old.Cutout = nil
			req.Faces = []engine.Face{old}
			if faces := landmarker(t).Detect(decode(t, generate(t, req))); len(faces) > 0 && faces[0].Landmarks != nil {
				t.Logf("without the cut-out: ΔE %.1f", deltaE(faceLab(t, decode(t, generate(t, req))), want))
			} else {
				t.Log("without the cut-out: no face found in the output")
			}
		})
	}
}

// BenchmarkGenerateWithSavedFace is local generation at 1280×720 with a
// saved face whose cut-out the service has cached, as it is from the
// second use of the face on: the drawing alone.
func BenchmarkGenerateWithSavedFace(b *testing.B) {
	face := astronautFace(b)
	var times []time.Duration
	seed := uint64(0)
	for b.Loop() {
		seed++
		start := time.Now()
		generate(b, engine.Request{Prompt: "What it takes to fly the Space Shuttle", Aspect: engine.Landscape, Seed: seed, Faces: []engine.Face{face}})
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
}
