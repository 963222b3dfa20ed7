package adjust

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
)

// ApplyFilter returns img with the filter applied, at img's size with its
// transparency unchanged (except where the background blur blurs it with
// the colours). faces are img's detected faces, in img's coordinates as
// vision's Detector returns them; only the background blur uses them,
// keeping each face and the head and shoulders around it sharp. Without
// faces it keeps the salient part of the picture sharp.
// A Filter that did not come from ParseFilter (no Kind) changes nothing.
func ApplyFilter(img image.Image, f Filter, faces []vision.Face) *image.NRGBA {
	m := toNRGBA(img)
	switch f.Kind {
	case FilterGrayscale:
		grayscale(m)
	case FilterSepia:
		sepia(m)
	case FilterVintage:
		vintage(m)
	case FilterWarm:
		channelGains(m, 1.08, 1.02, 0.86)
	case FilterCool:
		channelGains(m, 0.88, 1.0, 1.1)
	case FilterVignette:
		vignette(m, 0.6)
	case FilterBlurBackground:
		blurBackground(m, img, faces)
	case FilterSharpen:
		sharpen(m)
	case FilterFilmGrain:
		filmGrain(m)
	case FilterDuotone:
		duotone(m, f.Shadows, f.Highlights)
	case FilterPosterize:
		posterize(m, f.Levels)
	case FilterInvert:
		mapChannels(m, func(v uint8) uint8 { return 255 - v }, nil, nil)
	}
	return m
}

// toRGBA returns a copy of img as premultiplied 8-bit RGBA at the origin
// (image/draw has fast paths from every decoder's image type).
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Rect, img, b.Min, draw.Src)
	return m
}

// toNRGBA returns a copy of img as non-premultiplied 8-bit RGBA at the
// origin: the filters change colour and must leave alpha as it is.
func toNRGBA(img image.Image) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	if src, ok := img.(*image.NRGBA); ok {
		for y := range b.Dy() {
			i := src.PixOffset(b.Min.X, b.Min.Y+y)
			copy(out.Pix[y*out.Stride:y*out.Stride+4*b.Dx()], src.Pix[i:i+4*b.Dx()])
		}
		return out
	}
	pre := toRGBA(img)
	for i := 0; i < len(pre.Pix); i += 4 {
		a := pre.Pix[i+3]
		switch a {
		case 255:
			copy(out.Pix[i:i+4], pre.Pix[i:i+4])
		case 0:
		default:
			out.Pix[i] = unpremul(pre.Pix[i], a)
			out.Pix[i+1] = unpremul(pre.Pix[i+1], a)
			out.Pix[i+2] = unpremul(pre.Pix[i+2], a)
			out.Pix[i+3] = a
		}
	}
	return out
}

func unpremul(c, a uint8) uint8 {
	return uint8(min((uint32(c)*255+uint32(a)/2)/uint32(a), 255)) //nolint:gosec // G115: clamped to 255
}

// luma is imaging.Luma rounded: an index into the filters' tone tables.
func luma(r, g, b uint8) uint8 {
	return uint8(imaging.Luma(r, g, b) + 0.5)
}

func clamp8(v float64) uint8 {
	return uint8(min(max(math.Round(v), 0), 255))
}

// mapChannels maps R, G and B through per-value functions (nil: same as
// r's), via 256-entry tables.
func mapChannels(m *image.NRGBA, r, g, b func(uint8) uint8) {
	if g == nil {
		g = r
	}
	if b == nil {
		b = r
	}
	var tr, tg, tb [256]uint8
	for v := range 256 {
		tr[v], tg[v], tb[v] = r(uint8(v)), g(uint8(v)), b(uint8(v))
	}
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2] = tr[m.Pix[i]], tg[m.Pix[i+1]], tb[m.Pix[i+2]]
	}
}

// channelGains multiplies R, G and B: the warm and cool filters, a white
// balance of the encoded values.
func channelGains(m *image.NRGBA, r, g, b float64) {
	gain := func(k float64) func(uint8) uint8 {
		return func(v uint8) uint8 { return clamp8(float64(v) * k) }
	}
	mapChannels(m, gain(r), gain(g), gain(b))
}

func grayscale(m *image.NRGBA) {
	for i := 0; i < len(m.Pix); i += 4 {
		y := luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		m.Pix[i], m.Pix[i+1], m.Pix[i+2] = y, y, y
	}
}

// sepiaTint is the direction sepia moves a grey: towards red, away from
// blue, with no change of luma (0.2126·r + 0.7152·g + 0.0722·b = 0).
var sepiaTint = [3]float64{0.16, -(0.2126*0.16 - 0.0722*0.25) / 0.7152, -0.25}

// sepia tones the picture's luma t with one hue: t + 4t(1−t)·sepiaTint,
// strongest in the mid-tones and nothing at black and white. No channel
// leaves 0..1 on the way (blue bottoms out at t², red tops out at 1), so
// every pixel keeps its luma and the hue is the same everywhere.
func sepia(m *image.NRGBA) {
	var tone [256][3]uint8
	for v := range 256 {
		t := float64(v) / 255
		s := 4 * t * (1 - t)
		for c := range 3 {
			tone[v][c] = clamp8(255 * (t + s*sepiaTint[c]))
		}
	}
	for i := 0; i < len(m.Pix); i += 4 {
		c := &tone[luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2])]
		m.Pix[i], m.Pix[i+1], m.Pix[i+2] = c[0], c[1], c[2]
	}
}

// vintage is a faded warm print: colour 40% towards grey, blacks lifted
// to 24 and whites lowered to 232, red raised and blue lowered, and a
// light vignette.
func vintage(m *image.NRGBA) {
	const keep = 0.6
	for i := 0; i < len(m.Pix); i += 4 {
		y := float64(luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2]))
		for c := range 3 {
			m.Pix[i+c] = clamp8(y + keep*(float64(m.Pix[i+c])-y))
		}
	}
	fade := func(lo, hi, gain float64) func(uint8) uint8 {
		return func(v uint8) uint8 { return clamp8(lo + (hi-lo)*min(float64(v)*gain, 255)/255) }
	}
	mapChannels(m, fade(24, 236, 1.05), fade(22, 230, 1), fade(20, 212, 0.92))
	vignette(m, 0.25)
}

// vignette darkens towards the corners: full brightness inside 35% of the
// half-diagonal, then a smooth fall to 1−strength at the corners.
func vignette(m *image.NRGBA, strength float64) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	cx, cy := float64(w)/2, float64(h)/2
	for y := range h {
		dy := (float64(y) + 0.5 - cy) / cy
		row := m.Pix[y*m.Stride:]
		for x := range w {
			dx := (float64(x) + 0.5 - cx) / cx
			d := math.Sqrt((dx*dx + dy*dy) / 2)
			k := 1 - strength*smoothstep(0.35, 1, d)
			for c := range 3 {
				row[4*x+c] = clamp8(float64(row[4*x+c]) * k)
			}
		}
	}
}

func smoothstep(lo, hi, x float64) float64 {
	t := min(max((x-lo)/(hi-lo), 0), 1)
	return t * t * (3 - 2*t)
}

// Sharpen is an unsharp mask against a blur of sigma about 1.4 px, edge-
// aware: differences below sharpenThreshold (noise, JPEG ripples, skin)
// are left alone, larger ones are steepened by sharpenAmount.
const (
	sharpenAmount    = 0.8
	sharpenThreshold = 3.0
)

func sharpen(m *image.NRGBA) {
	blur := toRGBA(m)
	boxBlur(blur, 1)
	for i := 0; i < len(m.Pix); i += 4 {
		a := m.Pix[i+3]
		if a == 0 {
			continue
		}
		for c := range 3 {
			v := float64(m.Pix[i+c])
			d := v - float64(unpremulFast(blur.Pix[i+c], blur.Pix[i+3]))
			// Soft threshold: the part of the difference above it.
			if math.Abs(d) <= sharpenThreshold {
				continue
			}
			d -= math.Copysign(sharpenThreshold, d)
			m.Pix[i+c] = clamp8(v + sharpenAmount*d)
		}
	}
}

func unpremulFast(c, a uint8) uint8 {
	if a == 255 {
		return c
	}
	if a == 0 {
		return 0
	}
	return unpremul(c, a)
}

// filmGrain adds monochrome noise of about 9 levels' standard deviation
// in the mid-tones, less towards black and white so that clipping does
// not shift the mean. The noise is seeded by the picture's size: the same
// picture always gets the same grain.
func filmGrain(m *image.NRGBA) {
	const sigma = 9.0
	w, h := m.Rect.Dx(), m.Rect.Dy()
	rng := rand.New(rand.NewPCG(uint64(w), uint64(h))) //nolint:gosec // G404: grain, not secrecy
	for i := 0; i < len(m.Pix); i += 4 {
		t := float64(luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2])) / 255
		n := rng.NormFloat64() * sigma * min(1, 0.15+4*t*(1-t))
		for c := range 3 {
			m.Pix[i+c] = clamp8(float64(m.Pix[i+c]) + n)
		}
	}
}

// duotone maps luma onto the line from shadows to highlights. The luma
// range is stretched first (its 0.5th to 99.5th percentile to 0..1), so
// a picture without true black or white still spans both colours: its
// darkest pixels take the shadow colour, its brightest the highlight.
func duotone(m *image.NRGBA, shadows, highlights color.RGBA) {
	var hist [256]int
	for i := 0; i < len(m.Pix); i += 4 {
		hist[luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2])]++
	}
	lo, hi := percentile(&hist, 0.005), percentile(&hist, 0.995)
	var ramp [256][3]uint8
	d, l := [3]float64{float64(shadows.R), float64(shadows.G), float64(shadows.B)},
		[3]float64{float64(highlights.R), float64(highlights.G), float64(highlights.B)}
	for v := range 256 {
		t := 0.5
		if hi > lo {
			t = min(max(float64(v-lo)/float64(hi-lo), 0), 1)
		}
		for c := range 3 {
			ramp[v][c] = clamp8(d[c] + t*(l[c]-d[c]))
		}
	}
	for i := 0; i < len(m.Pix); i += 4 {
		c := &ramp[luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2])]
		m.Pix[i], m.Pix[i+1], m.Pix[i+2] = c[0], c[1], c[2]
	}
}

// percentile is the smallest value with at least q of the histogram at or
// below it.
func percentile(hist *[256]int, q float64) int {
	total := 0
	for _, n := range hist {
		total += n
	}
	need := int(math.Ceil(q * float64(total)))
	seen := 0
	for v, n := range hist {
		seen += n
		if seen >= max(need, 1) {
			return v
		}
	}
	return 255
}

// posterize rounds each channel to levels evenly spaced values.
func posterize(m *image.NRGBA, levels int) {
	levels = min(max(levels, MinPosterizeLevels), 256)
	step := 255 / float64(levels-1)
	mapChannels(m, func(v uint8) uint8 { return clamp8(math.Round(float64(v)/step) * step) }, nil, nil)
}
