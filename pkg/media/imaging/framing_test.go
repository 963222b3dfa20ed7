package imaging

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
)

func TestWindowShapes(t *testing.T) {
	for _, size := range []image.Point{{1000, 1000}, {1920, 1080}, {1080, 1920}, {333, 777}, {4000, 3000}, {17, 5}, {3, 900}} {
		b := image.Rectangle{Max: size}.Add(image.Pt(-7, 11)) // not at the origin
		for _, aspect := range []string{"16:9", "9:16"} {
			r := Window(b, Ratio(aspect), nil, nil)
			if !r.In(b) {
				t.Fatalf("%v %s: %v outside", size, aspect, r)
			}
			// The largest window: one side is the picture's.
			if r.Dx() != b.Dx() && r.Dy() != b.Dy() {
				t.Errorf("%v %s: %v is not the largest window", size, aspect, r)
			}
			// Exact within 1 px: the side that was cut is the other times
			// the ratio, rounded.
			ratio := Ratio(aspect)
			if r.Dx() == b.Dx() && math.Abs(float64(r.Dy())-float64(r.Dx())/ratio) > 1 && r.Dy() > 1 ||
				r.Dy() == b.Dy() && math.Abs(float64(r.Dx())-float64(r.Dy())*ratio) > 1 && r.Dx() > 1 {
				t.Errorf("%v %s: %v is %.4f, want %.4f", size, aspect, r.Size(), float64(r.Dx())/float64(r.Dy()), ratio)
			}
		}
	}
	if r := Window(image.Rect(0, 0, 1000, 1000), 16.0/9, nil, nil); r != image.Rect(0, 218, 1000, 781) {
		t.Errorf("with nothing to follow the crop is centred, got %v", r)
	}
	if r := Window(image.Rect(0, 0, 1920, 1080), 16.0/9, nil, nil); r != image.Rect(0, 0, 1920, 1080) {
		t.Errorf("a 16:9 picture cropped to 16:9 is itself, got %v", r)
	}
}

func TestWindowKeepsFaces(t *testing.T) {
	b := image.Rect(0, 0, 1000, 1000)
	low := []vision.Face{{Rect: image.Rect(600, 800, 700, 900)}}
	if r := Window(b, 16.0/9, low, nil); !low[0].Rect.In(r) {
		t.Errorf("face %v outside the crop %v", low[0].Rect, r)
	}
	// Two faces that fit together are both kept, centred between them.
	two := []vision.Face{{Rect: image.Rect(100, 100, 200, 200)}, {Rect: image.Rect(100, 500, 200, 600)}}
	r := Window(b, 16.0/9, two, nil)
	if !two[0].Rect.In(r) || !two[1].Rect.In(r) {
		t.Errorf("faces %v outside the crop %v", two, r)
	}
	if mid := (r.Min.Y + r.Max.Y) / 2; mid < 340 || mid > 360 {
		t.Errorf("the crop %v is not centred on the faces (middle %d, want 350)", r, mid)
	}
	// Two that cannot fit in one 9:16 window: the larger one is kept whole.
	apart := []vision.Face{{Rect: image.Rect(20, 400, 120, 500)}, {Rect: image.Rect(700, 380, 940, 620)}}
	r = Window(b, 9.0/16, apart, nil)
	if !apart[1].Rect.In(r) {
		t.Errorf("the larger face %v is outside the crop %v", apart[1].Rect, r)
	}
}

func TestWindowFollowsSaliency(t *testing.T) {
	n := vision.SaliencySize
	// One bright blob at the left edge of a wide picture.
	blob := make([]float64, n*n)
	for y := 28; y < 36; y++ {
		for x := 2; x < 8; x++ {
			blob[y*n+x] = 1
		}
	}
	b := image.Rect(0, 0, 1600, 900)
	r := Window(b, 9.0/16, nil, blob)
	blobPx := image.Rect(2*1600/n, 28*900/n, 8*1600/n, 36*900/n)
	if !blobPx.In(r) {
		t.Errorf("the salient blob %v is outside the crop %v", blobPx, r)
	}
	// The blob is near the edge, so the window is against it.
	if r.Min.X != 0 {
		t.Errorf("crop %v: want it at the left edge", r)
	}
	// Two blobs that both fit are both kept and centred between.
	two := make([]float64, n*n)
	for y := 30; y < 34; y++ {
		two[y*n+20], two[y*n+40] = 1, 1
	}
	r = Window(b, 9.0/16, nil, two)
	if mid := float64(r.Min.X+r.Max.X) / 2; math.Abs(mid-30.5*1600/float64(n)) > 1600/float64(n) {
		t.Errorf("crop %v: want it centred between the blobs at x≈%.0f", r, 30.5*1600/float64(n))
	}
}

func TestCropFollowsSaliency(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 900, 900))
	for y := range 900 {
		for x := range 900 {
			c := color.RGBA{120, 120, 120, 255}
			if math.Hypot(float64(x-450), float64(y-780)) < 60 {
				c = color.RGBA{250, 30, 30, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	out := Crop(img, "16:9", nil, vision.Saliency(img))
	if out.Bounds() != image.Rect(0, 0, 900, 506) {
		t.Fatalf("size %v", out.Bounds())
	}
	// The whole red disc near the bottom is inside the crop (π·60² ≈ 11300 px).
	if red := countRed(out); red < 11000 {
		t.Errorf("%d red pixels kept, want the disc's ≈ 11300", red)
	}
}

func TestCropKeepsDetectedFace(t *testing.T) {
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	// The portrait near the right end of a wide grey picture.
	img := image.NewRGBA(image.Rect(0, 0, 1400, 500))
	draw.Draw(img, img.Rect, image.NewUniform(color.RGBA{90, 100, 110, 255}), image.Point{}, draw.Src)
	draw.Draw(img, photo.Bounds().Add(image.Pt(1020, 50)), photo, photo.Bounds().Min, draw.Src)
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	faces := det.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face in the sample photo")
	}
	sal := vision.Saliency(img)
	r := Window(img.Bounds(), 9.0/16, faces, sal)
	if !faces[0].Rect.In(r) {
		t.Errorf("the face %v is outside the 9:16 crop %v", faces[0].Rect, r)
	}
	out := Crop(img, "9:16", faces, sal)
	if out.Bounds().Size() != r.Size() {
		t.Fatalf("crop %v, window %v", out.Bounds(), r)
	}
	// The crop holds the source's own pixels.
	for _, p := range []image.Point{{0, 0}, {r.Dx() / 2, r.Dy() / 2}, {r.Dx() - 1, r.Dy() - 1}} {
		want := color.NRGBAModel.Convert(img.At(r.Min.X+p.X, r.Min.Y+p.Y))
		if got := out.NRGBAAt(p.X, p.Y); got != want {
			t.Errorf("pixel %v is %v, the source's is %v", p, got, want)
		}
	}
}

func countRed(img *image.NRGBA) int {
	red := 0
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			if c := img.NRGBAAt(x, y); c.R > 200 && c.G < 80 {
				red++
			}
		}
	}
	return red
}
