package adjust

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/encode"
)

// boxDown averages k×k blocks: the upscale undone, for comparing with the
// source.
func boxDown(img image.Image, k int) *image.RGBA {
	m := toRGBA(img)
	w, h := m.Rect.Dx()/k, m.Rect.Dy()/k
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			var sum [4]int
			for j := range k {
				for i := range k {
					p := m.PixOffset(x*k+i, y*k+j)
					for c := range 4 {
						sum[c] += int(m.Pix[p+c])
					}
				}
			}
			for c := range 4 {
				out.Pix[out.PixOffset(x, y)+c] = uint8((sum[c] + k*k/2) / (k * k)) //nolint:gosec // G115: a mean of bytes
			}
		}
	}
	return out
}

func TestUpscaleEnlargesFaithfully(t *testing.T) {
	for _, tc := range []struct {
		scale int
		src   image.Image
	}{
		{2, scene(200, 112)},
		{4, scene(96, 54)},
		{2, facePhoto(t)},
	} {
		b := tc.src.Bounds()
		out, err := Upscale(jpegOf(t, tc.src), tc.scale)
		if err != nil {
			t.Fatal(err)
		}
		if out.ContentType != encode.ContentTypeJPEG || out.Width != b.Dx()*tc.scale || out.Height != b.Dy()*tc.scale {
			t.Fatalf("%dx of %d×%d: %s %d×%d", tc.scale, b.Dx(), b.Dy(), out.ContentType, out.Width, out.Height)
		}
		back := boxDown(decoded(t, out), tc.scale)
		s := ssim(t, back, tc.src)
		t.Logf("%dx of %d×%d: SSIM %.3f", tc.scale, b.Dx(), b.Dy(), s)
		if s < 0.9 {
			t.Errorf("%dx of %d×%d: SSIM %.3f against the source when shrunk back", tc.scale, b.Dx(), b.Dy(), s)
		}
	}
}

// The sharpening is edge-aware: an enlarged edge gets steeper than
// Lanczos alone leaves it, a smooth gradient (differences under the flat
// threshold) is left as Lanczos made it, and the result is crisper than a
// plain bilinear enlargement.
func TestUpscaleSharpensEdgesNotFlats(t *testing.T) {
	const w, h = 160, 100
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(90 + x*60/w) //nolint:gosec // G115: 90..150
			src.SetRGBA(x, y, color.RGBA{v, v, v + 20, 255})
		}
	}
	draw.Draw(src, image.Rect(100, 30, 140, 70), image.NewUniform(color.RGBA{20, 20, 30, 255}), image.Point{}, draw.Src)
	data := pngOf(t, src)

	out, err := Upscale(data, 2)
	if err != nil {
		t.Fatal(err)
	}
	sharp := decoded(t, out)
	plain := lanczosOnly(t, data, 2)
	bilinear := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
	xdraw.BiLinear.Scale(bilinear, bilinear.Rect, src, src.Rect, draw.Src, nil)

	edge := func(x, y int) bool {
		in := image.Rect(196, 56, 284, 144)
		out := image.Rect(204, 64, 276, 136)
		return image.Pt(x, y).In(in) && !image.Pt(x, y).In(out)
	}
	flat := func(x, y int) bool { return x > 10 && x < 170 && y > 10 && y < 190 }
	t.Logf("edge energy %.1f vs %.1f, flat %.2f vs %.2f, all %.1f vs bilinear %.1f",
		hfEnergy(sharp, edge), hfEnergy(plain, edge), hfEnergy(sharp, flat), hfEnergy(plain, flat),
		hfEnergy(sharp, everywhere), hfEnergy(bilinear, everywhere))
	if s, p := hfEnergy(sharp, edge), hfEnergy(plain, edge); s < 1.2*p {
		t.Errorf("edges: energy %.1f sharpened, %.1f Lanczos only", s, p)
	}
	if s, p := hfEnergy(sharp, flat), hfEnergy(plain, flat); s > 1.05*p+0.5 {
		t.Errorf("smooth gradient: energy %.2f sharpened, %.2f Lanczos only", s, p)
	}
	if s, b := hfEnergy(sharp, everywhere), hfEnergy(bilinear, everywhere); s <= b {
		t.Errorf("energy %.1f, bilinear enlargement %.1f", s, b)
	}
}

// lanczosOnly is the upscale without its sharpening, straight from
// libvips.
func lanczosOnly(t *testing.T, data []byte, scale int) image.Image {
	t.Helper()
	ref, _, err := load(data)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if err := ref.Resize(float64(scale), vips.KernelLanczos3); err != nil {
		t.Fatal(err)
	}
	out, err := export(ref, vips.ImageTypePNG)
	if err != nil {
		t.Fatal(err)
	}
	return decoded(t, out)
}

// A PNG cut-out stays a PNG with its transparency, and its opaque edge
// does not darken (libvips resizes premultiplied).
func TestUpscaleKeepsPNGTransparency(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			if x >= 32 {
				src.SetNRGBA(x, y, color.NRGBA{230, 200, 60, 255})
			}
		}
	}
	out, err := Upscale(pngOf(t, src), 4)
	if err != nil {
		t.Fatal(err)
	}
	if out.ContentType != encode.ContentTypePNG || out.Width != 256 || out.Height != 192 {
		t.Fatalf("%s %d×%d", out.ContentType, out.Width, out.Height)
	}
	got := toNRGBA(decoded(t, out))
	for y := 0; y < 192; y += 7 {
		if a := got.NRGBAAt(20, y).A; a != 0 {
			t.Fatalf("transparent side has alpha %d", a)
		}
		if c := got.NRGBAAt(230, y); c.A != 255 {
			t.Fatalf("opaque side has alpha %d", c.A)
		}
		// The first mostly opaque pixels keep the colour.
		for x := 120; x < 140; x++ {
			if c := got.NRGBAAt(x, y); c.A > 128 && (c.R < 200 || c.G < 170) {
				t.Fatalf("edge pixel (%d,%d) darkened to %v", x, y, c)
			}
		}
	}
}

func TestCheckUpscale(t *testing.T) {
	for _, ok := range []struct{ w, h, scale int }{
		{1280, 720, 2}, {1280, 720, 4}, {3162, 3162, 2}, {1581, 1581, 4}, {1, 1, 4},
	} {
		if err := CheckUpscale(ok.w, ok.h, ok.scale); err != nil {
			t.Errorf("%d×%d ×%d refused: %v", ok.w, ok.h, ok.scale, err)
		}
	}
	for _, bad := range []struct{ w, h, scale int }{
		{3163, 3163, 2}, {1582, 1582, 4}, {4000, 3000, 4}, {1280, 720, 3}, {1280, 720, 1},
	} {
		err := CheckUpscale(bad.w, bad.h, bad.scale)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.InvalidRequest {
			t.Fatalf("%d×%d ×%d: %v", bad.w, bad.h, bad.scale, err)
		}
		if fields, _ := e.Details["fields"].(map[string]string); fields["scale"] == "" {
			t.Errorf("%d×%d ×%d: the error does not name scale: %v", bad.w, bad.h, bad.scale, e.Details)
		}
	}
}

func TestUpscaleRefusesPastTheCap(t *testing.T) {
	big := image.NewRGBA(image.Rect(0, 0, 1600, 1600))
	_, err := Upscale(jpegOf(t, big), 4)
	if !apierr.Is(err, apierr.InvalidRequest) {
		t.Fatalf("1600×1600 ×4: %v", err)
	}
}

// BenchmarkUpscale2x enlarges a 1280×720 photo-like JPEG to 2560×1440,
// from encoded bytes to encoded bytes.
func BenchmarkUpscale2x(b *testing.B) {
	src := jpegOf(b, scene(1280, 720))
	if _, err := Upscale(src, 2); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Upscale(src, 2); err != nil {
			b.Fatal(err)
		}
	}
}
