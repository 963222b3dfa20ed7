package imaging

// Lettering: short texts set the way thumbnails carry them, an embedded
// heavy font, a light fill, a dark outline and a soft drop shadow (or a
// panel behind the words), so that they read over any photo. Fit lays a
// text out at the largest size whose block fits a box in a given number
// of lines; the block is then drawn where the caller wants it. Its
// footprint (Block.Bounds) includes the outline, shadow and panel, so a
// caller that places the footprint inside a region knows no pixel
// outside it changes.

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"

	"hookline.dev/pkg/media/fonts"
)

// Align is how the lines of a block line up with each other.
type Align int

// The alignments.
const (
	Centre Align = iota
	Left
	Right
)

// Case is how a text's letters are cased before it is set.
type Case int

// The cases.
const (
	AsWritten Case = iota
	Upper
	Lower
	// Title capitalises each word's first letter and lowers the rest.
	Title
)

func (c Case) apply(word string) string {
	switch c {
	case Upper:
		return strings.ToUpper(word)
	case Lower:
		return strings.ToLower(word)
	case Title:
		r := []rune(strings.ToLower(word))
		if len(r) > 0 {
			r[0] = []rune(strings.ToUpper(string(r[0])))[0]
		}
		return string(r)
	}
	return word
}

// Style is how a text looks. Widths and offsets are fractions of the font
// size, so a style looks the same at any size.
type Style struct {
	Font fonts.Name
	Case Case
	Fill color.NRGBA
	// Highlight fills the word Block.Highlight picks (transparent: that
	// word is filled like the others).
	Highlight color.NRGBA
	// Outline is drawn OutlineWidth wide around the glyphs (0: none).
	Outline      color.NRGBA
	OutlineWidth float64
	// Shadow is the opacity (0..1) of a soft black shadow cast down and
	// to the right by the panel, or else by the glyphs and their outline
	// (0: none).
	Shadow float64
	// ShadowOutside fits the words as if they cast no shadow: the shadow
	// may fall past the box given to Fit, on the picture around it (a
	// layout's text slot). Body is then what fits the box; Bounds still
	// holds the shadow.
	ShadowOutside bool
	// Panel, when not fully transparent, is a rounded rectangle behind
	// the words.
	Panel color.NRGBA
	Align Align
	// Leading is the distance between baselines, in font sizes (0:
	// defaultLeading).
	Leading float64
	// Rotate turns the block by this many degrees, counter-clockwise,
	// about its footprint's centre when it is drawn. Fit lays the block
	// out unturned, and Bounds are the unturned footprint: the corners
	// of a turned block reach past them.
	Rotate float64
}

// shadowRoom is the room, in font sizes, a shadow takes around the words:
// its fall and three times its blur, as far as the blur's boxes reach.
const shadowRoom = shadowOffsetY + 3*shadowSigma

// Panel geometry, in font sizes: the room around the words and the
// corner radius.
const (
	panelPadX   = 0.38
	panelPadY   = 0.24
	panelRadius = 0.22
)

// defaultLeading is the distance between baselines in font sizes of a
// style that sets none: tight, as headlines are set.
const defaultLeading = 1.02

// stubLine: a layout whose shortest line is narrower than this share of
// its longest is picked only when clearly larger (stubPenalty): a stub
// of a line under a long one looks like a mistake.
const (
	stubLine    = 0.35
	stubPenalty = 0.85
)

// refSize is the size texts are measured at; glyphs are not hinted, so
// every extent scales linearly with the size.
const refSize = 100

// minSize is the smallest font size, in pixels, worth drawing.
const minSize = 1

// ErrEmpty is returned by Fit for a text with nothing to draw.
var ErrEmpty = errors.New("imaging: empty text")

// Block is a text laid out at one size, ready to draw.
type Block struct {
	style Style
	font  *opentype.Font
	size  float64
	lines []line
	// highlight is the index of the word filled with the highlight
	// colour (-1: none).
	highlight int
	// bounds is the footprint: ink, outline, shadow and panel, with its
	// top-left corner at (0, 0).
	bounds image.Rectangle
	// body is the footprint without the shadow's room; ink is where the
	// glyphs' ink lies.
	body, ink image.Rectangle
}

// line is one line of a block: its text, where its dot goes in the
// footprint, and the index of its first word in the text.
type line struct {
	text  string
	dot   fixed.Point26_6
	first int
}

// inkBox is where a line's ink lies at refSize, relative to its dot.
type inkBox struct{ x0, x1, y0, y1 float64 }

// Fit lays text out in at most maxLines lines (words are never broken) at
// the largest size, up to maxSize pixels, whose footprint (or body, for a
// style whose shadow falls outside) fits within box. A taller layout wins
// only when it allows a clearly larger size: fewer lines read faster. The
// size can be tiny when the box is: callers that need legible text check
// Size; it is 0 when not even minSize fits.
func Fit(text string, st Style, box image.Point, maxLines int, maxSize float64) (Block, error) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return Block{}, ErrEmpty
	}
	for i, w := range words {
		words[i] = st.Case.apply(w)
	}
	f, err := fonts.Load(st.Font)
	if err != nil {
		return Block{}, fmt.Errorf("imaging: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: refSize, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return Block{}, fmt.Errorf("imaging: font face: %w", err)
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
	padX, padY := st.fitPad()
	var best []string
	bestSize, bestScore := 0.0, -1.0
	for n := 1; n <= min(max(1, maxLines), len(words)); n++ {
		for _, br := range breaks(words, n) {
			w, h, narrowest := st.blockInk(br, measure)
			size := min(maxSize, float64(box.X)/(w/refSize+2*padX), float64(box.Y)/(h/refSize+2*padY))
			score := size
			if narrowest < stubLine*w {
				score *= stubPenalty
			}
			if score > bestScore*1.04 {
				best, bestSize, bestScore = br, size, score
			}
		}
	}
	b := Block{style: st, font: f, size: max(bestSize, 0), highlight: -1}
	b.layout(best, measure)
	// Rounding the footprint up may cross the box by a pixel: shrink
	// until it fits. A box too small for any text gets none (size 0:
	// Draw draws nothing).
	for fitted := b.fitted(); fitted.Dx() > box.X || fitted.Dy() > box.Y; fitted = b.fitted() {
		if b.size < minSize {
			b.size = 0
			break
		}
		b.size *= 0.98
		b.layout(best, measure)
	}
	return b, nil
}

// bodyPad is the room around the ink the style's outline and panel take,
// per unit of font size.
func (st Style) bodyPad() (x, y float64) {
	p := max(st.OutlineWidth, 0)
	if st.Panel.A > 0 {
		return max(p, panelPadX), max(p, panelPadY)
	}
	return p, p
}

// pad is the room around the ink of the whole footprint: the body's and
// the shadow's.
func (st Style) pad() (x, y float64) {
	x, y = st.bodyPad()
	if st.Shadow > 0 {
		x, y = x+shadowRoom, y+shadowRoom
	}
	return x, y
}

// fitPad is the room around the ink that must fit the box.
func (st Style) fitPad() (x, y float64) {
	if st.ShadowOutside {
		return st.bodyPad()
	}
	return st.pad()
}

func (st Style) leading() float64 {
	if st.Leading > 0 {
		return st.Leading
	}
	return defaultLeading
}

// blockInk is the width and height at refSize of the ink of lines set
// leading apart, and the width of the narrowest line.
func (st Style) blockInk(lines []string, measure func(string) inkBox) (w, h, narrowest float64) {
	top, bottom := math.Inf(1), math.Inf(-1)
	narrowest = math.Inf(1)
	for i, l := range lines {
		b := measure(l)
		w, narrowest = max(w, b.x1-b.x0), min(narrowest, b.x1-b.x0)
		base := float64(i) * st.leading() * refSize
		top, bottom = min(top, base+b.y0), max(bottom, base+b.y1)
	}
	return w, bottom - top, narrowest
}

// layout places lines at b.size: the footprint, the body, the ink box
// and each line's dot.
func (b *Block) layout(lines []string, measure func(string) inkBox) {
	st := b.style
	k := b.size / refSize
	w, h, _ := st.blockInk(lines, measure)
	padX, padY := st.pad()
	bodyX, bodyY := st.bodyPad()
	// One pixel of slack on each side for antialiasing.
	px, py := math.Ceil(padX*b.size)+1, math.Ceil(padY*b.size)+1
	bx, by := int(math.Ceil(bodyX*b.size))+1, int(math.Ceil(bodyY*b.size))+1
	iw, ih := math.Ceil(w*k), math.Ceil(h*k)
	b.bounds = image.Rect(0, 0, int(iw+2*px), int(ih+2*py))
	b.ink = image.Rect(int(px), int(py), int(px+iw), int(py+ih))
	b.body = image.Rect(b.ink.Min.X-bx, b.ink.Min.Y-by, b.ink.Max.X+bx, b.ink.Max.Y+by)
	top := math.Inf(1)
	for i, l := range lines {
		top = min(top, float64(i)*st.leading()*refSize+measure(l).y0)
	}
	b.lines = b.lines[:0]
	first := 0
	for i, l := range lines {
		m := measure(l)
		lw := (m.x1 - m.x0) * k
		x := px - m.x0*k
		switch st.Align {
		case Centre:
			x += (iw - lw) / 2
		case Right:
			x += iw - lw
		}
		y := py + (float64(i)*st.leading()*refSize-top)*k
		b.lines = append(b.lines, line{text: l, dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}, first: first})
		first += len(strings.Fields(l))
	}
}

// fitted is what Fit fits in its box: the footprint, or the body of a
// style whose shadow falls outside.
func (b Block) fitted() image.Rectangle {
	if b.style.ShadowOutside {
		return b.body
	}
	return b.bounds
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

// Lines is the text as it is broken into lines (and cased).
func (b Block) Lines() []string {
	out := make([]string, len(b.lines))
	for i, l := range b.lines {
		out[i] = l.text
	}
	return out
}

// Bounds is the footprint's size: every pixel an unturned Draw may
// change lies in Bounds().Add(at).
func (b Block) Bounds() image.Rectangle { return b.bounds }

// Body is where the words, their outline and panel lie inside the
// footprint: the footprint without the shadow's room.
func (b Block) Body() image.Rectangle { return b.body }

// Ink is where the glyphs lie inside the footprint.
func (b Block) Ink() image.Rectangle { return b.ink }

// Highlight is the block with its word-th word (counting from 0, as
// strings.Fields splits the text) filled with the style's Highlight
// colour; -1 highlights none.
func (b Block) Highlight(word int) Block {
	b.highlight = word
	return b
}

// Draw sets the block on dst with its footprint's top-left corner at at:
// shadow, panel, outline, then the fill. Whatever falls outside dst is
// clipped. A turned block is drawn through a layer (Render).
func (b Block) Draw(dst draw.Image, at image.Point) error {
	if b.style.Rotate != 0 {
		l, err := b.Render()
		if err != nil {
			return err
		}
		l.Draw(dst, at)
		return nil
	}
	return b.paint(dst, at)
}

// Layer is a block drawn on a transparent picture of its own, to be laid
// over another later: a caller can set its texts while it draws what
// goes under them.
type Layer struct {
	img  *image.RGBA
	turn float64
}

// Render draws the block on a layer the size of its footprint.
func (b Block) Render() (Layer, error) {
	l := Layer{img: image.NewRGBA(b.bounds), turn: b.style.Rotate}
	return l, b.paint(l.img, image.Point{})
}

// Draw lays the layer over dst with the footprint's top-left corner at at,
// turned by the style's Rotate about the footprint's centre.
func (l Layer) Draw(dst draw.Image, at image.Point) {
	lb := l.img.Bounds()
	if l.turn == 0 {
		draw.Draw(dst, lb.Add(at), l.img, image.Point{}, draw.Over)
		return
	}
	a := -l.turn * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	cx, cy := float64(lb.Dx())/2, float64(lb.Dy())/2
	tx, ty := float64(at.X)+cx, float64(at.Y)+cy
	// Layer to dst: about the centre, turned, moved to at.
	m := f64.Aff3{cos, -sin, tx - cos*cx + sin*cy, sin, cos, ty - sin*cx - cos*cy}
	xdraw.BiLinear.Transform(dst, m, l.img, lb, xdraw.Over, nil)
}

// paint draws the block, unturned, on dst at at.
func (b Block) paint(dst draw.Image, at image.Point) error {
	if b.size <= 0 || b.bounds.Empty() {
		return nil
	}
	face, err := opentype.NewFace(b.font, &opentype.FaceOptions{Size: b.size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return fmt.Errorf("imaging: font face: %w", err)
	}
	defer func() { _ = face.Close() }() // an opentype face holds no resources: Close is always nil
	st := b.style
	fill := image.NewAlpha(b.bounds)
	var hl *image.Alpha
	if b.highlight >= 0 && st.Highlight.A > 0 {
		hl = image.NewAlpha(b.bounds)
	}
	for _, l := range b.lines {
		d := font.Drawer{Dst: fill, Src: image.Opaque, Face: face, Dot: l.dot}
		words := strings.Fields(l.text)
		if hl == nil || b.highlight < l.first || b.highlight >= l.first+len(words) {
			d.DrawString(l.text)
			continue
		}
		for i, w := range words {
			if i > 0 {
				d.DrawString(" ")
			}
			d.Dst = fill
			if l.first+i == b.highlight {
				d.Dst = hl
			}
			d.DrawString(w)
		}
	}
	ink := fill
	if hl != nil {
		ink = image.NewAlpha(b.bounds)
		for i := range ink.Pix {
			ink.Pix[i] = max(fill.Pix[i], hl.Pix[i])
		}
	}
	outline := ink
	if st.OutlineWidth > 0 {
		outline = Dilate(ink, st.OutlineWidth*b.size)
	}
	var panel *image.Alpha
	if st.Panel.A > 0 {
		px, py := int(math.Round(panelPadX*b.size)), int(math.Round(panelPadY*b.size))
		r := image.Rect(b.ink.Min.X-px, b.ink.Min.Y-py, b.ink.Max.X+px, b.ink.Max.Y+py)
		panel = RoundRect(b.bounds, r, panelRadius*b.size)
	}
	if st.Shadow > 0 {
		caster := outline
		if panel != nil {
			caster = panel
		}
		Paint(dst, Shadow(caster, b.size), at, color.NRGBA{A: 255}, st.Shadow)
	}
	if panel != nil {
		Paint(dst, panel, at, st.Panel, 1)
	}
	if st.OutlineWidth > 0 {
		Paint(dst, outline, at, st.Outline, 1)
	}
	Paint(dst, fill, at, st.Fill, 1)
	if hl != nil {
		Paint(dst, hl, at, st.Highlight, 1)
	}
	return nil
}

// Missing lists the runes of text the font has no glyph for (spaces and
// other white space aside), each once, in order: what would be drawn as
// empty boxes.
func Missing(name fonts.Name, text string) ([]rune, error) {
	f, err := fonts.Load(name)
	if err != nil {
		return nil, fmt.Errorf("imaging: %w", err)
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
