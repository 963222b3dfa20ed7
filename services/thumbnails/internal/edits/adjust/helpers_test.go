package adjust

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/encode"
)

// scene is a photo-like w×h picture: a sky gradient with a sun, hills
// with texture, a person-like figure (skin and a red shirt) and a blue
// and yellow title bar, with a little per-pixel grain so that it
// compresses like a photograph.
func scene(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fw, fh := float64(w), float64(h)
	for y := range h {
		for x := range w {
			u, v := (float64(x)+0.5)/fw, (float64(y)+0.5)/fh
			// Sky: deep blue at the top to pale at the horizon.
			t := v / 0.6
			r, g, b := 70+130*t, 120+95*t, 190+50*t
			// Sun with a soft glow.
			if d := math.Hypot((u-0.78)*fw/fh, v-0.2); d < 0.2 {
				k := math.Max(0, 1-d/0.2)
				k *= k
				r, g, b = r+(255-r)*k, g+(225-g)*k, b+(160-b)*k
			}
			// Hills below a wavy horizon, darker lower down, textured.
			if v > 0.55+0.06*math.Sin(u*7) {
				tex := 12 * math.Sin(u*90) * math.Sin(v*70)
				r, g, b = 55+25*u+tex, 125-35*v+tex, 45+tex/2
			}
			// A figure: skin-coloured head over a red shirt.
			if math.Hypot((u-0.3)*fw/fh, (v-0.42)*1.2) < 0.11 {
				r, g, b = 225, 175, 145
			}
			if u > 0.2 && u < 0.4 && v > 0.56 && v < 0.95 {
				r, g, b = 200, 45, 40
			}
			// A title bar: yellow bars on a blue plate.
			if u > 0.55 && u < 0.95 && v > 0.68 && v < 0.9 {
				r, g, b = 30, 60, 150
				if (v > 0.72 && v < 0.77 || v > 0.81 && v < 0.86) && u > 0.58 && u < 0.92 {
					r, g, b = 250, 210, 40
				}
			}
			n := float64(hash(x, y)%13) - 6
			img.SetRGBA(x, y, color.RGBA{clamp8(r + n), clamp8(g + n), clamp8(b + n), 255})
		}
	}
	return img
}

// hash is a fixed pseudo-random value per pixel (grain that does not
// depend on a random source).
func hash(x, y int) uint32 {
	h := uint32(x)*374761393 + uint32(y)*668265263 //nolint:gosec // G115: hashing
	h = (h ^ h>>13) * 1274126177
	return h ^ h>>16
}

func jpegOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decoded checks that out holds a picture of its stated type and size and
// returns it.
func decoded(t testing.TB, out encode.Picture) image.Image {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(out.Data))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"jpeg": encode.ContentTypeJPEG, "png": encode.ContentTypePNG}[format]; want != out.ContentType {
		t.Fatalf("content type %s for %s data", out.ContentType, format)
	}
	if b := img.Bounds(); b.Dx() != out.Width || b.Dy() != out.Height {
		t.Fatalf("stated %d×%d, decoded %d×%d", out.Width, out.Height, b.Dx(), b.Dy())
	}
	return img
}

func facePhoto(t testing.TB) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(testkit.FacePhoto(t)))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func detectFaces(t testing.TB, img image.Image) []vision.Face {
	t.Helper()
	d, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	faces := d.Detect(img)
	if len(faces) == 0 {
		t.Fatal("no face found in the sample photo")
	}
	return faces
}

// lumaPlane is the BT.709 luma of img (at the origin) as floats.
func lumaPlane(img image.Image) ([]float64, int, int) {
	m := toRGBA(img)
	w, h := m.Rect.Dx(), m.Rect.Dy()
	out := make([]float64, w*h)
	for i := range out {
		p := m.Pix[4*i:]
		out[i] = 0.2126*float64(p[0]) + 0.7152*float64(p[1]) + 0.0722*float64(p[2])
	}
	return out, w, h
}

// ssim is the mean structural similarity of the lumas of a and b (same
// size) over 8×8 windows every 4 pixels (Wang et al. 2004, with their
// constants for 8-bit values).
func ssim(t testing.TB, a, b image.Image) float64 {
	t.Helper()
	la, w, h := lumaPlane(a)
	lb, wb, hb := lumaPlane(b)
	if w != wb || h != hb {
		t.Fatalf("ssim of %d×%d and %d×%d", w, h, wb, hb)
	}
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	sum, n := 0.0, 0
	for y := 0; y+8 <= h; y += 4 {
		for x := 0; x+8 <= w; x += 4 {
			var sa, sb, saa, sbb, sab float64
			for j := range 8 {
				for i := range 8 {
					p, q := la[(y+j)*w+x+i], lb[(y+j)*w+x+i]
					sa, sb, saa, sbb, sab = sa+p, sb+q, saa+p*p, sbb+q*q, sab+p*q
				}
			}
			const k = 64.0
			ma, mb := sa/k, sb/k
			va, vb, cov := saa/k-ma*ma, sbb/k-mb*mb, sab/k-ma*mb
			sum += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	return sum / float64(n)
}

// hfEnergy is the mean squared Laplacian of img's luma over the pixels of
// r for which in reports true: the high-frequency energy a blur removes
// and a sharpen adds.
func hfEnergy(img image.Image, in func(x, y int) bool) float64 {
	l, w, h := lumaPlane(img)
	sum, n := 0.0, 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			if !in(x, y) {
				continue
			}
			lap := 4*l[y*w+x] - l[y*w+x-1] - l[y*w+x+1] - l[(y-1)*w+x] - l[(y+1)*w+x]
			sum += lap * lap
			n++
		}
	}
	return sum / float64(n)
}

func everywhere(int, int) bool { return true }

// lab converts 8-bit sRGB to CIE Lab (D65), the test's own reference.
func lab(r, g, b uint8) (l, a, bb float64) {
	lin := func(v uint8) float64 {
		c := float64(v) / 255
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	R, G, B := lin(r), lin(g), lin(b)
	x := (0.4124*R + 0.3576*G + 0.1805*B) / 0.95047
	y := 0.2126*R + 0.7152*G + 0.0722*B
	z := (0.0193*R + 0.1192*G + 0.9505*B) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return 116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
}

// meanB is the mean b* of img: positive towards yellow, negative towards
// blue.
func meanB(img image.Image) float64 {
	m := toRGBA(img)
	sum := 0.0
	for i := 0; i < len(m.Pix); i += 4 {
		_, _, b := lab(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		sum += b
	}
	return sum / float64(len(m.Pix)/4)
}
