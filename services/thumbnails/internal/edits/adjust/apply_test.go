package adjust

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision"
)

func mustFilter(t testing.TB, prompt string) Filter {
	t.Helper()
	fs, err := ParseFilter(prompt)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("%q: %d filters", prompt, len(fs))
	}
	return fs[0]
}

// withAlpha is a scene with a transparency gradient, its bounds away
// from the origin (as a sub-image would be).
func withAlpha(w, h int) *image.NRGBA {
	src := scene(w, h)
	m := image.NewNRGBA(image.Rect(10, 20, 10+w, 20+h))
	for y := range h {
		for x := range w {
			c := src.RGBAAt(x, y)
			m.SetNRGBA(10+x, 20+y, color.NRGBA{c.R, c.G, c.B, uint8(60 + x*195/w)}) //nolint:gosec // G115: 60..255
		}
	}
	return m
}

var allFilters = []string{"grayscale", "sepia", "vintage", "warm", "cool", "vignette", "blur background",
	"sharpen", "film grain", "duotone navy gold", "posterize 4", "invert"}

// Every filter keeps the picture's size and its transparency.
func TestFiltersKeepSizeAndAlpha(t *testing.T) {
	src := withAlpha(120, 80)
	for _, prompt := range allFilters {
		out := ApplyFilter(src, mustFilter(t, prompt), nil)
		if out.Rect != image.Rect(0, 0, 120, 80) {
			t.Errorf("%s: %v", prompt, out.Rect)
			continue
		}
		for y := range 80 {
			for x := range 120 {
				if a, want := out.NRGBAAt(x, y).A, src.NRGBAAt(10+x, 20+y).A; a != want && prompt != "blur background" {
					t.Fatalf("%s: alpha %d at (%d,%d), source %d", prompt, a, x, y, want)
				}
			}
		}
	}
	// The source is not changed.
	if src.NRGBAAt(10, 20) != (color.NRGBA{scene(120, 80).RGBAAt(0, 0).R, scene(120, 80).RGBAAt(0, 0).G, scene(120, 80).RGBAAt(0, 0).B, 60}) {
		t.Error("ApplyFilter wrote into its source")
	}
}

func TestGrayscaleHasNoChroma(t *testing.T) {
	out := ApplyFilter(scene(160, 90), mustFilter(t, "black and white"), nil)
	for i := 0; i < len(out.Pix); i += 4 {
		if r, g, b := out.Pix[i], out.Pix[i+1], out.Pix[i+2]; r != g || g != b {
			t.Fatalf("pixel %d is (%d,%d,%d)", i/4, r, g, b)
		}
	}
	if c := vision.Colourfulness(out); c != 0 {
		t.Errorf("colourfulness %.2f", c)
	}
}

// Sepia is warm (red ≥ green ≥ blue everywhere) and monotone: every
// tinted pixel has the same hue, and the luma is kept.
func TestSepiaIsWarmAndMonotone(t *testing.T) {
	src := scene(160, 90)
	out := ApplyFilter(src, mustFilter(t, "sepia"), nil)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < len(out.Pix); i += 4 {
		r, g, b := float64(out.Pix[i]), float64(out.Pix[i+1]), float64(out.Pix[i+2])
		if r < g || g < b {
			t.Fatalf("pixel %d is (%.0f,%.0f,%.0f)", i/4, r, g, b)
		}
		if y0, y1 := float64(luma(src.Pix[i], src.Pix[i+1], src.Pix[i+2])), float64(luma(out.Pix[i], out.Pix[i+1], out.Pix[i+2])); math.Abs(y1-y0) > 1.5 {
			t.Fatalf("pixel %d: luma %.0f became %.0f", i/4, y0, y1)
		}
		if r-b < 24 {
			continue // near black or white the tint is too faint to have a measurable hue
		}
		hue := math.Atan2(g-b, r-g)
		lo, hi = min(lo, hue), max(hi, hue)
	}
	if spread := (hi - lo) * 180 / math.Pi; spread > 6 {
		t.Errorf("hues spread over %.1f°", spread)
	}
}

func TestInvertIsTheComplement(t *testing.T) {
	src := withAlpha(64, 48)
	out := ApplyFilter(src, mustFilter(t, "invert colors"), nil)
	for y := range 48 {
		for x := range 64 {
			s, o := src.NRGBAAt(10+x, 20+y), out.NRGBAAt(x, y)
			if o.R != 255-s.R || o.G != 255-s.G || o.B != 255-s.B || o.A != s.A {
				t.Fatalf("(%d,%d): %v became %v", x, y, s, o)
			}
		}
	}
}

// The first duotone colour takes the darkest pixels, the second the
// brightest, and everything lies between them.
func TestDuotoneMapsShadowsToTheFirstColour(t *testing.T) {
	for _, prompt := range []string{"duotone navy gold", "duotone #ffcc00 #1a1a40"} {
		f := mustFilter(t, prompt)
		src := scene(160, 90)
		out := ApplyFilter(src, f, nil)
		darkest, brightest := 0, 0
		for i := 0; i < len(src.Pix); i += 4 {
			if luma(src.Pix[i], src.Pix[i+1], src.Pix[i+2]) < luma(src.Pix[darkest], src.Pix[darkest+1], src.Pix[darkest+2]) {
				darkest = i
			}
			if luma(src.Pix[i], src.Pix[i+1], src.Pix[i+2]) > luma(src.Pix[brightest], src.Pix[brightest+1], src.Pix[brightest+2]) {
				brightest = i
			}
		}
		near := func(i int, c color.RGBA) bool {
			for k, v := range []uint8{c.R, c.G, c.B} {
				if d := int(out.Pix[i+k]) - int(v); d < -3 || d > 3 {
					return false
				}
			}
			return true
		}
		if !near(darkest, f.Shadows) || !near(brightest, f.Highlights) {
			t.Errorf("%s: darkest became %v, brightest %v", prompt, out.Pix[darkest:darkest+3], out.Pix[brightest:brightest+3])
		}
		for i := 0; i < len(out.Pix); i += 4 {
			for k, pair := range [][2]uint8{{f.Shadows.R, f.Highlights.R}, {f.Shadows.G, f.Highlights.G}, {f.Shadows.B, f.Highlights.B}} {
				lo, hi := min(pair[0], pair[1]), max(pair[0], pair[1])
				if v := out.Pix[i+k]; v < lo || v > hi {
					t.Fatalf("%s: pixel %d channel %d = %d outside %d..%d", prompt, i/4, k, v, lo, hi)
				}
			}
		}
	}
}

func TestVignetteDarkensTheCorners(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 160, 90))
	for i := range src.Pix {
		src.Pix[i] = 200
	}
	out := ApplyFilter(src, mustFilter(t, "add a vignette"), nil)
	mean := func(r image.Rectangle) float64 {
		s, n := 0.0, 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				s += float64(out.NRGBAAt(x, y).G)
				n++
			}
		}
		return s / float64(n)
	}
	centre := mean(image.Rect(70, 35, 90, 55))
	corners := (mean(image.Rect(0, 0, 10, 10)) + mean(image.Rect(150, 80, 160, 90))) / 2
	if centre < 199 || corners > 0.6*centre {
		t.Errorf("centre %.1f, corners %.1f", centre, corners)
	}
}

func TestPosterizeLimitsLevels(t *testing.T) {
	src := scene(160, 90)
	for _, n := range []int{2, 4, 7} {
		out := ApplyFilter(src, Filter{Kind: FilterPosterize, Levels: n}, nil)
		for c := range 3 {
			seen := map[uint8]bool{}
			for i := c; i < len(out.Pix); i += 4 {
				seen[out.Pix[i]] = true
			}
			if len(seen) > n || len(seen) < 2 {
				t.Errorf("%d levels: channel %d has %d values", n, c, len(seen))
			}
		}
	}
}

// Film grain adds visible noise but keeps the picture's brightness.
func TestFilmGrainAddsNoiseKeepsMean(t *testing.T) {
	src := scene(200, 120)
	out := ApplyFilter(src, mustFilter(t, "film grain"), nil)
	var sum0, sum1, sq float64
	for i := 0; i < len(src.Pix); i += 4 {
		for c := range 3 {
			a, b := float64(src.Pix[i+c]), float64(out.Pix[i+c])
			sum0, sum1, sq = sum0+a, sum1+b, sq+(b-a)*(b-a)
		}
	}
	n := float64(len(src.Pix) / 4 * 3)
	if d := math.Abs(sum1-sum0) / n; d > 1 {
		t.Errorf("mean moved by %.2f levels", d)
	}
	if sd := math.Sqrt(sq / n); sd < 5 {
		t.Errorf("noise of %.2f levels", sd)
	}
	// Deterministic: the same picture gets the same grain.
	again := ApplyFilter(src, mustFilter(t, "grain"), nil)
	for i := range out.Pix {
		if out.Pix[i] != again.Pix[i] {
			t.Fatal("grain differs between runs")
		}
	}
}

func TestSharpenAddsDetailKeepsTone(t *testing.T) {
	src := facePhoto(t)
	out := ApplyFilter(src, mustFilter(t, "sharpen"), nil)
	before, after := hfEnergy(src, everywhere), hfEnergy(out, everywhere)
	if after < 1.3*before {
		t.Errorf("high-frequency energy %.1f → %.1f", before, after)
	}
	if d := math.Abs(vision.RMSContrast(out) - vision.RMSContrast(src)); d > 0.01 {
		t.Errorf("contrast moved by %.3f", d)
	}
}

func TestWarmAndCoolMoveRedAgainstBlue(t *testing.T) {
	src := scene(160, 90)
	redMinusBlue := func(m image.Image) float64 {
		p := toRGBA(m)
		s := 0.0
		for i := 0; i < len(p.Pix); i += 4 {
			s += float64(p.Pix[i]) - float64(p.Pix[i+2])
		}
		return s / float64(len(p.Pix)/4)
	}
	base := redMinusBlue(src)
	warm := redMinusBlue(ApplyFilter(src, mustFilter(t, "warm"), nil))
	cool := redMinusBlue(ApplyFilter(src, mustFilter(t, "cool"), nil))
	if warm < base+10 || cool > base-10 {
		t.Errorf("R−B: source %.1f, warm %.1f, cool %.1f", base, warm, cool)
	}
}

// Vintage fades and warms: less contrast, less colour, more red than
// blue.
func TestVintageFadesAndWarms(t *testing.T) {
	src := scene(160, 90)
	out := ApplyFilter(src, mustFilter(t, "vintage"), nil)
	if vision.RMSContrast(out) >= vision.RMSContrast(src) || vision.Colourfulness(out) >= vision.Colourfulness(src) {
		t.Errorf("contrast %.3f → %.3f, colourfulness %.1f → %.1f",
			vision.RMSContrast(src), vision.RMSContrast(out), vision.Colourfulness(src), vision.Colourfulness(out))
	}
	if meanB(out) <= meanB(src) {
		t.Errorf("b* %.1f → %.1f", meanB(src), meanB(out))
	}
}

// portraitOnScene is the sample portrait at half size in front of the
// photo-like scene: a subject with a detailed background.
func portraitOnScene(t testing.TB) *image.RGBA {
	t.Helper()
	canvas := scene(480, 300)
	face := boxDown(facePhoto(t), 2)
	draw.Draw(canvas, face.Rect.Add(image.Pt(160, 70)), face, image.Point{}, draw.Src)
	return canvas
}

// The background blur takes the detail out of the picture away from the
// face and leaves the face box as it was.
func TestBlurBackgroundKeepsTheFace(t *testing.T) {
	src := portraitOnScene(t)
	faces := detectFaces(t, src)
	box := faces[0].Rect
	out := ApplyFilter(src, mustFilter(t, "blur the background"), faces)
	inside := func(x, y int) bool { return image.Pt(x, y).In(box.Inset(2)) }
	outside := func(x, y int) bool { return !image.Pt(x, y).In(box.Inset(-2)) }
	kept, left := hfEnergy(out, inside)/hfEnergy(src, inside), hfEnergy(out, outside)/hfEnergy(src, outside)
	t.Logf("energy kept: %.3f inside the face box, %.3f outside", kept, left)
	if kept < 0.99 || left > 0.5 {
		t.Errorf("energy kept: %.3f inside the face box, %.3f outside", kept, left)
	}
}

// Without faces the salient object stays sharper than its surroundings.
func TestBlurBackgroundWithoutFacesFollowsSaliency(t *testing.T) {
	const w, h = 192, 128
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	object := image.Rect(36, 32, 92, 88)
	for y := range h {
		for x := range w {
			// A finely textured background, a sharply checkered object.
			v := uint8(120 + 12*math.Sin(float64(x)*1.3)*math.Sin(float64(y)*1.1))
			c := color.RGBA{v, v + 10, v + 20, 255}
			if image.Pt(x, y).In(object) {
				c = color.RGBA{230, 40, 40, 255}
				if (x/4+y/4)%2 == 0 {
					c = color.RGBA{250, 230, 60, 255}
				}
			}
			src.SetRGBA(x, y, c)
		}
	}
	out := ApplyFilter(src, mustFilter(t, "blur background"), nil)
	in := func(x, y int) bool { return image.Pt(x, y).In(object.Inset(6)) }
	away := func(x, y int) bool { return !image.Pt(x, y).In(object.Inset(-40)) }
	keptIn := hfEnergy(out, in) / hfEnergy(src, in)
	keptAway := hfEnergy(out, away) / hfEnergy(src, away)
	t.Logf("energy kept: %.3f on the object, %.3f away from it", keptIn, keptAway)
	if keptIn < 0.8 || keptAway > 0.5 {
		t.Errorf("energy kept: %.2f on the object, %.2f away from it", keptIn, keptAway)
	}
}
