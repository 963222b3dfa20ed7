package backdrop

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/draw"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/edits/matte"
)

// discCut is a cut-out made by hand: a textured disc, opaque inside, with
// a soft 4-pixel edge, over transparent pixels whose colour is garbage (it
// must not show).
func discCut(w, h int) *image.NRGBA {
	cut := image.NewNRGBA(image.Rect(0, 0, w, h))
	cx, cy, r := float64(w)/2, float64(h)/2, float64(h)/3
	for y := range h {
		for x := range w {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			a := min(max((r-d)/4, 0), 1)
			cut.SetNRGBA(x, y, color.NRGBA{
				R: uint8(40 + x%50), G: uint8(200 - y%60), B: uint8((x * y) % 256), //nolint:gosec // G115: small
				A: uint8(a * 255),
			})
		}
	}
	return cut
}

func TestReplace(t *testing.T) {
	w, h := 320, 180
	cut := discCut(w, h)
	bg, err := Parse("red")
	if err != nil {
		t.Fatal(err)
	}
	out := Replace(cut, bg)
	if out.Rect != cut.Rect {
		t.Fatalf("result bounds %v, cut-out %v", out.Rect, cut.Rect)
	}
	back := bg.Render(w, h)
	r := max(1, int(wrapFraction*float64(w)+0.5))
	var sum [3]float64
	n, interior, wrapped, edgeCloser := 0, 0, 0, 0
	for y := range h {
		for x := range w {
			o, c, b := out.NRGBAAt(x, y), cut.NRGBAAt(x, y), back.RGBAAt(x, y)
			if o.A != 255 {
				t.Fatalf("(%d,%d) not opaque: %v", x, y, o)
			}
			switch {
			case c.A == 0:
				if o.R != b.R || o.G != b.G || o.B != b.B {
					t.Fatalf("background pixel (%d,%d) = %v, background %v", x, y, o, b)
				}
				sum[0], sum[1], sum[2] = sum[0]+float64(o.R), sum[1]+float64(o.G), sum[2]+float64(o.B)
				n++
			case solid(cut, x, y, r):
				if o.R != c.R || o.G != c.G || o.B != c.B {
					t.Fatalf("subject pixel (%d,%d) = %v, cut-out %v", x, y, o, c)
				}
				interior++
			case c.A == 255:
				// Opaque but near the outline: the light wrap moves it
				// towards the new background.
				wrapped++
				switch before, after := colourDist(c, b), colourDist(o, b); {
				case after > before+1:
					t.Fatalf("edge pixel (%d,%d) moved away from the background: %v → %v, background %v", x, y, c, o, b)
				case after < before:
					edgeCloser++
				}
			}
		}
	}
	if interior == 0 || n == 0 || wrapped == 0 {
		t.Fatalf("degenerate fixture: %d interior, %d background, %d wrapped pixels", interior, n, wrapped)
	}
	if edgeCloser < wrapped/2 {
		t.Errorf("light wrap moved %d of %d edge pixels towards the background", edgeCloser, wrapped)
	}
	red := colour.Names["red"]
	if d := dist([3]float64{sum[0] / float64(n), sum[1] / float64(n), sum[2] / float64(n)}, [3]float64{float64(red.R), float64(red.G), float64(red.B)}); d > 30 {
		t.Errorf("background averages %.0f from %v", d, red)
	}
}

// solid reports whether every pixel within r of (x, y) is opaque.
func solid(img *image.NRGBA, x, y, r int) bool {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			p := image.Pt(x+dx, y+dy)
			if p.In(img.Rect) && img.NRGBAAt(p.X, p.Y).A != 255 {
				return false
			}
		}
	}
	return true
}

func colourDist(a color.NRGBA, b color.RGBA) float64 {
	return dist([3]float64{float64(a.R), float64(a.G), float64(a.B)}, [3]float64{float64(b.R), float64(b.G), float64(b.B)})
}

// widePhoto is the sample portrait on a 16:9 frame, its edge columns
// stretched sideways: a thumbnail-shaped real photograph.
func widePhoto(t testing.TB, h int) *image.RGBA {
	t.Helper()
	photo, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	pb := photo.Bounds()
	pw := pb.Dx() * h / pb.Dy()
	w := h * 16 / 9
	scaled := image.NewRGBA(image.Rect(0, 0, pw, h))
	draw.CatmullRom.Scale(scaled, scaled.Rect, photo, pb, draw.Src, nil)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	off := (w - pw) / 2
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, scaled.RGBAAt(min(max(x-off, 0), pw-1), y))
		}
	}
	return img
}

// TestWriteExamples writes the background-replace example
// (testdata/examples/edits/background-replace.jpg) for reviewers: the
// sample portrait cut out by matte's classical remover, on a sunset
// beach. Run with HOOKLINE_WRITE_EXAMPLES=1.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	wide := widePhoto(t, 720)
	cut, err := matte.Classical{}.Remove(t.Context(), wide, det.Detect(wide))
	if err != nil {
		t.Fatal(err)
	}
	bg, err := Parse("sunset beach")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, Replace(cut, bg), &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 150<<10 {
		t.Errorf("background-replace.jpg is %d KB", buf.Len()>>10)
	}
	if err := os.WriteFile(filepath.Join(dir, "background-replace.jpg"), buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: example pictures are public
		t.Fatal(err)
	}
	// Issue 22: the astronaut, seeded by her landmarks.
	marks, err := dlib.Open("")
	if err != nil {
		t.Fatal(err)
	}
	astronaut := testkit.EvalPhoto(t, "astronaut.png")
	cut, err = matte.Classical{}.Remove(t.Context(), astronaut, marks.Detect(astronaut))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := jpeg.Encode(&buf, Replace(cut, bg), &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "background-replace-astronaut.jpg"), buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: example pictures are public
		t.Fatal(err)
	}
}
