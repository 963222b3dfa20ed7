package style

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/pkg/media/colour"
)

func solid(w, h int, c color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

func analyze(t *testing.T, imgs ...image.Image) Profile {
	t.Helper()
	p, err := Analyze(imgs, 42)
	if err != nil {
		t.Fatal(err)
	}
	checkPaletteInvariants(t, p)
	return p
}

func checkPaletteInvariants(t *testing.T, p Profile) {
	t.Helper()
	var sum float64
	seen := map[string]bool{}
	for i, s := range p.Palette {
		if len(s.Hex) != 7 || s.Hex[0] != '#' || strings.ToLower(s.Hex) != s.Hex {
			t.Errorf("swatch %d hex %q, want lowercase #rrggbb", i, s.Hex)
		}
		if seen[s.Hex] {
			t.Errorf("duplicate swatch %s", s.Hex)
		}
		seen[s.Hex] = true
		if s.Weight <= 0 || s.Weight > 1 {
			t.Errorf("swatch %d weight %v", i, s.Weight)
		}
		if i > 0 && p.Palette[i-1].Weight < s.Weight {
			t.Errorf("palette not sorted by weight: %v", p.Palette)
		}
		sum += s.Weight
	}
	if len(p.Palette) == 0 || len(p.Palette) > PaletteSize {
		t.Errorf("palette has %d swatches", len(p.Palette))
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("weights sum to %v", sum)
	}
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// hexNear reports whether two #rrggbb colours differ by at most tol per
// channel, allowing for rounding through CIELAB.
func hexNear(a, b string, tol int) bool {
	var ca, cb [3]int
	for i := range 3 {
		ca[i] = hexByte(a[1+2*i:])
		cb[i] = hexByte(b[1+2*i:])
	}
	for i := range 3 {
		if d := ca[i] - cb[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}

func hexByte(s string) int {
	v := 0
	for _, ch := range s[:2] {
		v *= 16
		v += strings.IndexRune("0123456789abcdef", ch)
	}
	return v
}

func TestRedAndBlue(t *testing.T) {
	p := analyze(t, solid(64, 48, color.RGBA{255, 0, 0, 255}), solid(200, 100, color.RGBA{0, 0, 255, 255}))
	if len(p.Palette) != 2 {
		t.Fatalf("palette %v, want exactly red and blue", p.Palette)
	}
	for _, want := range []string{"#ff0000", "#0000ff"} {
		found := false
		for _, s := range p.Palette {
			if hexNear(s.Hex, want, 1) {
				found = true
				// Each reference counts equally although their sizes differ.
				if !near(s.Weight, 0.5, 1e-9) {
					t.Errorf("%s weight %v, want 0.5", s.Hex, s.Weight)
				}
			}
		}
		if !found {
			t.Errorf("palette %v lacks %s", p.Palette, want)
		}
	}
	// Red: saturation 1, warmth +1; blue: saturation 1, warmth −1.
	if !near(p.Saturation, 1, 1e-9) || !near(p.Warmth, 0, 1e-9) || !near(p.Contrast, 0, 1e-9) {
		t.Errorf("profile %+v", p)
	}
	if want := (0.2126 + 0.0722) / 2; !near(p.Brightness, want, 1e-9) {
		t.Errorf("brightness %v, want %v", p.Brightness, want)
	}
}

func TestRedAndBlueInOneImage(t *testing.T) {
	// Three quarters red, one quarter blue, as a decoded JPEG would arrive
	// (YCbCr), so the exact colours blur slightly at the edge.
	img := solid(400, 400, color.RGBA{255, 0, 0, 255})
	draw.Draw(img, image.Rect(300, 0, 400, 400), image.NewUniform(color.RGBA{0, 0, 255, 255}), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	p := analyze(t, dec)
	top := p.Palette[0]
	if !hexNear(top.Hex, "#ff0000", 12) || !near(top.Weight, 0.75, 0.05) {
		t.Errorf("top swatch %v, want ~#ff0000 at ~0.75 (palette %v)", top, p.Palette)
	}
	var blue float64
	for _, s := range p.Palette {
		if hexNear(s.Hex, "#0000ff", 12) {
			blue += s.Weight
		}
	}
	if !near(blue, 0.25, 0.05) {
		t.Errorf("blue weight %v, want ~0.25 (palette %v)", blue, p.Palette)
	}
}

func TestWhiteAndBlack(t *testing.T) {
	white := analyze(t, solid(50, 50, color.White))
	if !near(white.Brightness, 1, 1e-9) || !near(white.Contrast, 0, 1e-9) || white.Saturation != 0 || white.Warmth != 0 {
		t.Errorf("white: %+v", white)
	}
	if len(white.Palette) != 1 || white.Palette[0].Hex != "#ffffff" || white.Palette[0].Weight != 1 {
		t.Errorf("white palette %v", white.Palette)
	}
	black := analyze(t, image.NewGray(image.Rect(0, 0, 10, 10)))
	if black.Brightness != 0 || black.Saturation != 0 || black.Palette[0].Hex != "#000000" {
		t.Errorf("black: %+v", black)
	}

	// Half black, half white: luminance 0 or 1 in equal parts, the
	// maximum RMS contrast of 0.5.
	split := image.NewGray(image.Rect(0, 0, 100, 100))
	draw.Draw(split, image.Rect(50, 0, 100, 100), image.NewUniform(color.White), image.Point{}, draw.Src)
	p := analyze(t, split)
	if !near(p.Contrast, 0.5, 1e-9) || !near(p.Brightness, 0.5, 1e-9) {
		t.Errorf("split: %+v", p)
	}
	// A white and a black reference: contrast is within references, so 0.
	if p := analyze(t, solid(20, 20, color.White), solid(20, 20, color.Black)); !near(p.Contrast, 0, 1e-9) {
		t.Errorf("white+black contrast %v, want 0", p.Contrast)
	}
}

func TestWarmth(t *testing.T) {
	orange := analyze(t, solid(64, 64, color.RGBA{255, 140, 30, 255}))
	if orange.Warmth <= 0 || !near(orange.Warmth, 225.0/255, 1e-9) {
		t.Errorf("orange warmth %v", orange.Warmth)
	}
	blue := analyze(t, solid(64, 64, color.RGBA{40, 90, 220, 255}))
	if blue.Warmth >= 0 {
		t.Errorf("blue warmth %v, want < 0", blue.Warmth)
	}
	grey := analyze(t, solid(64, 64, color.RGBA{128, 128, 128, 255}))
	if grey.Warmth != 0 || grey.Saturation != 0 {
		t.Errorf("grey %+v", grey)
	}
	if !near(grey.Brightness, colour.SRGBToLinear(128.0/255), 1e-12) {
		t.Errorf("grey brightness %v", grey.Brightness)
	}
}

// noisy returns a w×h image with a diagonal gradient, a few flat blocks of
// fixed colours and noise: many distinct colours, like a photo.
func noisy(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := int(rng.UintN(48)) - 24
			img.SetRGBA(x, y, color.RGBA{
				clamp8(255*x/w + n),
				clamp8(255*y/h + n),
				clamp8(255*(x+y)/(w+h) - n),
				255,
			})
		}
	}
	blocks := []color.RGBA{{230, 40, 40, 255}, {20, 20, 30, 255}, {250, 220, 60, 255}}
	for i, c := range blocks {
		r := image.Rect(w*i/4, h/3, w*i/4+w/6, h/3+h/4)
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	return img
}

func clamp8(v int) uint8 { return uint8(max(0, min(255, v))) }

func TestDeterministic(t *testing.T) {
	imgs := []image.Image{noisy(320, 180, 1), noisy(200, 300, 2), solid(50, 50, color.RGBA{10, 200, 90, 255})}
	a, err := Analyze(imgs, 7)
	if err != nil {
		t.Fatal(err)
	}
	checkPaletteInvariants(t, a)
	if len(a.Palette) != PaletteSize {
		t.Errorf("palette of a many-coloured set has %d swatches: %v", len(a.Palette), a.Palette)
	}
	for range 3 {
		b, err := Analyze(imgs, 7)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("same seed, different profiles:\n%+v\n%+v", a, b)
		}
	}
	// Other seeds may pick other centres but must stay valid.
	for seed := range int64(5) {
		p, err := Analyze(imgs, seed)
		if err != nil {
			t.Fatal(err)
		}
		checkPaletteInvariants(t, p)
	}
}

func TestFewDistinctColours(t *testing.T) {
	img := solid(90, 30, color.RGBA{255, 255, 255, 255})
	draw.Draw(img, image.Rect(30, 0, 60, 30), image.NewUniform(color.RGBA{0, 128, 0, 255}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(60, 0, 90, 30), image.NewUniform(color.RGBA{0, 0, 0, 255}), image.Point{}, draw.Src)
	p := analyze(t, img)
	if len(p.Palette) != 3 {
		t.Fatalf("palette %v, want 3 swatches", p.Palette)
	}
	got := map[string]float64{}
	for _, s := range p.Palette {
		got[s.Hex] = s.Weight
	}
	for _, hex := range []string{"#ffffff", "#008000", "#000000"} {
		if !near(got[hex], 1.0/3, 1e-9) {
			t.Errorf("%s weight %v, want 1/3 (palette %v)", hex, got[hex], p.Palette)
		}
	}
}

func TestImageTypesAgree(t *testing.T) {
	// The same colours through every fast path and the generic one.
	src := noisy(120, 80, 3)
	nrgba := image.NewNRGBA(src.Bounds())
	draw.Draw(nrgba, nrgba.Bounds(), src, image.Point{}, draw.Src)
	rgba64 := image.NewRGBA64(src.Bounds())
	draw.Draw(rgba64, rgba64.Bounds(), src, image.Point{}, draw.Src)
	want := analyze(t, src)
	for name, img := range map[string]image.Image{"nrgba": nrgba, "rgba64": rgba64} {
		if got := analyze(t, img); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	// A sub-image with an offset origin is sampled within its bounds.
	sub := solid(100, 100, color.RGBA{0, 0, 255, 255})
	draw.Draw(sub, image.Rect(50, 50, 100, 100), image.NewUniform(color.RGBA{255, 0, 0, 255}), image.Point{}, draw.Src)
	p := analyze(t, sub.SubImage(image.Rect(50, 50, 100, 100)))
	if len(p.Palette) != 1 || p.Palette[0].Hex != "#ff0000" {
		t.Errorf("sub-image palette %v", p.Palette)
	}
	// Paletted images (e.g. from a GIF-derived PNG) go through At.
	pal := image.NewPaletted(image.Rect(0, 0, 10, 10), color.Palette{color.RGBA{255, 140, 30, 255}})
	if p := analyze(t, pal); len(p.Palette) != 1 || p.Palette[0].Hex != "#ff8c1e" {
		t.Errorf("paletted palette %v", p.Palette)
	}
}

func TestTransparentPixelsIgnored(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	draw.Draw(img, image.Rect(0, 0, 20, 40), image.NewUniform(color.NRGBA{0, 200, 0, 255}), image.Point{}, draw.Src)
	// The right half is fully transparent red: invisible, so ignored.
	draw.Draw(img, image.Rect(20, 0, 40, 40), image.NewUniform(color.NRGBA{255, 0, 0, 0}), image.Point{}, draw.Src)
	p := analyze(t, img)
	if len(p.Palette) != 1 || p.Palette[0].Hex != "#00c800" {
		t.Errorf("palette %v, want only #00c800", p.Palette)
	}
	// Half-transparent premultiplied pixels are measured at their colour.
	semi := image.NewRGBA(image.Rect(0, 0, 4, 4))
	draw.Draw(semi, semi.Bounds(), image.NewUniform(color.NRGBA{200, 100, 50, 200}), image.Point{}, draw.Src)
	if p := analyze(t, semi); !hexNear(p.Palette[0].Hex, "#c86432", 1) {
		t.Errorf("semi-transparent palette %v, want ~#c86432", p.Palette)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Analyze(nil, 1); !errors.Is(err, ErrNoImages) {
		t.Errorf("no images: %v", err)
	}
	// A one-pixel-high strip wider than the sampling budget still has
	// samples.
	if _, err := Analyze([]image.Image{solid(MaxSamplesPerImage*3, 1, color.White)}, 1); err != nil {
		t.Errorf("thin strip: %v", err)
	}
	for name, imgs := range map[string][]image.Image{
		"nil":         {solid(2, 2, color.White), nil},
		"empty":       {solid(2, 2, color.White), image.NewRGBA(image.Rectangle{})},
		"transparent": {solid(2, 2, color.White), image.NewNRGBA(image.Rect(0, 0, 8, 8))},
	} {
		_, err := Analyze(imgs, 1)
		if !errors.Is(err, ErrEmptyImage) || !strings.Contains(err.Error(), "image 1") {
			t.Errorf("%s: %v, want ErrEmptyImage naming image 1", name, err)
		}
	}
}

func TestSamplingBound(t *testing.T) {
	// A large image is read on a grid of at most MaxSamplesPerImage pixels
	// yet still reports both of its halves.
	img := solid(3000, 2000, color.RGBA{255, 0, 0, 255})
	draw.Draw(img, image.Rect(1500, 0, 3000, 2000), image.NewUniform(color.RGBA{0, 0, 255, 255}), image.Point{}, draw.Src)
	var h histogram
	if _, err := sampleImage(img, &h); err != nil {
		t.Fatal(err)
	}
	p := analyze(t, img)
	if len(p.Palette) != 2 || !near(p.Palette[0].Weight, 0.5, 0.01) {
		t.Errorf("palette %v", p.Palette)
	}
}

func TestGridStep(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {141, 141}, {142, 142}, {1280, 720}, {3000, 2000}, {10000, 10000}, {10000, 1}, {100000, 3}, {20001, 1}, {7, 9000}} {
		w, h := sz[0], sz[1]
		step := gridStep(w, h)
		// Count the points exactly as sampleImage visits them.
		n := 0
		for y := gridStart(h, step); y < h; y += step {
			for x := gridStart(w, step); x < w; x += step {
				n++
			}
		}
		if n > MaxSamplesPerImage || n == 0 {
			t.Errorf("%dx%d: step %d gives %d samples", w, h, step, n)
		}
		if w*h <= MaxSamplesPerImage && step != 1 {
			t.Errorf("%dx%d: step %d for a small image", w, h, step)
		}
	}
}

func TestLabRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		r, g, b := rng.UintN(256), rng.UintN(256), rng.UintN(256)
		c := rgbToLab(float64(r), float64(g), float64(b))
		want := color.RGBA{uint8(r), uint8(g), uint8(b), 255}
		if got := c.hex(); got != hexOf(want) {
			t.Fatalf("%v → %v → %s", want, c, got)
		}
	}
	// Reference values (CIE, D65): white L=100, a=b=0; red L≈53.24.
	if w := rgbToLab(255, 255, 255); !near(w[0], 100, 1e-3) || !near(w[1], 0, 1e-3) || !near(w[2], 0, 1e-3) {
		t.Errorf("white = %v", w)
	}
	if r := rgbToLab(255, 0, 0); !near(r[0], 53.24, 0.01) || !near(r[1], 80.09, 0.05) || !near(r[2], 67.20, 0.05) {
		t.Errorf("red = %v", r)
	}
}

func hexOf(c color.RGBA) string {
	const digits = "0123456789abcdef"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range []uint8{c.R, c.G, c.B} {
		b[1+2*i], b[2+2*i] = digits[v>>4], digits[v&15]
	}
	return string(b)
}

func BenchmarkAnalyzeTen720p(b *testing.B) {
	imgs := make([]image.Image, 10)
	for i := range imgs {
		imgs[i] = noisy(1280, 720, uint64(i))
	}
	// Decoded JPEGs arrive as YCbCr; include that path too.
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, imgs[0], &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		b.Fatal(err)
	}
	imgs[0] = dec
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(imgs, 1); err != nil {
			b.Fatal(err)
		}
	}
}
