package vision

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // decode pigo's sample photos
	_ "image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// pigoDir locates the pinned pigo module on disk, whose testdata holds real
// photos with faces; the photos are not copied into this repository. A
// missing module is a broken checkout, so it fails rather than skips.
func pigoDir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/esimov/pigo").Output()
	if err != nil {
		t.Fatalf("locating github.com/esimov/pigo with go list: %v (run `go mod download` in services/assets)", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		t.Fatal("go list returned no directory for github.com/esimov/pigo (run `go mod download`)")
	}
	return dir
}

func loadImage(t testing.TB, path string) image.Image {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

func newDetector(t testing.TB) *Detector {
	t.Helper()
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// facePhotos lists the sample photos in pigo's testdata that show a face.
// testdata/test.png is a 10×10 swatch and is covered as a negative instead.
var facePhotos = []string{"sample.jpg"}

func TestDetectFindsFaceInPigoSamples(t *testing.T) {
	d := newDetector(t)
	dir := filepath.Join(pigoDir(t), "testdata")
	for _, name := range facePhotos {
		t.Run(name, func(t *testing.T) {
			img := loadImage(t, filepath.Join(dir, name))
			faces := d.Detect(img)
			if len(faces) == 0 {
				t.Fatalf("no face found in %s", name)
			}
			for i, f := range faces {
				t.Logf("face %d: %v score %.1f", i, f.Rect, f.Score)
				if !f.Rect.In(img.Bounds()) {
					t.Errorf("face %v outside image %v", f.Rect, img.Bounds())
				}
				if i > 0 && faces[i-1].Score < f.Score {
					t.Errorf("faces not sorted by score: %v", faces)
				}
			}
		})
	}
}

// TestDetectSampleFaceLocation pins down where the face is: the sample is a
// centred portrait, so the best face is large and central. The same photo
// converted to each decoder output type must give the same answer.
func TestDetectSampleFaceLocation(t *testing.T) {
	d := newDetector(t)
	sample := loadImage(t, filepath.Join(pigoDir(t), "testdata", "sample.jpg"))
	if _, ok := sample.(*image.YCbCr); !ok {
		t.Fatalf("sample decoded as %T, want *image.YCbCr", sample)
	}
	faces := d.Detect(sample)
	if len(faces) != 1 {
		t.Fatalf("found %d faces in a one-person portrait: %v", len(faces), faces)
	}
	b, f := sample.Bounds(), faces[0].Rect
	c := f.Min.Add(f.Max).Div(2)
	if c.X < b.Dx()/3 || c.X > 2*b.Dx()/3 || c.Y < b.Dy()/4 || c.Y > 3*b.Dy()/4 || f.Dx() < b.Dx()/3 {
		t.Fatalf("face %v is not the centred portrait in %v", f, b)
	}

	nrgba := image.NewNRGBA(b)
	draw.Draw(nrgba, b, sample, b.Min, draw.Src)
	gray := image.NewGray(b)
	draw.Draw(gray, b, sample, b.Min, draw.Src)
	rgba64 := image.NewRGBA64(b) // no fast path: goes through At
	draw.Draw(rgba64, b, sample, b.Min, draw.Src)
	for name, img := range map[string]image.Image{"nrgba": nrgba, "gray": gray, "rgba64": rgba64} {
		got := d.Detect(img)
		if len(got) != 1 {
			t.Errorf("%s: %d faces", name, len(got))
			continue
		}
		inter := got[0].Rect.Intersect(f)
		if iou := float64(area(inter)) / float64(area(got[0].Rect)+area(f)-area(inter)); iou < 0.8 {
			t.Errorf("%s: face %v, want near %v", name, got[0].Rect, f)
		}
	}
}

// TestDetectLargeAndOffsetImage checks the downscale path and the mapping of
// rectangles back to the caller's coordinates: the sample photo is pasted,
// enlarged, into a big canvas whose bounds do not start at the origin.
func TestDetectLargeAndOffsetImage(t *testing.T) {
	d := newDetector(t)
	sample := loadImage(t, filepath.Join(pigoDir(t), "testdata", "sample.jpg"))
	small := d.Detect(sample)
	if len(small) == 0 {
		t.Fatal("no face in sample")
	}

	const k = 3 // enlargement
	sb := sample.Bounds()
	src := image.NewRGBA(image.Rect(0, 0, sb.Dx(), sb.Dy()))
	draw.Draw(src, src.Bounds(), sample, sb.Min, draw.Src)
	origin := image.Pt(100, 50)
	paste := image.Pt(400, 200) // where the enlarged sample starts, relative to origin
	big := image.NewRGBA(image.Rect(0, 0, 1800, 1500).Add(origin))
	draw.Draw(big, big.Bounds(), image.NewUniform(color.RGBA{200, 200, 200, 255}), image.Point{}, draw.Src)
	for y := range sb.Dy() * k {
		row := big.Pix[big.PixOffset(origin.X+paste.X, origin.Y+paste.Y+y):]
		from := src.Pix[src.PixOffset(0, y/k):]
		for x := range sb.Dx() * k {
			copy(row[4*x:4*x+4], from[4*(x/k):])
		}
	}
	faces := d.Detect(big)
	if len(faces) == 0 {
		t.Fatal("no face in enlarged, offset sample")
	}
	want := image.Rectangle{
		Min: small[0].Rect.Min.Sub(sb.Min).Mul(k).Add(origin).Add(paste),
		Max: small[0].Rect.Max.Sub(sb.Min).Mul(k).Add(origin).Add(paste),
	}
	got := faces[0].Rect
	inter := got.Intersect(want)
	iou := float64(area(inter)) / float64(area(got)+area(want)-area(inter))
	if iou < 0.5 {
		t.Fatalf("face at %v, want near %v (IoU %.2f)", got, want, iou)
	}
}

func TestDetectNoFaceInSyntheticImages(t *testing.T) {
	d := newDetector(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h = 1280, 720

	solid := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(solid, solid.Bounds(), image.NewUniform(color.RGBA{180, 120, 90, 255}), image.Point{}, draw.Src)

	gradient := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			gradient.SetRGBA(x, y, color.RGBA{uint8(255 * x / w), uint8(255 * y / h), 128, 255})
		}
	}
	radial := image.NewGray(image.Rect(0, 0, 640, 640))
	for y := range 640 {
		for x := range 640 {
			dx, dy := x-320, y-320
			radial.SetGray(x, y, color.Gray{uint8(min(255, (dx*dx+dy*dy)/800))})
		}
	}

	noise := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(rng.UintN(256))
	}
	for i := 3; i < len(noise.Pix); i += 4 {
		noise.Pix[i] = 255
	}
	grayNoise := image.NewGray(image.Rect(0, 0, 800, 800))
	for i := range grayNoise.Pix {
		grayNoise.Pix[i] = uint8(rng.UintN(256))
	}

	cases := map[string]image.Image{
		"solid":      solid,
		"gradient":   gradient,
		"radial":     radial,
		"noise":      noise,
		"gray-noise": grayNoise,
		"tiny":       image.NewRGBA(image.Rect(0, 0, 10, 10)),
		"empty":      image.NewRGBA(image.Rectangle{}),
	}
	pigoTest := filepath.Join(pigoDir(t), "testdata", "test.png")
	cases["pigo-test.png"] = loadImage(t, pigoTest)

	for name, img := range cases {
		t.Run(name, func(t *testing.T) {
			if faces := d.Detect(img); len(faces) != 0 {
				t.Fatalf("found %d faces in %s: %v", len(faces), name, faces)
			}
		})
	}
}

func TestDetectConcurrentUse(t *testing.T) {
	d := newDetector(t)
	img := loadImage(t, filepath.Join(pigoDir(t), "testdata", "sample.jpg"))
	want := d.Detect(img)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			// A second Detector shares the unpacked cascade.
			d2, err := New()
			if err != nil {
				t.Error(err)
				return
			}
			for _, det := range []*Detector{d, d2} {
				got := det.Detect(img)
				if len(got) != len(want) || (len(got) > 0 && got[0] != want[0]) {
					t.Errorf("concurrent Detect = %v, want %v", got, want)
				}
			}
		})
	}
	wg.Wait()
}

func TestNilAndZeroDetector(t *testing.T) {
	var d *Detector
	if got := d.Detect(image.NewRGBA(image.Rect(0, 0, 100, 100))); got != nil {
		t.Fatalf("nil detector found %v", got)
	}
	if got := (&Detector{}).Detect(image.NewRGBA(image.Rect(0, 0, 100, 100))); got != nil {
		t.Fatalf("zero detector found %v", got)
	}
	if got := newDetector(t).Detect(nil); got != nil {
		t.Fatalf("nil image gave %v", got)
	}
}

func TestCheckCascade(t *testing.T) {
	if err := checkCascade(facefinderCascade); err != nil {
		t.Fatalf("embedded cascade: %v", err)
	}
	for name, b := range map[string][]byte{
		"empty":     nil,
		"header":    facefinderCascade[:16],
		"truncated": facefinderCascade[:len(facefinderCascade)-1],
		"zeros":     make([]byte, 64),
	} {
		if err := checkCascade(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSquareCrop(t *testing.T) {
	d := newDetector(t)
	img := loadImage(t, filepath.Join(pigoDir(t), "testdata", "sample.jpg"))
	faces := d.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face in sample")
	}
	b := img.Bounds()
	for _, tc := range []struct {
		name string
		face Face
		size int
	}{
		{"detected-down", faces[0], 64},
		{"detected-up", faces[0], 512},
		{"detected-same", faces[0], 256},
		{"corner", Face{Rect: image.Rect(b.Min.X, b.Min.Y, b.Min.X+40, b.Min.Y+40)}, 100},
		{"bigger-than-image", Face{Rect: b}, 128},
		{"outside", Face{Rect: image.Rect(-500, -500, -400, -400)}, 96},
		{"one", faces[0], 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SquareCrop(img, tc.face, tc.size)
			if r := got.Bounds(); r != image.Rect(0, 0, tc.size, tc.size) {
				t.Fatalf("bounds %v, want %dx%d square", r, tc.size, tc.size)
			}
			// Photos are opaque, so the crop must be too: a transparent pixel
			// would mean the crop window left the image.
			rgba, ok := got.(*image.RGBA)
			if !ok {
				t.Fatalf("got %T, want *image.RGBA", got)
			}
			for i := 3; i < len(rgba.Pix); i += 4 {
				if rgba.Pix[i] != 255 {
					t.Fatalf("pixel %d has alpha %d", i/4, rgba.Pix[i])
				}
			}
		})
	}
	if got := SquareCrop(img, faces[0], 0).Bounds(); !got.Empty() {
		t.Fatalf("size 0 gave %v", got)
	}
	if got := SquareCrop(nil, faces[0], 10).Bounds(); !got.Empty() {
		t.Fatalf("nil image gave %v", got)
	}
}

// TestSquareCropKeepsFaceInFrame checks that the crop still shows a face:
// the thumbnail of the detected face, enlarged back up, is itself detected.
func TestSquareCropKeepsFaceInFrame(t *testing.T) {
	d := newDetector(t)
	img := loadImage(t, filepath.Join(pigoDir(t), "testdata", "sample.jpg"))
	faces := d.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face in sample")
	}
	crop := SquareCrop(img, faces[0], 256)
	if got := d.Detect(crop); len(got) == 0 {
		t.Fatal("no face in the face crop")
	}
}

func TestSquareCropContent(t *testing.T) {
	// Left half red, right half blue; a face square straddling the border
	// must give a crop that is red on the left and blue on the right.
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	for y := range 100 {
		for x := range 200 {
			c := color.RGBA{255, 0, 0, 255}
			if x >= 100 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	crop := SquareCrop(img, Face{Rect: image.Rect(75, 25, 125, 75)}, 20).(*image.RGBA)
	if c := crop.RGBAAt(1, 10); c != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("left pixel %v, want red", c)
	}
	if c := crop.RGBAAt(18, 10); c != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("right pixel %v, want blue", c)
	}
}

// roundFace is landmarks of an upright face centred at (cx, cy): the jaw a
// half circle of radius r from ear to ear through the chin, the brows a
// line 0.4 r above the ears, every other point at the centre.
func roundFace(cx, cy, r float64) *Landmarks {
	var l Landmarks
	for i := range l {
		l[i] = image.Pt(int(cx), int(cy))
	}
	for i := JawStart; i < JawEnd; i++ {
		a := math.Pi * float64(i) / float64(JawEnd-1)
		l[i] = image.Pt(int(math.Round(cx-r*math.Cos(a))), int(math.Round(cy+r*math.Sin(a))))
	}
	for i := BrowsStart; i < BrowsEnd; i++ {
		x := cx - 0.8*r + 1.6*r*float64(i-BrowsStart)/float64(BrowsEnd-1-BrowsStart)
		l[i] = image.Pt(int(math.Round(x)), int(math.Round(cy-0.4*r)))
	}
	return &l
}

// With landmarks the crop frames the face's outline from chin to hairline,
// wherever the detector's box lies, and still slides inside the image.
func TestSquareCropFramesLandmarks(t *testing.T) {
	b := image.Rect(0, 0, 1000, 800)
	l := roundFace(400, 300, 60)
	// Ears at x 340 and 460, chin at y 360, brows at 276, which Hull(0.35)
	// lifts by 0.35 × (360 − 276) to 247.
	hull := image.Rect(340, 247, 461, 361)
	// A box off to the side, as a detector's on a turned face.
	f := Face{Rect: image.Rect(380, 260, 500, 380), Landmarks: l}
	got := cropSquare(b, f)
	side := int(math.Ceil(cropMargin * float64(hull.Dx())))
	if got.Dx() != side || got.Dy() != side {
		t.Fatalf("crop %v, want a %d px square", got, side)
	}
	mid := func(r image.Rectangle) image.Point { return r.Min.Add(r.Max).Div(2) }
	if d := mid(got).Sub(mid(hull)); d.X*d.X+d.Y*d.Y > 2 {
		t.Errorf("crop %v centred at %v, the face's outline %v at %v", got, mid(got), hull, mid(hull))
	}
	if !hull.In(got) {
		t.Errorf("crop %v cuts the outline %v", got, hull)
	}

	f.Landmarks = roundFace(30, 780, 60)
	got = cropSquare(b, f)
	if got.Min.X != 0 || got.Max.Y != 800 || got.Dx() != side {
		t.Errorf("a face in the corner: crop %v, want a %d px square slid into the bottom-left corner", got, side)
	}
	f.Landmarks = roundFace(-500, -500, 60)
	if got := cropSquare(b, f); got != image.Rect(100, 0, 900, 800) {
		t.Errorf("landmarks outside the image: crop %v, want the centre square", got)
	}
}

func BenchmarkDetect720p(b *testing.B) {
	d := newDetector(b)
	sample := loadImage(b, filepath.Join(pigoDir(b), "testdata", "sample.jpg"))
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{90, 110, 130, 255}), image.Point{}, draw.Src)
	draw.Draw(img, sample.Bounds().Add(image.Pt(480, 160)), sample, sample.Bounds().Min, draw.Src)
	if len(d.Detect(img)) == 0 {
		b.Fatal("no face in benchmark image")
	}
	b.ReportAllocs()
	for b.Loop() {
		d.Detect(img)
	}
}
