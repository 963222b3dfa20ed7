package compose

import (
	"fmt"
	"image"
	"image/color"
	"strings"

	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/imaging"
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

// Line spacing, baseline to baseline in font sizes: capitals sit on the
// baseline, so their lines pack tight; lower case keeps room for
// ascenders and descenders.
const (
	capsLeading  = 0.88
	mixedLeading = 1.2
)

// minLegible is the smallest font size, in pixels, a slot is set at: a
// slot that cannot hold its words any larger stays empty.
const minLegible = 4

// shadowOpacity is how dark the drop shadows of text, plates, accents and
// faces are.
const shadowOpacity = 0.75

// cases maps a layout's cases to the setter's.
var cases = map[layout.Case]imaging.Case{
	layout.CaseUpper: imaging.Upper, layout.CaseLower: imaging.Lower, layout.CaseTitle: imaging.Title,
}

// textStyle is how slot s looks in palette p. The shadow falls outside the
// slot's box: a slot is where the words go, and their shadow may fall on
// the picture around them.
func textStyle(s layout.Text, p layout.Palette) imaging.Style {
	st := imaging.Style{
		Font:          fonts.Name(s.Font),
		Case:          cases[s.Case],
		Fill:          opaque(p[s.Color]),
		Outline:       opaque(p[s.StrokeColor]),
		OutlineWidth:  s.Stroke,
		ShadowOutside: true,
		Leading:       mixedLeading,
		Rotate:        s.Rotate,
	}
	if s.Case == layout.CaseUpper || s.Font == string(fonts.Display) {
		st.Leading = capsLeading
	}
	if s.Highlight != "" {
		st.Highlight = opaque(p[s.Highlight])
	}
	// A plate always casts a shadow: it stands off the picture.
	if s.Plate != "" {
		st.Panel = opaque(p[s.Plate])
	}
	if s.Shadow || s.Plate != "" {
		st.Shadow = shadowOpacity
	}
	switch s.Align {
	case layout.AlignCenter:
		st.Align = imaging.Centre
	case layout.AlignRight:
		st.Align = imaging.Right
	default:
		st.Align = imaging.Left
	}
	return st
}

// opaque is a palette colour (always opaque) as the setter takes colours.
func opaque(c color.RGBA) color.NRGBA { return color.NRGBA{c.R, c.G, c.B, 255} }

// placed is a text block drawn on its own layer, ready to go over the
// canvas with its footprint's corner at at.
type placed struct {
	layer imaging.Layer
	at    image.Point
}

// drawText sets job on the canvas.
func drawText(canvas *image.RGBA, job textJob, p layout.Palette, short int) error {
	pl, err := renderText(job, p, short)
	if err != nil || pl == nil {
		return err
	}
	pl.layer.Draw(canvas, pl.at)
	return nil
}

// renderText sets job's words in its box at the largest size that fits
// (up to the slot's size), on a layer of its own. It is nil when there is
// nothing to set or nothing legible fits.
func renderText(job textJob, p layout.Palette, short int) (*placed, error) {
	if len(job.words) == 0 {
		return nil, nil
	}
	s := job.slot
	maxLines := s.MaxLines
	if maxLines == 0 {
		maxLines = 3
	}
	b, err := imaging.Fit(strings.Join(job.words, " "), textStyle(s, p), job.box.Size(), maxLines, s.Size*float64(short))
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	if b.Size() < minLegible {
		return nil, nil // nothing legible fits: leave the slot empty
	}
	layer, err := b.Highlight(job.highlight).Render()
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	// The body goes in the box by the alignments; the shadow's room hangs
	// outside.
	body := b.Body()
	at := image.Pt(
		job.box.Min.X+int(share(float64(job.box.Dx()-body.Dx()), s.Align == layout.AlignCenter, s.Align == layout.AlignRight))-body.Min.X,
		job.box.Min.Y+int(share(float64(job.box.Dy()-body.Dy()), s.VAlign == layout.VAlignMiddle, s.VAlign == layout.VAlignBottom))-body.Min.Y,
	)
	return &placed{layer: layer, at: at}, nil
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
