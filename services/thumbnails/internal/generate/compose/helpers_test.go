package compose

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"os"
	"sync"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/fluentemoji"
)

var (
	engOnce sync.Once
	eng     *Engine
	engErr  error
)

// newEngine is the compositor with the object art when it is installed
// (HOOKLINE_EMOJI_DIR, scripts/deps.sh emoji), without it otherwise.
func newEngine(t testing.TB) *Engine {
	t.Helper()
	engOnce.Do(func() {
		o := Options{}
		if dir := os.Getenv("HOOKLINE_EMOJI_DIR"); dir != "" {
			o.Art, engErr = fluentemoji.Open(dir)
			if engErr != nil {
				return
			}
		}
		eng, engErr = New(o)
	})
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng
}

// artEngine is newEngine for a test of the object art: without the art
// installed it is skipped (fails under HOOKLINE_TEST_REQUIRE).
func artEngine(t testing.TB) *Engine {
	t.Helper()
	e := newEngine(t)
	if e.art == nil {
		testkit.Missing(t, "the object art is not installed: scripts/deps.sh emoji, then HOOKLINE_EMOJI_DIR")
	}
	return e
}

// photoFace is a square crop of the portrait in pigo's testdata (the
// module the assets service's face detector pins), the kind of crop the
// assets service stores for a face. The photo is not copied into this
// repository; a missing module fails the test.
func photoFace(t testing.TB) engine.Face {
	t.Helper()
	src, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	b := src.Bounds()
	s := b.Dx()
	sq := image.NewRGBA(image.Rect(0, 0, s, s))
	draw.Draw(sq, sq.Rect, src, image.Pt(b.Min.X, b.Min.Y+(b.Dy()-s)/2), draw.Src)
	return engine.Face{Name: "sample", Crop: encodePicture(t, sq)}
}

// flatPicture is a w×h JPEG of one colour.
func flatPicture(t testing.TB, w, h int, c color.RGBA) engine.Picture {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.NewUniform(c), image.Point{}, draw.Src)
	return encodePicture(t, img)
}

func encodePicture(t testing.TB, img image.Image) engine.Picture {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return engine.Picture{Data: buf.Bytes(), Img: img}
}

func warmStyle() *engine.Style {
	return &engine.Style{
		Name: "sunset",
		Palette: []engine.Swatch{
			{Color: color.RGBA{38, 12, 40, 255}, Weight: 0.4},
			{Color: color.RGBA{140, 30, 70, 255}, Weight: 0.25},
			{Color: color.RGBA{255, 120, 40, 255}, Weight: 0.2},
			{Color: color.RGBA{255, 210, 60, 255}, Weight: 0.15},
		},
		Brightness: 0.55, Contrast: 0.7, Saturation: 0.8, Warmth: 0.5,
	}
}

func decode(t testing.TB, r engine.Result) image.Image {
	t.Helper()
	if r.ContentType != "image/jpeg" {
		t.Fatalf("content type %q", r.ContentType)
	}
	img, err := jpeg.Decode(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatalf("decode result: %v", err)
	}
	if b := img.Bounds(); b.Dx() != r.Width || b.Dy() != r.Height {
		t.Fatalf("decoded %v, result says %d×%d", b, r.Width, r.Height)
	}
	return img
}

func generate(t testing.TB, req engine.Request) engine.Result {
	t.Helper()
	res, err := newEngine(t).Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func engineReq(prompt string) engine.Request { return engine.Request{Prompt: prompt} }
