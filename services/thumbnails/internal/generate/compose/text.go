package compose

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"strings"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"

	"hookline.dev/pkg/fonts"
	"hookline.dev/services/thumbnails/internal/generate/layout"
)

// textJob is one text slot to set: its words, the word to highlight (-1:
// none) and where.
type textJob struct {
	slot      layout.Text
	words     []string
	highlight int
	box       image.Rectangle // in canvas pixels
}

// refSize is the size words are measured at; advances scale linearly
// with size because glyphs are not hinted.
const refSize = 100

// fit is a text block's chosen line breaks and font size.
type fit struct {
	lines [][]int // word indices per line
	size  float64
}

func applyCase(s string, c layout.Case) string {
	switch c {
	case layout.CaseUpper:
		return strings.ToUpper(s)
	case layout.CaseLower:
		return strings.ToLower(s)
	case layout.CaseTitle:
		r := []rune(strings.ToLower(s))
		if len(r) > 0 {
			r[0] = []rune(strings.ToUpper(string(r[0])))[0]
		}
		return string(r)
	}
	return s
}

// metrics measures a font at refSize: each word's advance, a space, and
// the vertical extent of a line.
type metrics struct {
	words  []float64
	space  float64
	capTop float64 // baseline to the top of capitals (or ascenders)
	below  float64 // baseline to the bottom of descenders that matter
}

func measure(f *opentype.Font, words []string, upper bool) (metrics, error) {
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: refSize, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return metrics{}, fmt.Errorf("compose: font face: %w", err)
	}
	defer func() { _ = face.Close() }() // an opentype face holds no resources: Close is always nil
	m := metrics{space: fix(font.MeasureString(face, " "))}
	for _, w := range words {
		m.words = append(m.words, fix(font.MeasureString(face, w)))
	}
	fm := face.Metrics()
	if upper {
		// Capitals sit on the baseline: lines can pack tight.
		m.capTop, m.below = fix(fm.CapHeight), 0.04*refSize
	} else {
		m.capTop, m.below = fix(fm.Ascent)*0.92, fix(fm.Descent)*0.8
	}
	return m, nil
}

func fix(v fixed.Int26_6) float64 { return float64(v) / 64 }

// lineGap is the space between lines, as a fraction of the font size.
const lineGap = 0.12

// chooseFit tries every way of breaking the words into 1..maxLines lines
// and keeps the one that allows the largest font inside w×h, capped at
// maxSize; pad is the room stroke and shadow take, per unit of font size.
func chooseFit(m metrics, maxLines int, w, h, maxSize, pad float64) fit {
	n := len(m.words)
	best := fit{size: -1}
	lineH := (m.capTop + m.below) / refSize
	for lines := 1; lines <= min(maxLines, n); lines++ {
		for _, br := range partitions(n, lines) {
			widest, narrowest := 0.0, math.Inf(1)
			for _, ln := range br {
				lw := lineWidth(m, ln) / refSize
				widest, narrowest = math.Max(widest, lw), math.Min(narrowest, lw)
			}
			height := float64(lines)*lineH + float64(lines-1)*lineGap
			size := math.Min(maxSize, math.Min(w/(widest+2*pad), h/(height+2*pad)))
			if narrowest < widest*0.35 {
				// A stub of a line under a long one looks like a mistake.
				size *= 0.85
			}
			// A taller block wins only when clearly bigger: fewer lines read
			// faster.
			if size > best.size*1.04 {
				best = fit{lines: br, size: size}
			}
		}
	}
	return best
}

func lineWidth(m metrics, ln []int) float64 {
	w := 0.0
	for i, k := range ln {
		if i > 0 {
			w += m.space
		}
		w += m.words[k]
	}
	return w
}

// partitions lists the ways to cut n words into k non-empty lines, in
// order.
func partitions(n, k int) [][][]int {
	if k == 1 {
		ln := make([]int, n)
		for i := range ln {
			ln[i] = i
		}
		return [][][]int{{ln}}
	}
	var out [][][]int
	for first := 1; first <= n-k+1; first++ {
		for _, rest := range partitions(n-first, k-1) {
			head := make([]int, first)
			for i := range head {
				head[i] = i
			}
			p := [][]int{head}
			for _, ln := range rest {
				shifted := make([]int, len(ln))
				for i, v := range ln {
					shifted[i] = v + first
				}
				p = append(p, shifted)
			}
			out = append(out, p)
		}
	}
	return out
}

// placed is a text block drawn on its own layer, ready to go over the
// canvas at (x, y), turned by rotate degrees.
type placed struct {
	layer  *image.RGBA
	x, y   int
	rotate float64
}

// drawText sets job on the canvas.
func drawText(canvas *image.RGBA, job textJob, p layout.Palette, short int) error {
	pl, err := renderText(job, p, short)
	if err != nil || pl == nil {
		return err
	}
	placeLayer(canvas, pl.layer, pl.x, pl.y, pl.rotate)
	return nil
}

// renderText draws job's block on a layer of its own: shadow, stroke,
// fill and highlight, optionally on a plate. It is nil when there is
// nothing to set or nothing legible fits.
func renderText(job textJob, p layout.Palette, short int) (*placed, error) {
	if len(job.words) == 0 {
		return nil, nil
	}
	s := job.slot
	f, err := fonts.Load(fonts.Name(s.Font))
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	words := make([]string, len(job.words))
	for i, w := range job.words {
		words[i] = applyCase(w, s.Case)
	}
	m, err := measure(f, words, s.Case == layout.CaseUpper || s.Font == string(fonts.Display))
	if err != nil {
		return nil, err
	}
	maxLines := s.MaxLines
	if maxLines == 0 {
		maxLines = 3
	}
	pad := s.Stroke + 0.02
	if s.Plate != "" {
		pad += 0.18
	}
	bw, bh := float64(job.box.Dx()), float64(job.box.Dy())
	ft := chooseFit(m, maxLines, bw, bh, s.Size*float64(short), pad)
	if ft.size < 4 {
		return nil, nil // nothing legible fits: leave the slot empty
	}
	size := ft.size
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, fmt.Errorf("compose: font face: %w", err)
	}
	defer func() { _ = face.Close() }() // an opentype face holds no resources: Close is always nil
	k := size / refSize
	lineH := (m.capTop + m.below) * k
	gap := lineGap * size
	padPx := pad * size
	var widest float64
	for _, ln := range ft.lines {
		widest = math.Max(widest, lineWidth(m, ln)*k)
	}
	blockW := int(math.Ceil(widest + 2*padPx))
	blockH := int(math.Ceil(float64(len(ft.lines))*lineH + float64(len(ft.lines)-1)*gap + 2*padPx))
	// Room for the shadow's offset and blur around the block.
	margin := int(math.Ceil(size * 0.2))
	lb := image.Rect(0, 0, blockW+2*margin, blockH+2*margin)
	fill, hl := image.NewAlpha(lb), image.NewAlpha(lb)
	for i, ln := range ft.lines {
		lw := lineWidth(m, ln) * k
		x := float64(margin) + padPx + share(widest-lw, s.Align == layout.AlignCenter, s.Align == layout.AlignRight)
		base := float64(margin) + padPx + float64(i)*(lineH+gap) + m.capTop*k
		for _, wi := range ln {
			dst := fill
			if wi == job.highlight && s.Highlight != "" {
				dst = hl
			}
			d := font.Drawer{Dst: dst, Src: image.Opaque, Face: face, Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(base * 64)}}
			d.DrawString(words[wi])
			x += (m.words[wi] + m.space) * k
		}
	}
	layer := image.NewRGBA(lb)
	ink := union(fill, hl)
	outline := ink
	if s.Stroke > 0 {
		outline = dilate(ink, s.Stroke*size)
	}
	switch {
	case s.Plate != "":
		plate := roundRect(lb, image.Rect(margin, margin, margin+blockW, margin+blockH), size*0.12)
		shadowUnder(layer, plate, size)
		draw.DrawMask(layer, lb, image.NewUniform(p[s.Plate]), image.Point{}, plate, image.Point{}, draw.Over)
	case s.Shadow:
		shadowUnder(layer, outline, size)
	}
	if s.Stroke > 0 {
		draw.DrawMask(layer, lb, image.NewUniform(p[s.StrokeColor]), image.Point{}, outline, image.Point{}, draw.Over)
	}
	draw.DrawMask(layer, lb, image.NewUniform(p[s.Color]), image.Point{}, fill, image.Point{}, draw.Over)
	if s.Highlight != "" {
		draw.DrawMask(layer, lb, image.NewUniform(p[s.Highlight]), image.Point{}, hl, image.Point{}, draw.Over)
	}
	// Place the block in its box by the alignments; the margin hangs
	// outside.
	ox := job.box.Min.X - margin + int(share(float64(job.box.Dx()-blockW), s.Align == layout.AlignCenter, s.Align == layout.AlignRight))
	oy := job.box.Min.Y - margin + int(share(float64(job.box.Dy()-blockH), s.VAlign == layout.VAlignMiddle, s.VAlign == layout.VAlignBottom))
	return &placed{layer: layer, x: ox, y: oy, rotate: s.Rotate}, nil
}

// union is the per-pixel maximum of two masks of the same bounds.
func union(a, b *image.Alpha) *image.Alpha {
	u := image.NewAlpha(a.Bounds())
	for i := range u.Pix {
		u.Pix[i] = max(a.Pix[i], b.Pix[i])
	}
	return u
}

// share is how much of the free room goes before a block: none when it
// starts its box, half when centred, all when it ends it.
func share(free float64, centre, end bool) float64 {
	switch {
	case centre:
		return free / 2
	case end:
		return free
	}
	return 0
}

// placeLayer draws layer over canvas with its top-left at (x, y), turned
// by deg degrees (counter-clockwise) about its centre.
func placeLayer(canvas, layer *image.RGBA, x, y int, deg float64) {
	lb := layer.Bounds()
	if deg == 0 {
		draw.Draw(canvas, lb.Add(image.Pt(x, y)), layer, image.Point{}, draw.Over)
		return
	}
	a := -deg * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	cx, cy := float64(lb.Dx())/2, float64(lb.Dy())/2
	tx, ty := float64(x)+cx, float64(y)+cy
	// Source to destination: translate to the centre, rotate, move.
	m := f64.Aff3{cos, -sin, tx - cos*cx + sin*cy, sin, cos, ty - sin*cx - cos*cy}
	xdraw.BiLinear.Transform(canvas, m, layer, lb, xdraw.Over, nil)
}
