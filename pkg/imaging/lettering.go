// Package lettering sets short texts on pictures the way thumbnails carry
// them: an embedded heavy font, a light fill, a dark outline and a soft
// drop shadow (or a panel behind the words), so that they read over any
// photo. Fit lays a text out at the largest size whose block fits a box
// in a given number of lines; the block is then drawn where the caller
// wants it. Its footprint (Block.Bounds) includes the outline, shadow and
// panel, so a caller that places the footprint inside a region knows no
// pixel outside it changes.
//
// The edit grammar's "add text", and combine's labels and VS badge are
// set with it, so text looks the same in every edit.
package imaging

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"hookline.dev/pkg/fonts"
)

// Align is how the lines of a block line up with each other.
type Align int

// The alignments.
const (
	Centre Align = iota
	Left
	Right
)

// Style is how a text looks. Widths and offsets are fractions of the font
// size, so a style looks the same at any size.
type Style struct {
	Font fonts.Name
	Fill color.NRGBA
	// Outline is drawn OutlineWidth wide around the glyphs (0: none).
	Outline      color.NRGBA
	OutlineWidth float64
	// Shadow is the opacity (0..1) of a soft black shadow cast down and
	// to the right by the glyphs and their outline (0: none).
	Shadow float64
	// Panel, when not fully transparent, is a rounded rectangle behind
	// the words.
	Panel color.NRGBA
	Align Align
}

// Shadow geometry, in font sizes: how far it falls and how soft it is.
const (
	shadowOffset = 0.05
	shadowBlur   = 0.06
)

// Panel geometry, in font sizes: the room around the words and the
// corner radius.
const (
	panelPadX   = 0.38
	panelPadY   = 0.24
	panelRadius = 0.22
)

// leading is the distance between baselines in font sizes: tight, as
// headlines are set.
const leading = 1.02

// refSize is the size texts are measured at; glyphs are not hinted, so
// every extent scales linearly with the size.
const refSize = 100

// minSize is the smallest font size, in pixels, worth drawing.
const minSize = 1

// ErrEmpty is returned by Fit for a text with nothing to draw.
var ErrEmpty = errors.New("lettering: empty text")

// Block is a text laid out at one size, ready to draw.
type Block struct {
	style Style
	font  *opentype.Font
	size  float64
	lines []line
	// bounds is the footprint: ink, outline, shadow and panel, with its
	// top-left corner at (0, 0).
	bounds image.Rectangle
	// ink is where the glyphs' ink lies inside the footprint.
	ink image.Rectangle
}

// line is one line of a block: its text, and where its dot goes in the
// footprint.
type line struct {
	text string
	dot  fixed.Point26_6
}

// inkBox is where a line's ink lies at refSize, relative to its dot.
type inkBox struct{ x0, x1, y0, y1 float64 }

// Fit lays text out in at most maxLines lines (words are never broken) at
// the largest size, up to maxSize pixels, whose footprint fits within box.
// A taller layout wins only when it allows a clearly larger size: fewer
// lines read faster. The size can be tiny when the box is: callers that
// need legible text check Size; it is 0 when not even minSize fits.
func Fit(text string, st Style, box image.Point, maxLines int, maxSize float64) (Block, error) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return Block{}, ErrEmpty
	}
	f, err := fonts.Load(st.Font)
	if err != nil {
		return Block{}, fmt.Errorf("lettering: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: refSize, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return Block{}, fmt.Errorf("lettering: font face: %w", err)
	}
	defer func() { _ = face.Close() }() // an opentype face holds no resources: Close is always nil
	measured := map[string]inkBox{}
	measure := func(s string) inkBox {
		if b, ok := measured[s]; ok {
			return b
		}
		r, _ := font.BoundString(face, s)
		b := inkBox{fix(r.Min.X), fix(r.Max.X), fix(r.Min.Y), fix(r.Max.Y)}
		measured[s] = b
		return b
	}
	padX, padY := st.pad()
	var best []string
	bestSize := -1.0
	for n := 1; n <= min(max(1, maxLines), len(words)); n++ {
		for _, br := range breaks(words, n) {
			w, h := blockInk(br, measure)
			size := min(maxSize, float64(box.X)/(w/refSize+2*padX), float64(box.Y)/(h/refSize+2*padY))
			if size > bestSize*1.04 {
				best, bestSize = br, size
			}
		}
	}
	b := Block{style: st, font: f, size: max(bestSize, 0)}
	b.layout(best, measure)
	// Rounding the footprint up may cross the box by a pixel: shrink
	// until it fits. A box too small for any text gets none (size 0:
	// Draw draws nothing).
	for b.bounds.Dx() > box.X || b.bounds.Dy() > box.Y {
		if b.size < minSize {
			b.size = 0
			break
		}
		b.size *= 0.98
		b.layout(best, measure)
	}
	return b, nil
}

// pad is the room around the ink the style's outline, shadow and panel
// take, per unit of font size.
func (st Style) pad() (x, y float64) {
	p := 0.0
	if st.OutlineWidth > 0 {
		p = st.OutlineWidth
	}
	if st.Shadow > 0 {
		p += shadowOffset + 2*shadowBlur
	}
	if st.Panel.A > 0 {
		return max(p, panelPadX), max(p, panelPadY)
	}
	return p, p
}

// blockInk is the width and height at refSize of the ink of lines set
// leading apart.
func blockInk(lines []string, measure func(string) inkBox) (w, h float64) {
	top, bottom := math.Inf(1), math.Inf(-1)
	for i, l := range lines {
		b := measure(l)
		w = max(w, b.x1-b.x0)
		base := float64(i) * leading * refSize
		top, bottom = min(top, base+b.y0), max(bottom, base+b.y1)
	}
	return w, bottom - top
}

// layout places lines at b.size: the footprint, the ink box and each
// line's dot.
func (b *Block) layout(lines []string, measure func(string) inkBox) {
	k := b.size / refSize
	w, h := blockInk(lines, measure)
	padX, padY := b.style.pad()
	// One pixel of slack on each side for antialiasing.
	px, py := math.Ceil(padX*b.size)+1, math.Ceil(padY*b.size)+1
	iw, ih := math.Ceil(w*k), math.Ceil(h*k)
	b.bounds = image.Rect(0, 0, int(iw+2*px), int(ih+2*py))
	b.ink = image.Rect(int(px), int(py), int(px+iw), int(py+ih))
	top := math.Inf(1)
	for i, l := range lines {
		top = min(top, float64(i)*leading*refSize+measure(l).y0)
	}
	b.lines = b.lines[:0]
	for i, l := range lines {
		m := measure(l)
		lw := (m.x1 - m.x0) * k
		x := px - m.x0*k
		switch b.style.Align {
		case Centre:
			x += (iw - lw) / 2
		case Right:
			x += iw - lw
		}
		y := py + (float64(i)*leading*refSize-top)*k
		b.lines = append(b.lines, line{text: l, dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}})
	}
}

// breaks lists the ways to set words in exactly n lines, in order.
func breaks(words []string, n int) [][]string {
	if n == 1 {
		return [][]string{{strings.Join(words, " ")}}
	}
	var out [][]string
	for first := 1; first <= len(words)-n+1; first++ {
		head := strings.Join(words[:first], " ")
		for _, rest := range breaks(words[first:], n-1) {
			out = append(out, append([]string{head}, rest...))
		}
	}
	return out
}

func fix(v fixed.Int26_6) float64 { return float64(v) / 64 }

// Size is the font size in pixels.
func (b Block) Size() float64 { return b.size }

// Lines is the text as it is broken into lines.
func (b Block) Lines() []string {
	out := make([]string, len(b.lines))
	for i, l := range b.lines {
		out[i] = l.text
	}
	return out
}

// Bounds is the footprint's size: every pixel Draw may change lies in
// Bounds().Add(at).
func (b Block) Bounds() image.Rectangle { return b.bounds }

// Ink is where the glyphs lie inside the footprint.
func (b Block) Ink() image.Rectangle { return b.ink }

// Draw sets the block on dst with its footprint's top-left corner at at:
// shadow, panel, outline, then the fill. Whatever falls outside dst is
// clipped.
func (b Block) Draw(dst *image.NRGBA, at image.Point) error {
	if b.size <= 0 || b.bounds.Empty() {
		return nil
	}
	face, err := opentype.NewFace(b.font, &opentype.FaceOptions{Size: b.size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return fmt.Errorf("lettering: font face: %w", err)
	}
	defer func() { _ = face.Close() }() // an opentype face holds no resources: Close is always nil
	st := b.style
	fill := image.NewAlpha(b.bounds)
	for _, l := range b.lines {
		d := font.Drawer{Dst: fill, Src: image.Opaque, Face: face, Dot: l.dot}
		d.DrawString(l.text)
	}
	ink := fill
	if st.OutlineWidth > 0 {
		ink = dilate(fill, st.OutlineWidth*b.size)
	}
	if st.Shadow > 0 {
		shadow := Blur(shift(ink, image.Pt(int(math.Round(shadowOffset*b.size)), int(math.Round(shadowOffset*b.size)))), shadowBlur*b.size)
		Paint(dst, shadow, at, color.NRGBA{A: 255}, st.Shadow)
	}
	if st.Panel.A > 0 {
		px, py := int(math.Round(panelPadX*b.size)), int(math.Round(panelPadY*b.size))
		r := image.Rect(b.ink.Min.X-px, b.ink.Min.Y-py, b.ink.Max.X+px, b.ink.Max.Y+py)
		Paint(dst, RoundRect(b.bounds, r, panelRadius*b.size), at, st.Panel, 1)
	}
	if st.OutlineWidth > 0 {
		Paint(dst, ink, at, st.Outline, 1)
	}
	Paint(dst, fill, at, st.Fill, 1)
	return nil
}

// Missing lists the runes of text the font has no glyph for (spaces and
// other white space aside), each once, in order: what would be drawn as
// empty boxes.
func Missing(name fonts.Name, text string) ([]rune, error) {
	f, err := fonts.Load(name)
	if err != nil {
		return nil, fmt.Errorf("lettering: %w", err)
	}
	var buf sfnt.Buffer
	var out []rune
	seen := map[rune]bool{}
	for _, r := range text {
		if seen[r] || strings.ContainsRune(" \t\n\r\u00a0", r) {
			continue
		}
		seen[r] = true
		if g, err := f.GlyphIndex(&buf, r); err != nil || g == 0 {
			out = append(out, r)
		}
	}
	return out, nil
}
