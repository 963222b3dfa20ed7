package matte

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"slices"
	"testing"
	"time"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/edits/backdrop"
)

func detector(t testing.TB) *vision.Detector {
	t.Helper()
	d, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkCut asserts the measured quality of a cut-out against the true
// mask: its size, the IoU of alpha > 0.5 with the mask, and that the
// background away from the subject's outline is transparent.
func checkCut(t *testing.T, s scene, cut *image.NRGBA) {
	t.Helper()
	if got, want := cut.Rect.Size(), s.img.Rect.Size(); got != want {
		t.Fatalf("cut-out is %v, input %v", got, want)
	}
	if v := iou(cut, s.mask); v < 0.90 {
		t.Errorf("IoU %.3f < 0.90", v)
	} else {
		t.Logf("IoU %.4f", v)
	}
	w, h := cut.Rect.Dx(), cut.Rect.Dy()
	// Pixels more than 4 px from any subject pixel.
	far := make([]bool, w*h)
	near := dilate(s.mask, w, h, 4)
	sum, count, opaque := 0.0, 0, 0
	for i, n := range near {
		far[i] = !n
		if !far[i] {
			continue
		}
		a := cut.Pix[(i/w)*cut.Stride+(i%w)*4+3]
		sum += float64(a) / 255
		count++
		if a > 12 {
			opaque++
		}
	}
	if mean := sum / float64(count); mean > 0.01 || opaque > count/200 {
		t.Errorf("background: mean alpha %.4f, %d of %d pixels above 5%%", mean, opaque, count)
	}
}

func TestClassicalPerson(t *testing.T) {
	const w, h = 640, 360
	det := detector(t)
	city := backdrop.Background{Scenes: []backdrop.Scene{backdrop.City}}.Render(w, h)
	for name, bg := range map[string]func(x, y int) color.RGBA{
		"plain":    plainBackground(color.RGBA{40, 110, 200, 255}),
		"gradient": gradientBackground(w, h, color.RGBA{250, 150, 60, 255}, color.RGBA{60, 40, 140, 255}),
		// Beyond the cases: a busy backdrop of many colours.
		"city": func(x, y int) color.RGBA { return city.RGBAAt(x, y) },
	} {
		t.Run(name, func(t *testing.T) {
			s := personScene(t, w, h, bg)
			faces := det.Detect(s.img)
			if len(faces) == 0 {
				t.Fatal("no face found in the scene")
			}
			cut, err := Classical{}.Remove(t.Context(), s.img, faces)
			if err != nil {
				t.Fatal(err)
			}
			checkCut(t, s, cut)
		})
	}
}

func TestClassicalSalientObject(t *testing.T) {
	const w, h = 640, 360
	for name, bg := range map[string]func(x, y int) color.RGBA{
		"plain":    plainBackground(color.RGBA{200, 200, 210, 255}),
		"gradient": gradientBackground(w, h, color.RGBA{20, 60, 120, 255}, color.RGBA{140, 200, 240, 255}),
	} {
		t.Run(name, func(t *testing.T) {
			s := blobScene(w, h, bg)
			cut, err := Classical{}.Remove(t.Context(), s.img, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkCut(t, s, cut)
		})
	}
}

// TestClassicalFacePhoto cuts the real portrait (light background): the
// face is kept whole and opaque with its colours, the corners are
// transparent.
func TestClassicalFacePhoto(t *testing.T) {
	img, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	faces := detector(t).Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face in the sample photo")
	}
	cut, err := Classical{}.Remove(t.Context(), img, faces)
	if err != nil {
		t.Fatal(err)
	}
	f := faces[0].Rect
	inner := image.Rect(f.Min.X+f.Dx()/4, f.Min.Y+f.Dy()/8, f.Max.X-f.Dx()/4, f.Max.Y-f.Dy()/8)
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			c := cut.NRGBAAt(x, y)
			r, g, b, _ := img.At(x, y).RGBA()
			if c.A != 255 || c.R != uint8(r>>8) || c.G != uint8(g>>8) || c.B != uint8(b>>8) {
				t.Fatalf("face pixel (%d,%d) = %v, source %d,%d,%d", x, y, c, r>>8, g>>8, b>>8)
			}
		}
	}
	b := cut.Rect
	for _, corner := range []image.Rectangle{
		image.Rect(0, 0, 30, 30), image.Rect(b.Max.X-30, 0, b.Max.X, 30),
	} {
		for y := corner.Min.Y; y < corner.Max.Y; y++ {
			for x := corner.Min.X; x < corner.Max.X; x++ {
				if a := cut.NRGBAAt(x, y).A; a > 12 {
					t.Fatalf("corner pixel (%d,%d) alpha %d", x, y, a)
				}
			}
		}
	}
}

// TestClassicalBounds: inputs whose bounds do not start at the origin,
// and degenerate sizes, give a cut-out of the same size at the origin.
func TestClassicalBounds(t *testing.T) {
	s := blobScene(200, 120, plainBackground(color.RGBA{10, 10, 10, 255}))
	sub := s.img.SubImage(image.Rect(20, 10, 180, 110))
	cut, err := Classical{}.Remove(t.Context(), sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Rect != image.Rect(0, 0, 160, 100) {
		t.Fatalf("cut-out bounds %v", cut.Rect)
	}
	// The blob's centre (100, 60) in the parent is (80, 50) in the cut.
	if a := cut.NRGBAAt(80, 50).A; a != 255 {
		t.Errorf("subject centre alpha %d", a)
	}
	for _, size := range []image.Point{{0, 0}, {1, 1}, {3, 2}, {1, 50}} {
		cut, err := Classical{}.Remove(t.Context(), image.NewRGBA(image.Rectangle{Max: size}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if cut.Rect.Size() != size {
			t.Errorf("%v input: %v cut-out", size, cut.Rect.Size())
		}
	}
}

func TestClassicalCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := blobScene(160, 90, plainBackground(color.RGBA{10, 10, 10, 255}))
	if _, err := (Classical{}).Remove(ctx, s.img, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// BenchmarkRemove1280x720 is the performance target: the
// classical remover on a 1280×720 picture of a person (faces detected
// beforehand, as the service does once per edit).
func BenchmarkRemove1280x720(b *testing.B) {
	s := personScene(b, 1280, 720, gradientBackground(1280, 720, color.RGBA{250, 150, 60, 255}, color.RGBA{60, 40, 140, 255}))
	faces := detector(b).Detect(s.img)
	if len(faces) == 0 {
		b.Fatal("no face found")
	}
	benchRemove(b, s.img, faces)
}

// BenchmarkRemovePhoto1280x720 is the same on a real photograph: the
// sample portrait enlarged onto a 1280×720 frame of its own background.
func BenchmarkRemovePhoto1280x720(b *testing.B) {
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(b)))
	if err != nil {
		b.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	fill := photo.At(5, 5)
	for y := range 720 {
		for x := range 1280 {
			img.Set(x, y, fill)
		}
	}
	scaled := image.Rect(400, 0, 400+576, 720)
	drawScaled(img, scaled, photo)
	faces := detector(b).Detect(img)
	if len(faces) == 0 {
		b.Fatal("no face found")
	}
	benchRemove(b, img, faces)
}

// benchRemove times the classical remover on img, reporting the median
// (p50-ms) beside the mean.
func benchRemove(b *testing.B, img image.Image, faces []vision.Face) {
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := (Classical{}).Remove(b.Context(), img, faces); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
}

// TestFillSmallHolesPockets: on a 10×10 grid, a subject standing on the
// bottom edge with a slit up from that edge (a pocket) and a hole; the
// pocket is filled only within pocketLimit, the hole within limit, and a
// gap open to a side edge never.
func TestFillSmallHolesPockets(t *testing.T) {
	// '#' subject, '.' unset: a 2×3 pocket at the bottom, a 1-pixel hole,
	// and a notch open to the right edge.
	rows := []string{
		"..........",
		".#######..",
		".#.#####..",
		".########.",
		".####.....",
		".#####....",
		".########.",
		".###..###.",
		".###..###.",
		".###..###.",
	}
	w, h := 10, len(rows)
	parse := func() []bool {
		m := make([]bool, w*h)
		for y, r := range rows {
			for x, c := range r {
				m[y*w+x] = c == '#'
			}
		}
		return m
	}
	pocket, hole, notch := 8*w+4, 2*w+2, 4*w+6
	for _, c := range []struct {
		pocketLimit         int
		pocket, hole, notch bool
	}{
		{pocketLimit: 0, hole: true},
		{pocketLimit: 6, hole: true},
		{pocketLimit: 7, pocket: true, hole: true},
	} {
		m := parse()
		fillSmallHoles(m, w, h, 2, c.pocketLimit)
		if m[pocket] != c.pocket || m[hole] != c.hole || m[notch] != c.notch {
			t.Errorf("pocket limit %d: pocket %v, hole %v, notch %v; want %v, %v, %v",
				c.pocketLimit, m[pocket], m[hole], m[notch], c.pocket, c.hole, c.notch)
		}
	}
}
