package fonts

import (
	"errors"
	"image"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// TestLoadDrawsText parses every embedded font and rasterises a word with
// it: the CFF outlines must come out as ink, not as an empty mask.
func TestLoadDrawsText(t *testing.T) {
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			f, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Load(name)
			if err != nil || again != f {
				t.Fatalf("second Load: %p %v, want the same parsed font %p", again, err, f)
			}
			face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 64, DPI: 72, Hinting: font.HintingNone})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = face.Close() }()
			dst := image.NewAlpha(image.Rect(0, 0, 400, 100))
			d := font.Drawer{Dst: dst, Src: image.Opaque, Face: face, Dot: fixed.P(10, 80)}
			width := d.MeasureString("HOOK 42").Ceil()
			if width < 100 || width > 390 {
				t.Fatalf("HOOK 42 measures %d px at 64 px", width)
			}
			d.DrawString("HOOK 42")
			ink := 0
			for _, a := range dst.Pix {
				if a > 128 {
					ink++
				}
			}
			// Seven glyphs at 64 px cover a few thousand pixels.
			if ink < 2000 {
				t.Fatalf("only %d inked pixels", ink)
			}
		})
	}
}

func TestLoadUnknown(t *testing.T) {
	if _, err := Load("comic"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Load(comic) = %v, want ErrUnknown", err)
	}
	if Known("comic") || !Known("display") {
		t.Fatal("Known disagrees with the embedded set")
	}
}
