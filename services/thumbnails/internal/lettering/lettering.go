// Package lettering draws short bold text onto pictures for the edits:
// the text of an "add text" instruction and the labels and badge of a
// combined picture. Text is set in the heavy display face as large as
// the box allows (at most two lines), filled with one colour and
// outlined with another so that it reads on any background.
package lettering

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"hookline.dev/pkg/fonts"
)

var heavy = sync.OnceValues(func() (*opentype.Font, error) { return fonts.Load(fonts.Heavy) })

// Draw sets text centred in box on dst: fill inside, a stroke of about a
// twelfth of the letter height around it.
func Draw(dst *image.NRGBA, box image.Rectangle, text string, fill, stroke color.NRGBA) error {
	f, err := heavy()
	if err != nil {
		return fmt.Errorf("lettering: %w", err)
	}
	lines, size := fit(f, strings.Fields(text), box)
	if size < 6 {
		return nil // nothing legible fits
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return fmt.Errorf("lettering: %w", err)
	}
	defer func() { _ = face.Close() }()
	mask := image.NewAlpha(box)
	m := face.Metrics()
	lineH := (m.Ascent + m.Descent).Ceil()
	top := box.Min.Y + (box.Dy()-lineH*len(lines))/2
	for i, ln := range lines {
		d := font.Drawer{Dst: mask, Src: image.Opaque, Face: face}
		w := d.MeasureString(ln).Ceil()
		d.Dot = fixed.P(box.Min.X+(box.Dx()-w)/2, top+i*lineH+m.Ascent.Ceil())
		d.DrawString(ln)
	}
	r := max(1, int(size/12))
	draw.DrawMask(dst, box, image.NewUniform(stroke), image.Point{}, dilate(mask, r), box.Min, draw.Over)
	draw.DrawMask(dst, box, image.NewUniform(fill), image.Point{}, mask, box.Min, draw.Over)
	return nil
}

// fit chooses one or two lines and the largest size (points at 72 dpi =
// pixels) at which they fill at most 92 % of the box's width and 80 % of
// its height.
func fit(f *opentype.Font, words []string, box image.Rectangle) ([]string, float64) {
	var best []string
	bestSize := 0.0
	options := [][]string{{strings.Join(words, " ")}}
	for i := 1; i < len(words); i++ {
		options = append(options, []string{strings.Join(words[:i], " "), strings.Join(words[i:], " ")})
	}
	for _, lines := range options {
		size := largest(f, lines, 0.92*float64(box.Dx()), 0.8*float64(box.Dy()))
		if size > bestSize {
			best, bestSize = lines, size
		}
	}
	return best, bestSize
}

// largest is the largest size at which lines fit w×h: the widths scale
// with the size, so one measurement at 100 px decides it.
func largest(f *opentype.Font, lines []string, w, h float64) float64 {
	const probe = 100.0
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: probe, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return 0
	}
	defer func() { _ = face.Close() }()
	m := face.Metrics()
	lineH := float64((m.Ascent + m.Descent).Ceil())
	widest := 1.0
	for _, ln := range lines {
		widest = max(widest, float64(font.MeasureString(face, ln).Ceil()))
	}
	return min(probe*w/widest, probe*h/(lineH*float64(len(lines))))
}

// dilate grows a mask by r pixels (a square max filter, rows then
// columns).
func dilate(m *image.Alpha, r int) *image.Alpha {
	b := m.Bounds()
	tmp := image.NewAlpha(b)
	out := image.NewAlpha(b)
	w, h := b.Dx(), b.Dy()
	for y := range h {
		for x := range w {
			var v uint8
			for dx := max(0, x-r); dx <= min(w-1, x+r); dx++ {
				v = max(v, m.Pix[y*m.Stride+dx])
			}
			tmp.Pix[y*tmp.Stride+x] = v
		}
	}
	for y := range h {
		for x := range w {
			var v uint8
			for dy := max(0, y-r); dy <= min(h-1, y+r); dy++ {
				v = max(v, tmp.Pix[dy*tmp.Stride+x])
			}
			out.Pix[y*out.Stride+x] = v
		}
	}
	return out
}
