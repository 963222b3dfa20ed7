package captions

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"hookline.dev/pkg/media/fonts"
)

// ellipsis ends a token cut to fit.
const ellipsis = "…"

// fitter cuts tokens of text to a width in one font, size and scale.
// libass wraps a line only at spaces, so a token wider than the frame (a
// 300-character URL, a run of one letter) would run off both sides: a
// token that does not fit is cut to the longest prefix that does, followed
// by an ellipsis. Widths are measured with the embedded font at the ASS
// font size as its em, which is more than libass draws (it fits the
// font's ascent and descent into that size), so what fits here fits the
// frame; a rune the font lacks (libass falls back to another font)
// counts a whole em.
type fitter struct {
	face  font.Face // nil: the font could not be loaded; fit by count
	size  float64   // the font size, pixels
	width float64   // the room a token has, pixels, at scale 1
}

// newFitter fits tokens drawn in name at size, scaled up to scale (the
// largest \fscx a style animates to), inside width pixels less pad on
// each side (outline, shadow, box).
func newFitter(name fonts.Name, size, scale, width, pad float64) fitter {
	f := fitter{size: size, width: (width - 2*pad) / scale}
	if otf, err := fonts.Load(name); err == nil {
		if face, err := opentype.NewFace(otf, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone}); err == nil {
			f.face = face
		}
	}
	return f
}

// advance is the width of r, pixels.
func (f fitter) advance(r rune) float64 {
	if f.face != nil {
		if a, ok := f.face.GlyphAdvance(r); ok {
			return fix(a)
		}
	}
	return f.size
}

// measure is the width of s, pixels at scale 1.
func (f fitter) measure(s string) float64 {
	w := 0.0
	for _, r := range s {
		w += f.advance(r)
	}
	return w
}

func fix(v fixed.Int26_6) float64 { return float64(v) / 64 }

// fit cuts each token of s that is wider than the room; the white space
// between tokens is kept as it is.
func (f fitter) fit(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexFunc(s, isSpace)
		if i < 0 {
			i = len(s)
		}
		b.WriteString(f.token(s[:i]))
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !isSpace(r) })
		if j < 0 {
			j = len(s)
		}
		b.WriteString(s[:j])
		s = s[j:]
	}
	return b.String()
}

// isSpace is where libass may break a line.
func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// token is tok, or its longest prefix that fits with an ellipsis.
func (f fitter) token(tok string) string {
	room := f.width - f.advance('…')
	w, cut := 0.0, 0
	for i, r := range tok {
		if w += f.advance(r); w <= room {
			cut = i + utf8.RuneLen(r)
		}
	}
	if w <= f.width {
		return tok
	}
	return tok[:cut] + ellipsis
}
