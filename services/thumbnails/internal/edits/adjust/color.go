package adjust

import (
	"fmt"
	"image"
	"math"
	"strings"
	"sync"

	"github.com/davidbyttow/govips/v2/vips"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/services/thumbnails/internal/encode"
)

// Preset is a color-enhance look.
type Preset string

// The presets of color-enhance (the spec's list).
const (
	Vibrant      Preset = "vibrant"
	Dramatic     Preset = "dramatic"
	Warm         Preset = "warm"
	Cool         Preset = "cool"
	HighContrast Preset = "high-contrast"
	Cinematic    Preset = "cinematic"
)

// Intensity scales how far a preset moves the picture.
type Intensity string

// The intensities, weakest first. An unset intensity is Medium.
const (
	Subtle Intensity = "subtle"
	Medium Intensity = "medium"
	Strong Intensity = "strong"
)

// look is what a preset does at medium intensity, in CIE Lab (D65):
// a tone curve on L*, a gain on each opponent axis with a vibrance boost
// for weak colours, a white-balance shift and a split tone.
type look struct {
	// contrast blends an S-curve into the tone curve (0: none, 1: all
	// S-curve); pivot is the L* (0..1) it turns around.
	contrast, pivot float64
	// gamma bends the mid-tones (above 1 darkens them).
	gamma float64
	// lift raises black and roll lowers white (fractions of L*), the
	// faded ends of a film print.
	lift, roll float64
	// gainA and gainB scale a* (green–magenta) and b* (blue–yellow):
	// saturation when equal.
	gainA, gainB float64
	// vibrance is the extra gain of a colour near grey, fading out as
	// its chroma grows, so skin and sky gain colour before anything
	// clips; it scales a* and b* together, so hues stay.
	vibrance float64
	// shiftA and shiftB move a* and b*: white balance. The shift grows
	// with L* up to the mid-tones, so blacks stay black.
	shiftA, shiftB float64
	// split tints the highlights orange and the shadows teal: the b*
	// shift at white (minus at black), with half as much on a*.
	split float64
}

// identity is the look that changes nothing; intensities interpolate
// between it and a preset's look.
var identity = look{gamma: 1, pivot: 0.5, gainA: 1, gainB: 1}

var looks = map[Preset]look{
	// More colour, most of it where colour is weak, and a light S-curve.
	Vibrant: {contrast: 0.15, pivot: 0.5, gamma: 1, gainA: 1.12, gainB: 1.12, vibrance: 0.35},
	// A strong S-curve turning below the middle with darker mid-tones:
	// deep shadows, bright highlights, a little more colour.
	Dramatic: {contrast: 0.5, pivot: 0.45, gamma: 1.1, gainA: 1.08, gainB: 1.08, vibrance: 0.15},
	// Towards yellow and a little red: late-afternoon light.
	Warm: {contrast: 0.05, pivot: 0.5, gamma: 1, gainA: 1.03, gainB: 1.03, vibrance: 0.1, shiftA: 0.8, shiftB: 8},
	// Towards blue: shade and overcast light.
	Cool: {contrast: 0.05, pivot: 0.5, gamma: 1, gainA: 1, gainB: 1, vibrance: 0.05, shiftA: -0.5, shiftB: -8},
	// The strongest S-curve around the middle, a little more colour so
	// the picture does not look washed out beside its own contrast.
	HighContrast: {contrast: 0.7, pivot: 0.5, gamma: 1, gainA: 1.08, gainB: 1.08},
	// Lifted blacks and rolled-off whites with a moderate S-curve between
	// them (a film print), and the teal–orange split tone of film
	// grading, with the green–magenta axis a little quieter.
	Cinematic: {contrast: 0.3, pivot: 0.5, gamma: 1, lift: 0.05, roll: 0.03, gainA: 0.92, gainB: 1, split: 7},
}

var presetOrder = []Preset{Vibrant, Dramatic, Warm, Cool, HighContrast, Cinematic}

// intensityScale is how much of a preset's look each intensity applies.
var intensityScale = map[Intensity]float64{Subtle: 0.5, Medium: 1, Strong: 1.6}

// PresetNames lists the presets in the spec's order.
func PresetNames() []string {
	names := make([]string, len(presetOrder))
	for i, p := range presetOrder {
		names[i] = string(p)
	}
	return names
}

// ParsePreset reads a preset name, ignoring case and surrounding space.
func ParsePreset(s string) (Preset, bool) {
	p := Preset(strings.ToLower(strings.TrimSpace(s)))
	_, ok := looks[p]
	return p, ok
}

// ParseIntensity reads an intensity, ignoring case and surrounding space;
// the empty string is Medium.
func ParseIntensity(s string) (Intensity, bool) {
	in := Intensity(strings.ToLower(strings.TrimSpace(s)))
	if in == "" {
		return Medium, true
	}
	_, ok := intensityScale[in]
	return in, ok
}

// scaled is l applied k times as strongly (0: identity).
func (l look) scaled(k float64) look {
	lerp := func(from, to float64) float64 { return from + (to-from)*k }
	return look{
		contrast: min(lerp(0, l.contrast), 0.95), // past 1 the curve would fold back
		pivot:    l.pivot,
		gamma:    math.Pow(l.gamma, k),
		lift:     lerp(0, l.lift),
		roll:     lerp(0, l.roll),
		gainA:    lerp(1, l.gainA),
		gainB:    lerp(1, l.gainB),
		vibrance: lerp(0, l.vibrance),
		shiftA:   lerp(0, l.shiftA),
		shiftB:   lerp(0, l.shiftB),
		split:    lerp(0, l.split),
	}
}

// tone maps L* (0..100) through the look's tone curve.
func (l look) tone(lightness float64) float64 {
	x := min(max(lightness/100, 0), 1)
	if l.contrast > 0 {
		// A logistic S-curve scaled to pass through (0,0) and (1,1),
		// blended with the straight line: both rise, so the blend does.
		const steep = 7
		sig := func(t float64) float64 { return 1 / (1 + math.Exp(-steep*(t-l.pivot))) }
		s0, s1 := sig(0), sig(1)
		x = (1-l.contrast)*x + l.contrast*(sig(x)-s0)/(s1-s0)
	}
	x = math.Pow(x, l.gamma)
	return 100 * (l.lift + x*(1-l.lift-l.roll))
}

// chromaGain is the factor vibrance multiplies a colour's a* and b* by:
// 1+vibrance at grey, falling to nearly 1 at chroma 75. The chroma it
// gives, c·chromaGain(c), still rises with c for any vibrance below 7, so
// colours keep their order.
func chromaGain(chroma, vibrance float64) float64 {
	return 1 + vibrance*math.Exp(-chroma/25)
}

// gridN is the number of nodes per axis of a look's colour table: a node
// every 8 levels, close enough that tetrahedral interpolation stays within
// a third of a level of the exact look on average and four levels at
// worst, on saturated colours the look pushes out of gamut (tested).
const gridN = 33

// colourTable is a look evaluated on a gridN³ lattice of 8-bit sRGB
// colours, interpolated in between. A pixel then costs one table lookup
// with four weights instead of two colour-space conversions, which is
// cheaper than libvips' own sRGB→Lab→sRGB conversions for the same result
// (the exact Lab math at every node).
type colourTable struct {
	// nodes holds the output colour of every node, R index slowest, as
	// linear-light RGB scaled by 1<<nodeBits. Interpolation happens in
	// linear light and the result is clipped and gamma-encoded after it:
	// the look is smooth there, while the encoded output bends sharply
	// near black and at the gamut's edge (clipping), which interpolating
	// encoded nodes blurred by up to 19 levels (measured).
	nodes []int32
	// cell and frac place an 8-bit value on the lattice: the lower
	// node's index and the distance past it in 1/256ths of a cell.
	cell, frac [256]int32
}

// nodeBits is the fixed-point precision of the nodes; they are clamped to
// ±2 (far outside any gamut), so a weighted sum of four stays in int32.
const nodeBits = 20

// encodeBits is the precision of the index into encodeTable: linear
// steps of 1/65536, a twentieth of a level even where the sRGB curve is
// steepest.
const encodeBits = 16

// encodeTable gamma-encodes a linear value in 0..1 (in 1<<encodeBits
// steps) to 8 bits.
var encodeTable = func() []uint8 {
	t := make([]uint8, 1<<encodeBits+1)
	for i := range t {
		t[i] = uint8(math.Round(255 * colour.LinearToSRGB(float64(i)/(1<<encodeBits))))
	}
	return t
}()

func (l look) table() *colourTable {
	t := &colourTable{nodes: make([]int32, gridN*gridN*gridN*3)}
	for v := range 256 {
		p := int32(v) * (gridN - 1) //nolint:gosec // G115: small values
		t.cell[v] = min(p/255, gridN-2)
		t.frac[v] = (p - t.cell[v]*255) * 256 / 255
	}
	i := 0
	for r := range gridN {
		for g := range gridN {
			for b := range gridN {
				out := l.linear([3]float64{float64(r) / (gridN - 1), float64(g) / (gridN - 1), float64(b) / (gridN - 1)})
				for _, c := range out {
					t.nodes[i] = int32(math.Round(min(max(c, -2), 2) * (1 << nodeBits)))
					i++
				}
			}
		}
	}
	return t
}

// apply maps 8-bit RGB pixels of src (bands values each, the fourth
// being alpha when there are four) into dst, 4 bytes per pixel with
// alpha copied or set opaque. Each pixel is interpolated between the four
// nodes of the lattice tetrahedron it falls in, which reproduces any look
// that is linear within a cell exactly.
func (t *colourTable) apply(dst, src []uint8, bands int) {
	const sr, sg, sb = gridN * gridN * 3, gridN * 3, 3
	// The weights sum to 256: a sum is linear light in 1<<(nodeBits+8)
	// steps, shifted down to the encode table's steps.
	const shift = nodeBits + 8 - encodeBits
	n, enc := t.nodes, encodeTable
	for p, q := 0, 0; p+bands <= len(src) && q+4 <= len(dst); p, q = p+bands, q+4 {
		r, g, b := src[p], src[p+1], src[p+2]
		fr, fg, fb := t.frac[r], t.frac[g], t.frac[b]
		base := t.cell[r]*sr + t.cell[g]*sg + t.cell[b]*sb
		// The tetrahedron is picked by the order of the three fractions;
		// it runs from the cell's lower corner to its upper one through
		// two edges, each weighted by a difference of fractions.
		var o1, o2, w0, w1, w2, w3 int32
		switch {
		case fr >= fg && fg >= fb:
			o1, o2, w0, w1, w2, w3 = sr, sr+sg, 256-fr, fr-fg, fg-fb, fb
		case fr >= fb && fb >= fg:
			o1, o2, w0, w1, w2, w3 = sr, sr+sb, 256-fr, fr-fb, fb-fg, fg
		case fb >= fr && fr >= fg:
			o1, o2, w0, w1, w2, w3 = sb, sb+sr, 256-fb, fb-fr, fr-fg, fg
		case fg >= fr && fr >= fb:
			o1, o2, w0, w1, w2, w3 = sg, sg+sr, 256-fg, fg-fr, fr-fb, fb
		case fg >= fb && fb >= fr:
			o1, o2, w0, w1, w2, w3 = sg, sg+sb, 256-fg, fg-fb, fb-fr, fr
		default:
			o1, o2, w0, w1, w2, w3 = sb, sb+sg, 256-fb, fb-fg, fg-fr, fr
		}
		for c := range int32(3) {
			v := w0*n[base+c] + w1*n[base+o1+c] + w2*n[base+o2+c] + w3*n[base+sr+sg+sb+c]
			dst[q+int(c)] = enc[min(max((v+1<<(shift-1))>>shift, 0), 1<<encodeBits)]
		}
		dst[q+3] = 255
		if bands == 4 {
			dst[q+3] = src[p+3]
		}
	}
}

// linear is the look on one sRGB colour (components 0..1): to CIE Lab
// (D65), through the tone curve and the axis maps, and back to linear-
// light RGB, which is outside 0..1 for a colour the look pushes out of
// the sRGB gamut.
func (l look) linear(rgb [3]float64) [3]float64 {
	L, a, b := colour.LinearToLab(colour.SRGBToLinear(rgb[0]), colour.SRGBToLinear(rgb[1]), colour.SRGBToLinear(rgb[2]))
	vib := chromaGain(math.Hypot(a, b), l.vibrance)
	wb := min(max(L/50, 0), 1)
	tint := min(max((L-50)/50, -1), 1)
	a = a*l.gainA*vib + wb*l.shiftA + 0.5*l.split*tint
	b = b*l.gainB*vib + wb*l.shiftB + l.split*tint
	r, g, bl := colour.LabToLinear(l.tone(L), a, b)
	return [3]float64{r, g, bl}
}

// apply is the look on one sRGB colour (components 0..1), clipped to the
// sRGB gamut channel by channel: what the table approximates.
func (l look) apply(rgb [3]float64) [3]float64 {
	out := l.linear(rgb)
	for i, c := range out {
		out[i] = colour.LinearToSRGB(min(max(c, 0), 1))
	}
	return out
}

type tableKey struct {
	p  Preset
	in Intensity
}

var (
	tableMu sync.Mutex
	tables  = map[tableKey]*colourTable{}
)

// tableFor returns the colour table of a preset at an intensity, built on
// first use (the exact Lab math at each of its gridN³ nodes) and kept for
// the life of the process: 18 tables of 430 KB at most, only ever read
// after they are built.
func tableFor(p Preset, in Intensity) (*colourTable, error) {
	l, ok := looks[p]
	if !ok {
		return nil, fmt.Errorf("edit: unknown preset %q", p)
	}
	k, ok := intensityScale[in]
	if !ok {
		return nil, fmt.Errorf("edit: unknown intensity %q", in)
	}
	key := tableKey{p, in}
	tableMu.Lock()
	defer tableMu.Unlock()
	t := tables[key]
	if t == nil {
		t = l.scaled(k).table()
		tables[key] = t
	}
	return t, nil
}

// ColorEnhance applies a preset at an intensity to an encoded JPEG or
// PNG and returns a picture of the same size and format (a PNG keeps its
// transparency).
//
// The look is defined in CIE Lab (D65): L* through the preset's tone
// curve, a* and b* through its gain, vibrance, white-balance shift and
// split tone.
// libvips decodes and encodes; in between every pixel goes through the
// look's colour table (see colourTable for why not libvips' Lab).
func ColorEnhance(data []byte, p Preset, in Intensity) (encode.Picture, error) {
	if in == "" {
		in = Medium
	}
	t, err := tableFor(p, in)
	if err != nil {
		return encode.Picture{}, err
	}
	return applyTable(data, t)
}

func applyTable(data []byte, t *colourTable) (encode.Picture, error) {
	ref, typ, err := load(data)
	if err != nil {
		return encode.Picture{}, err
	}
	defer ref.Close()
	if err := toSRGB8(ref); err != nil {
		return encode.Picture{}, err
	}
	w, h, bands := ref.Width(), ref.Height(), ref.Bands()
	raw, err := ref.ToBytes()
	if err != nil {
		return encode.Picture{}, fmt.Errorf("edit: read pixels: %w", err)
	}
	if bands != 3 && bands != 4 || len(raw) < w*h*bands {
		return encode.Picture{}, fmt.Errorf("edit: unexpected pixels: %d bands, %d bytes for %d×%d", bands, len(raw), w, h)
	}
	rect := image.Rect(0, 0, w, h)
	if typ == vips.ImageTypePNG {
		m := image.NewNRGBA(rect)
		t.apply(m.Pix, raw, bands)
		return encode.Encode(m, true)
	}
	// A JPEG has no alpha band, so the result is opaque as it stands.
	m := image.NewRGBA(rect)
	t.apply(m.Pix, raw, bands)
	data, err = encode.OpaqueJPEG(m)
	if err != nil {
		return encode.Picture{}, err
	}
	return encode.Picture{Data: data, ContentType: encode.ContentTypeJPEG, Width: w, Height: h}, nil
}
