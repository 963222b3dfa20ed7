package compose

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"slices"
	"testing"
	"time"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/media/vision/dlib/dlibtest"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/edits/matte"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func landmarker(t testing.TB) *dlib.Model { return dlibtest.Model(t) }

// astronautFace is a saved face made from the astronaut evaluation photo
// (her skin is close to the wall behind her) as the assets service makes
// one: dlib's most confident face, a 256 px square crop framed by its
// landmarks (vision.SquareCrop), stored as a JPEG at quality 90. Its
// cut-out is made as the thumbnails service makes it (service.Cutouts):
// the classical remover seeded by the landmarks dlib finds on the decoded
// crop.
func astronautFace(t testing.TB) engine.Face {
	t.Helper()
	photo := testkit.EvalPhoto(t, "astronaut.png")
	faces := landmarker(t).Detect(photo)
	if len(faces) == 0 {
		t.Fatal("no face on the astronaut")
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, vision.SquareCrop(photo, faces[0], savedFaceSide), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	cut, err := matte.Classical{}.Remove(t.Context(), img, landmarker(t).Detect(img))
	if err != nil {
		t.Fatal(err)
	}
	return engine.Face{Name: "Eileen", Crop: engine.Picture{Data: buf.Bytes(), Img: img}, Cutout: matte.Coverage(cut)}
}

// savedFaceSide is the side of the assets service's face crop
// (services/assets/internal/face.ThumbnailSize).
const savedFaceSide = 256

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
// saved face drawn in a cut-out slot of both ratios over the purple and
// the orange backdrops that showed through her skin keeps the colour of
// her face: ΔE76 of the mean colour inside the outline the detector finds
// in the output, against the crop's, at most 12. The colour-keyed path
// (the same face without its cut-out), whose flood fill from the crop's
// border runs through the wall into her skin, is drawn alongside and must
// fail that bound: the test tells the two apart.
func TestSavedFaceKeepsItsSkin(t *testing.T) {
	face := astronautFace(t)
	keyed := face
	keyed.Cutout = nil
	want := faceLab(t, face.Crop.Img)
	for _, c := range []struct {
		layout, colour string
		palette        int // of vivid
	}{
		{"face-right", "purple", 0},           // 16:9
		{"face-left-glow", "orange", 5},       // 16:9
		{"portrait-face-bottom", "purple", 0}, // 9:16
		{"portrait-split", "orange", 5},       // 9:16
	} {
		t.Run(c.layout+"/"+c.colour, func(t *testing.T) {
			l := mustParse(t, builtinLayouts[c.layout])
			l.Palette = vivid[c.palette]
			aspect := thumbnail.Landscape
			if l.Aspect == string(thumbnail.Portrait) {
				aspect = thumbnail.Portrait
			}
			draw := func(f engine.Face) float64 {
				req := engine.Request{Prompt: "What it takes to fly the Space Shuttle", Aspect: aspect, Seed: 1, Faces: []engine.Face{f}, Template: l}
				return deltaE(faceLab(t, decode(t, generate(t, req))), want)
			}
			cut, old := draw(face), draw(keyed)
			t.Logf("face colour ΔE %.1f with the cut-out, %.1f colour-keyed", cut, old)
			if cut > 12 {
				t.Errorf("with the cut-out: face colour ΔE %.1f > 12", cut)
			}
			if old <= 12 || old < cut+5 {
				t.Errorf("colour-keyed: ΔE %.1f, want > 12 and clearly above the cut-out's %.1f: the test no longer shows the hollowed face", old, cut)
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
		generate(b, engine.Request{Prompt: "What it takes to fly the Space Shuttle", Aspect: thumbnail.Landscape, Seed: seed, Faces: []engine.Face{face}})
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
}
