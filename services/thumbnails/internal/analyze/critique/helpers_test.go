package critique

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"sync"
	"testing"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/tesseract"
)

// detector and ocr are shared by the tests: they are safe for concurrent
// use.
var (
	detector = sync.OnceValues(vision.New)
	ocr      = sync.OnceValues(func() (*tesseract.Reader, error) { return tesseract.New(tesseract.DefaultDir, 0) })
)

func reader(t testing.TB) Reader {
	t.Helper()
	r, err := ocr()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func measure(t testing.TB, img image.Image, fs []vision.Face) Metrics {
	t.Helper()
	m, err := Measure(context.Background(), img, fs, reader(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func analyze(t testing.TB, img image.Image, fs []vision.Face, niche string) Critique {
	t.Helper()
	c, err := Analyze(context.Background(), img, fs, reader(t), niche)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func faces(t testing.TB, img image.Image) []vision.Face {
	t.Helper()
	d, err := detector()
	if err != nil {
		t.Fatal(err)
	}
	return d.Detect(img)
}

// facePhoto is pigo's sample portrait (320×400).
func facePhoto(t testing.TB) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// flat is a w×h picture of one colour.
func flat(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

// poster is a high-contrast w×h thumbnail: a saturated magenta-to-orange
// background, the sample portrait scaled to 80% of the height on the
// left third, and a two-line bold white headline with a dark stroke on
// the right. It returns the portrait's box too.
func poster(t testing.TB, w, h int) (*image.RGBA, image.Rectangle) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			u := float64(x+y) / float64(w+h)
			img.SetRGBA(x, y, color.RGBA{R: uint8(200 + 55*u), G: uint8(20 + 110*u), B: uint8(150 - 130*u), A: 255})
		}
	}
	face := facePhoto(t)
	fh := h * 4 / 5
	fw := fh * face.Bounds().Dx() / face.Bounds().Dy()
	box := image.Rect(w/3-fw/2, h-fh, w/3+fw/2, h)
	draw.CatmullRom.Scale(img, box, face, face.Bounds(), draw.Src, nil)
	size := float64(h) / 7
	headline(t, img, fonts.Heavy, size, image.Pt(w*14/25, h/3), "NO WAY", color.White, color.Black, max(2, h/120))
	headline(t, img, fonts.Heavy, size, image.Pt(w*14/25, h/3+int(size*1.1)), "IT WORKS", color.White, color.Black, max(2, h/120))
	return img, box
}

// headline draws text in font name at size pixels, its baseline starting
// at dot, filled with fill and outlined with a stroke px wide (0: none).
func headline(t testing.TB, dst *image.RGBA, name fonts.Name, size float64, dot image.Point, text string, fill, stroke color.Color, px int) {
	t.Helper()
	f, err := fonts.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = face.Close() }() // an opentype face holds no resources to fail on
	mask := image.NewAlpha(dst.Bounds())
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: face, Dot: fixed.P(dot.X, dot.Y)}
	d.DrawString(text)
	if px > 0 {
		draw.DrawMask(dst, dst.Bounds(), image.NewUniform(stroke), image.Point{}, imaging.Dilate(mask, float64(px)), image.Point{}, draw.Over)
	}
	draw.DrawMask(dst, dst.Bounds(), image.NewUniform(fill), image.Point{}, mask, image.Point{}, draw.Over)
}

// caption is a w×h picture of colour bg with a two-line headline in fg,
// without stroke, centred-left.
func caption(t testing.TB, w, h int, fg, bg color.RGBA) *image.RGBA {
	t.Helper()
	img := flat(w, h, bg)
	size := float64(h) / 7
	headline(t, img, fonts.Heavy, size, image.Pt(w/10, h/2), "READ THIS", fg, nil, 0)
	headline(t, img, fonts.Heavy, size, image.Pt(w/10, h/2+int(size*1.1)), "IF YOU CAN", fg, nil, 0)
	return img
}

// hash is a fixed pseudo-random value per pixel (texture that does not
// depend on a random source).
func hash(x, y int) uint32 {
	h := uint32(x)*374761393 + uint32(y)*668265263 //nolint:gosec // G115: hashing
	h = (h ^ h>>13) * 1274126177
	return h ^ h>>16
}

// astronautPoster is a w×h face-and-text thumbnail: the astronaut
// portrait (shared evaluation photo) filling the height on the left, a
// deep blue to orange backdrop, and "HOUSTON WE HAVE A PROBLEM" set with
// the thumbnail lettering (white Inter Display Black, dark outline and
// shadow) over the right half. It returns the headline's ink box.
func astronautPoster(t testing.TB, w, h int) (*image.RGBA, image.Rectangle) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			u := float64(x) / float64(w)
			img.SetRGBA(x, y, color.RGBA{R: uint8(20 + 220*u), G: uint8(40 + 60*u), B: uint8(140 - 120*u), A: 255})
		}
	}
	photo := testkit.EvalPhoto(t, "astronaut.png")
	draw.CatmullRom.Scale(img, image.Rect(0, 0, h, h), photo, photo.Bounds(), draw.Src, nil)
	st := imaging.Style{Font: fonts.Heavy, Case: imaging.Upper, Fill: color.NRGBA{255, 255, 255, 255},
		Outline: color.NRGBA{A: 255}, OutlineWidth: 0.08, Shadow: 0.5}
	box := image.Rect(w*11/20, h/10, w*39/40, h*9/10)
	b, err := imaging.Fit("HOUSTON WE HAVE A PROBLEM", st, box.Size(), 3, float64(h)/5)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Draw(img, box.Min); err != nil {
		t.Fatal(err)
	}
	return img, b.Ink().Add(box.Min)
}
