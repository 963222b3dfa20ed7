package adjust

import (
	"bytes"
	"cmp"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"math"
	"slices"
	"sync"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/encode"
)

func TestParsePresetAndIntensity(t *testing.T) {
	for _, name := range PresetNames() {
		if p, ok := ParsePreset(name); !ok || string(p) != name {
			t.Errorf("ParsePreset(%q) = %q, %v", name, p, ok)
		}
	}
	if got := len(PresetNames()); got != 6 {
		t.Errorf("%d presets, the spec lists 6", got)
	}
	if p, ok := ParsePreset(" High-Contrast "); !ok || p != HighContrast {
		t.Errorf("case and space: %q, %v", p, ok)
	}
	for _, bad := range []string{"", "vivid", "high contrast", "sepia"} {
		if _, ok := ParsePreset(bad); ok {
			t.Errorf("ParsePreset(%q) accepted", bad)
		}
	}
	for s, want := range map[string]Intensity{"": Medium, "subtle": Subtle, "MEDIUM": Medium, " strong": Strong} {
		if in, ok := ParseIntensity(s); !ok || in != want {
			t.Errorf("ParseIntensity(%q) = %q, %v; want %q", s, in, ok, want)
		}
	}
	for _, bad := range []string{"low", "extreme", "2"} {
		if _, ok := ParseIntensity(bad); ok {
			t.Errorf("ParseIntensity(%q) accepted", bad)
		}
	}
}

// Every preset's tone curve and vibrance must keep the order of values at
// every intensity, or gradients would fold over (bands, inverted tones).
func TestLooksAreMonotone(t *testing.T) {
	for _, p := range presetOrder {
		for in, k := range intensityScale {
			l := looks[p].scaled(k)
			prev := math.Inf(-1)
			for i := 0; i <= 1000; i++ {
				v := l.tone(float64(i) / 10)
				if v < prev-1e-9 || v < 0 || v > 100 {
					t.Fatalf("%s %s: tone(%.1f) = %.3f after %.3f", p, in, float64(i)/10, v, prev)
				}
				prev = v
			}
			prev = math.Inf(-1)
			for c := 0.0; c <= 200; c += 0.25 {
				got := c * chromaGain(c, l.vibrance)
				if got < prev {
					t.Fatalf("%s %s: chroma falls at %.2f", p, in, c)
				}
				prev = got
			}
		}
	}
}

// The identity look must not change a picture: what a preset changes is
// the preset's doing, not the colour conversions'.
func TestIdentityLookKeepsThePicture(t *testing.T) {
	src := scene(160, 90)
	out, err := applyTable(pngOf(t, src), identity.table())
	if err != nil {
		t.Fatal(err)
	}
	got := toRGBA(decoded(t, out))
	for i := 0; i < len(src.Pix); i++ {
		if d := int(got.Pix[i]) - int(src.Pix[i]); d < -1 || d > 1 {
			t.Fatalf("byte %d: %d became %d", i, src.Pix[i], got.Pix[i])
		}
	}
}

// The colour table stands in for evaluating the look on every pixel: on
// every preset at its strongest, over colours spread through the whole
// cube, the table must stay within four levels of the exact look and a third of a level on average.
func TestColourTableMatchesTheExactLook(t *testing.T) {
	var src []uint8
	for r := 0; r < 256; r += 5 {
		for g := 0; g < 256; g += 7 {
			for b := 0; b < 256; b += 3 {
				src = append(src, uint8(r), uint8(g), uint8(b))
			}
		}
	}
	dst := make([]uint8, len(src)/3*4)
	for _, p := range presetOrder {
		l := looks[p].scaled(intensityScale[Strong])
		l.table().apply(dst, src, 3)
		var sum, worst float64
		for i, j := 0, 0; i < len(src); i, j = i+3, j+4 {
			want := l.apply([3]float64{float64(src[i]) / 255, float64(src[i+1]) / 255, float64(src[i+2]) / 255})
			for c := range 3 {
				d := math.Abs(float64(dst[j+c]) - want[c]*255)
				sum += d
				worst = max(worst, d)
			}
		}
		mean := sum / float64(len(src))
		t.Logf("%s strong: table off by %.3f levels on average, %.2f at most", p, mean, worst)
		if mean > 0.3 || worst > 4 {
			t.Errorf("%s: table off by %.3f on average, %.2f at most", p, mean, worst)
		}
	}
}

// presetEffect is the measured property each preset exists to raise.
var presetEffect = map[Preset]struct {
	what    string
	measure func(image.Image) float64
}{
	Vibrant:      {"colourfulness", vision.Colourfulness},
	Dramatic:     {"RMS contrast", vision.RMSContrast},
	HighContrast: {"RMS contrast", vision.RMSContrast},
	Warm:         {"mean b*", meanB},
	Cool:         {"-mean b*", func(m image.Image) float64 { return -meanB(m) }},
	Cinematic:    {"b* of the highlights over b* of the shadows", splitTone},
}

// splitTone is how much yellower the picture's brightest sixth is than
// its darkest sixth (mean b*). The sixths are taken by rank, which a
// rising tone curve does not change, so only the tint moves the measure.
func splitTone(img image.Image) float64 {
	m := toRGBA(img)
	type px struct{ l, b float64 }
	all := make([]px, 0, len(m.Pix)/4)
	for i := 0; i < len(m.Pix); i += 4 {
		l, _, b := lab(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		all = append(all, px{l, b})
	}
	slices.SortFunc(all, func(p, q px) int { return cmp.Compare(p.l, q.l) })
	n := len(all) / 6
	var lo, hi float64
	for k := range n {
		lo += all[k].b
		hi += all[len(all)-1-k].b
	}
	return (hi - lo) / float64(n)
}

func TestColorEnhanceRaisesWhatThePresetPromisesByIntensity(t *testing.T) {
	pictures := map[string]image.Image{"scene": scene(320, 180), "face": facePhoto(t)}
	for name, pic := range pictures {
		src := jpegOf(t, pic)
		base := decodeJPEG(t, src)
		for _, p := range presetOrder {
			effect := presetEffect[p]
			prev := effect.measure(base)
			for _, in := range []Intensity{Subtle, Medium, Strong} {
				out, err := ColorEnhance(src, p, in)
				if err != nil {
					t.Fatal(err)
				}
				if out.ContentType != encode.ContentTypeJPEG || out.Width != pic.Bounds().Dx() || out.Height != pic.Bounds().Dy() {
					t.Fatalf("%s %s %s: %s %d×%d", name, p, in, out.ContentType, out.Width, out.Height)
				}
				v := effect.measure(decoded(t, out))
				if v <= prev {
					t.Errorf("%s %s %s: %s %.3f, not above %.3f (the weaker step)", name, p, in, effect.what, v, prev)
				}
				prev = v
			}
		}
	}
}

// Dramatic and high-contrast are contrast presets, vibrant a colour one:
// each moves its own measure more than the other.
func TestPresetsDifferInKind(t *testing.T) {
	src := jpegOf(t, scene(320, 180))
	measure := func(p Preset) (contrast, colour float64) {
		out, err := ColorEnhance(src, p, Strong)
		if err != nil {
			t.Fatal(err)
		}
		img := decoded(t, out)
		return vision.RMSContrast(img), vision.Colourfulness(img)
	}
	vc, vcol := measure(Vibrant)
	hc, hcol := measure(HighContrast)
	if hc <= vc || vcol <= hcol {
		t.Errorf("high-contrast: contrast %.3f colour %.1f; vibrant: contrast %.3f colour %.1f", hc, hcol, vc, vcol)
	}
	warm, cool := meanB(decodeOut(t, src, Warm)), meanB(decodeOut(t, src, Cool))
	if warm-cool < 10 {
		t.Errorf("warm b* %.1f, cool b* %.1f: too close", warm, cool)
	}
}

func decodeOut(t *testing.T, src []byte, p Preset) image.Image {
	t.Helper()
	out, err := ColorEnhance(src, p, Medium)
	if err != nil {
		t.Fatal(err)
	}
	return decoded(t, out)
}

func decodeJPEG(t testing.TB, data []byte) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// A PNG stays a PNG of the same size, and its transparency is untouched,
// 16-bit ones included (brought to 8 bits).
func TestColorEnhanceKeepsPNGAlpha(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 96, 64))
	deep := image.NewNRGBA64(src.Rect)
	for y := range 64 {
		for x := range 96 {
			src.SetNRGBA(x, y, color.NRGBA{uint8(40 + x), uint8(200 - y), 90, uint8(x * 255 / 95)})     //nolint:gosec // G115: small values
			deep.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 600), 30000, 20000, uint16(x * 65535 / 95)}) //nolint:gosec // G115: small values
		}
	}
	for name, pic := range map[string]image.Image{"8-bit": src, "16-bit": deep} {
		out, err := ColorEnhance(pngOf(t, pic), Vibrant, Strong)
		if err != nil {
			t.Fatal(err)
		}
		if out.ContentType != encode.ContentTypePNG || out.Width != 96 || out.Height != 64 {
			t.Fatalf("%s: %s %d×%d", name, out.ContentType, out.Width, out.Height)
		}
		got := toNRGBA(decoded(t, out))
		for y := range 64 {
			for x := range 96 {
				want := color.NRGBAModel.Convert(pic.At(x, y)).(color.NRGBA).A
				if d := int(got.NRGBAAt(x, y).A) - int(want); d < -1 || d > 1 {
					t.Fatalf("%s: alpha %d became %d at (%d,%d)", name, want, got.NRGBAAt(x, y).A, x, y)
				}
			}
		}
	}
}

// Colour tables are built on first use; requests arriving together for a new one
// must all get the same, correct picture.
func TestColorEnhanceConcurrentFirstUse(t *testing.T) {
	src := jpegOf(t, scene(160, 90))
	const n = 6
	outs := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			out, err := ColorEnhance(src, Dramatic, Subtle)
			if err != nil {
				t.Error(err)
				return
			}
			outs[i] = out.Data
		})
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if !bytes.Equal(outs[i], outs[0]) {
			t.Fatalf("request %d got a different picture", i)
		}
	}
}

func TestColorEnhanceRefusesOtherFormats(t *testing.T) {
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 8, 8), []color.Color{color.Black}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ColorEnhance(buf.Bytes(), Warm, Medium); !errors.Is(err, ErrFormat) {
		t.Errorf("GIF: %v", err)
	}
	if _, err := ColorEnhance(jpegOf(t, scene(8, 8)), Preset("neon"), Medium); err == nil {
		t.Error("unknown preset accepted")
	}
}

// BenchmarkColorEnhance is a 1280×720 photo-like JPEG through the vibrant
// preset, from encoded bytes to encoded bytes.
func BenchmarkColorEnhance(b *testing.B) {
	src := jpegOf(b, scene(1280, 720))
	if _, err := ColorEnhance(src, Vibrant, Medium); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ColorEnhance(src, Vibrant, Medium); err != nil {
			b.Fatal(err)
		}
	}
}
