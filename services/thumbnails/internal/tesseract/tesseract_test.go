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

	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/imaging"
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

// letter sets text with the thumbnail lettering (white fill, a black
// outline and a shadow) in font to fit box of dst, and returns the ink's
// box.
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
		// Bebas Neue, the layouts' headline face: condensed capitals
		// whose I is a bar 0.11 as wide as it is tall, and whose word
		// spaces are narrow enough for the photo between two outlined
		// words to bridge them.
		{"astronaut.png", "HOUSTON WE HAVE A PROBLEM", fonts.Display},
		{"chelsea.png", "I TRIED IT FOR 30 DAYS", fonts.Display},
		{"plant.jpg", "THIS CHANGES EVERYTHING", fonts.Display},
	}
	for _, c := range cases {
		t.Run(c.photo+"/"+string(c.font), func(t *testing.T) {
			img := photo(t, c.photo, 640, 360)
			ink := letter(t, img, c.text, c.font, image.Rect(280, 40, 620, 200))
			words := read(t, img)
			t.Logf("read %q %+v", texts(words), words)
			left := map[string]int{}
			for _, w := range words {
				if w.Box.Overlaps(ink) {
					left[w.Text]++
				}
			}
			for _, want := range strings.Fields(c.text) {
				if left[want] == 0 {
					t.Errorf("%q not read as a word inside the ink box %v: %q", want, ink, texts(words))
				}
				left[want]--
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
