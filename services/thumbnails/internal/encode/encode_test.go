package encode

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // the JPEGs read back
	"testing"
)

// A cut-out (left half transparent, right half opaque red, a soft edge
// between) as PNG keeps every alpha value; as JPEG its transparent part
// is white and its opaque part keeps its colour.
func TestEncode(t *testing.T) {
	src := image.NewNRGBA(image.Rect(5, 5, 101, 69))
	for y := 5; y < 69; y++ {
		for x := 5; x < 101; x++ {
			a := uint8(min(max((x-45)*16, 0), 255)) //nolint:gosec // G115: clamped
			src.SetNRGBA(x, y, color.NRGBA{200, 30, 40, a})
		}
	}
	p, err := Encode(src, true)
	if err != nil {
		t.Fatal(err)
	}
	got := convert(image.NewNRGBA, decoded(t, p))
	if p.ContentType != ContentTypePNG || p.Width != 96 || p.Height != 64 {
		t.Fatalf("%s %d×%d", p.ContentType, p.Width, p.Height)
	}
	for y := range 64 {
		for x := range 96 {
			if s, g := src.NRGBAAt(5+x, 5+y), got.NRGBAAt(x, y); g.A != s.A || s.A == 255 && g != s {
				t.Fatalf("PNG (%d,%d): %v became %v", x, y, s, g)
			}
		}
	}

	j, err := Encode(src, false)
	if err != nil {
		t.Fatal(err)
	}
	if j.ContentType != ContentTypeJPEG || j.Width != 96 || j.Height != 64 {
		t.Fatalf("%s %d×%d", j.ContentType, j.Width, j.Height)
	}
	rgba := convert(image.NewRGBA, decoded(t, j))
	near := func(c color.RGBA, r, g, b int) bool {
		return abs(int(c.R)-r) <= 6 && abs(int(c.G)-g) <= 6 && abs(int(c.B)-b) <= 6
	}
	if c := rgba.RGBAAt(10, 30); !near(c, 255, 255, 255) {
		t.Errorf("transparent part became %v, want white", c)
	}
	if c := rgba.RGBAAt(85, 30); !near(c, 200, 30, 40) {
		t.Errorf("opaque part became %v", c)
	}

	if _, err := Encode(image.NewRGBA(image.Rect(0, 0, 0, 10)), false); err == nil {
		t.Error("an empty picture was encoded")
	}
}

func abs(v int) int { return max(v, -v) }

// decoded is out's picture, once out's content type and size are checked
// against its data.
func decoded(t testing.TB, out Picture) image.Image {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(out.Data))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"jpeg": ContentTypeJPEG, "png": ContentTypePNG}[format]; want != out.ContentType {
		t.Fatalf("content type %s for %s data", out.ContentType, format)
	}
	if b := img.Bounds(); b.Dx() != out.Width || b.Dy() != out.Height {
		t.Fatalf("stated %d×%d, decoded %d×%d", out.Width, out.Height, b.Dx(), b.Dy())
	}
	return img
}

// convert copies img, at the origin, into a picture made by mk.
func convert[M draw.Image](mk func(image.Rectangle) M, img image.Image) M {
	b := img.Bounds()
	m := mk(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Bounds(), img, b.Min, draw.Src)
	return m
}
