package tesseract

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"os"
	"strings"
	"sync"
	"testing"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/fonts"
	"hookline.dev/pkg/imaging"
	"hookline.dev/pkg/testkit"
)

// reader is shared by the tests: a Reader is safe for concurrent use.
var reader = sync.OnceValues(func() (*Reader, error) { return New(dir(), 0) })

// dir is the model directory: TESSDATA_PREFIX when set, else Debian's.
func dir() string {
	if d := os.Getenv("TESSDATA_PREFIX"); d != "" {
		return d
	}
	return DefaultDir
}

func read(t *testing.T, img image.Image) []Word {
	t.Helper()
	r, err := reader()
	if err != nil {
		t.Fatal(err)
	}
	words, err := r.Read(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	return words
}

// photo is an evaluation photo cropped to w:h about its centre and scaled
// to w×h.
func photo(t *testing.T, name string, w, h int) *image.RGBA {
	t.Helper()
	src := testkit.EvalPhoto(t, name)
	b := src.Bounds()
	crop := b
	if b.Dx()*h > b.Dy()*w {
		cw := b.Dy() * w / h
		crop.Min.X += (b.Dx() - cw) / 2
		crop.Max.X = crop.Min.X + cw
	} else {
		ch := b.Dx() * h / w
		crop.Min.Y += (b.Dy() - ch) / 2
		crop.Max.Y = crop.Min.Y + ch
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Rect, src, crop, draw.Src, nil)
	return dst
}

// letter sets text with the thumbnail lettering (white Inter Display
// Black, a black outline) to fit box of dst, and returns the ink's box.
func letter(t *testing.T, dst *image.RGBA, text string, font fonts.Name, box image.Rectangle) image.Rectangle {
	t.Helper()
	st := imaging.Style{Font: font, Case: imaging.Upper, Fill: color.NRGBA{255, 255, 255, 255},
		Outline: color.NRGBA{0, 0, 0, 255}, OutlineWidth: 0.08, Shadow: 0.5}
	b, err := imaging.Fit(text, st, box.Size(), 2, float64(box.Dy()))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Draw(dst, box.Min); err != nil {
		t.Fatal(err)
	}
	return b.Ink().Add(box.Min)
}

func texts(ws []Word) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return strings.Join(out, " ")
}

func TestReadsLetteringOverPhotos(t *testing.T) {
	cases := []struct {
		photo, text string
		font        fonts.Name
	}{
		{"astronaut.png", "HOUSTON WE HAVE A PROBLEM", fonts.Heavy},
		{"rocket.jpg", "LAUNCH DAY", fonts.Display},
		{"coffee.png", "BEST ESPRESSO EVER", fonts.Sans},
	}
	for _, c := range cases {
		t.Run(c.photo, func(t *testing.T) {
			img := photo(t, c.photo, 640, 360)
			ink := letter(t, img, c.text, c.font, image.Rect(280, 40, 620, 200))
			words := read(t, img)
			t.Logf("read %q %+v", texts(words), words)
			// Tight heavy capitals may come back without the space
			// between two words: the letters are what must be read.
			var inside strings.Builder
			for _, w := range words {
				if w.Box.Overlaps(ink) {
					inside.WriteString(w.Text)
				}
			}
			for _, want := range strings.Fields(c.text) {
				if !strings.Contains(inside.String(), want) {
					t.Errorf("%q not read inside the ink box %v: %+v", want, ink, words)
				}
			}
		})
	}
}

func TestPhotosWithoutText(t *testing.T) {
	for _, name := range []string{"astronaut.png", "camera.png", "chelsea.png", "coffee.png", "plant.jpg", "rocket.jpg"} {
		t.Run(name, func(t *testing.T) {
			if words := read(t, photo(t, name, 640, 360)); len(words) > 0 {
				t.Errorf("read %+v in a photo without text", words)
			}
		})
	}
}
