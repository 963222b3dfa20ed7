// Package combine is the local engine of POST /thumbnails/edit/combine:
// two pictures on one canvas, in a layout chosen by a small grammar of
// the prompt.
//
// Grammar (case-insensitive; other words are ignored, so "put them side
// by side please" works):
//
//	side by side | side-by-side | next to each other | split screen      two halves
//	before and after | before/after | before vs after | before & after  two halves labelled BEFORE and AFTER
//	versus | vs | "X vs Y" | compare | comparison                       two halves with a VS badge in the middle
//	picture-in-picture | picture in picture | pip | inset               the second picture small in a corner of the first
//	  [top-left | top-right | bottom-left | bottom-right]                 (default bottom-right)
//	stacked | top and bottom | vertical | above and below               halves one above the other
//
// On a 9:16 canvas the halves are always stacked. Each half is a cover
// crop of its picture kept around its faces (or its most salient part).
package combine

import (
	"image"
	"image/color"
	"image/draw"
	"regexp"
	"strings"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/framing"
	"hookline.dev/services/thumbnails/internal/lettering"
)

// Kind is a layout.
type Kind string

// The layouts.
const (
	SideBySide  Kind = "side by side"
	BeforeAfter Kind = "before and after"
	Versus      Kind = "versus"
	PiP         Kind = "picture-in-picture"
)

// Layout is a parsed prompt.
type Layout struct {
	Kind Kind
	// Stacked puts the halves one above the other.
	Stacked bool
	// Corner is where the inset goes (PiP): top-left, top-right,
	// bottom-left or bottom-right.
	Corner string
}

var (
	beforeAfter = regexp.MustCompile(`\bbefore\s*(?:and|&|/|vs\.?|versus|-|to)?\s*after\b`)
	versus      = regexp.MustCompile(`\b(?:vs\.?|versus|compare|comparison)(?:\s|$)`)
	pip         = regexp.MustCompile(`\b(?:picture[- ]in[- ]picture|pip|inset)\b`)
	sideBySide  = regexp.MustCompile(`\b(?:side[- ]by[- ]side|next to each other|split[- ]screen|split)\b`)
	stacked     = regexp.MustCompile(`\b(?:stacked|top and bottom|vertical(?:ly)?|above and below|one above the other)\b`)
	corner      = regexp.MustCompile(`\b(top|bottom)[- ](left|right)\b`)
)

// Accepted is the grammar in one line, for error messages.
const Accepted = `side by side, before and after (or before/after), versus (or "X vs Y"), picture-in-picture [top-left|top-right|bottom-left|bottom-right]; add "stacked" for one above the other`

// Parse reads a combine prompt, or refuses it with apierr.UnsupportedPrompt.
func Parse(prompt string) (Layout, error) {
	p := strings.ToLower(strings.Join(strings.Fields(prompt), " "))
	var l Layout
	switch {
	case beforeAfter.MatchString(p):
		l.Kind = BeforeAfter
	case pip.MatchString(p):
		l.Kind = PiP
		l.Corner = "bottom-right"
		if m := corner.FindStringSubmatch(p); m != nil {
			l.Corner = m[1] + "-" + m[2]
		}
		return l, nil
	case versus.MatchString(p):
		l.Kind = Versus
	case sideBySide.MatchString(p):
		l.Kind = SideBySide
	case stacked.MatchString(p):
		l.Kind = SideBySide
	default:
		return Layout{}, apierr.New(apierr.UnsupportedPrompt, "the local editor does not know this layout; it knows: "+Accepted).With("grammar", Accepted)
	}
	l.Stacked = stacked.MatchString(p)
	return l, nil
}

// String writes the layout in the grammar's words; it parses back to the
// same layout.
func (l Layout) String() string {
	switch {
	case l.Kind == PiP:
		return string(PiP) + " " + l.Corner
	case l.Stacked:
		return string(l.Kind) + " stacked"
	}
	return string(l.Kind)
}

var (
	white = color.NRGBA{255, 255, 255, 255}
	ink   = color.NRGBA{12, 12, 16, 255}
	red   = color.NRGBA{229, 57, 53, 255}
)

// Size is the canvas of an aspect: 1280×720 for "16:9" (and ""),
// 720×1280 for "9:16".
func Size(aspect string) (int, int) {
	if aspect == "9:16" {
		return 720, 1280
	}
	return 1280, 720
}

// Combine draws a and b on a canvas of the aspect in layout l. facesA and
// facesB are the pictures' faces, in their coordinates.
func Combine(a, b image.Image, l Layout, aspect string, facesA, facesB []vision.Face) (*image.NRGBA, error) {
	w, h := Size(aspect)
	canvas := image.NewNRGBA(image.Rect(0, 0, w, h))
	if l.Kind == PiP {
		cover(canvas, canvas.Rect, a, facesA)
		iw := w * 30 / 100
		ih := iw * h / w
		m := w * 3 / 100
		x, y := w-m-iw, h-m-ih
		if strings.HasSuffix(l.Corner, "left") {
			x = m
		}
		if strings.HasPrefix(l.Corner, "top") {
			y = m
		}
		inset := image.Rect(x, y, x+iw, y+ih)
		draw.Draw(canvas, inset.Inset(-4), image.NewUniform(white), image.Point{}, draw.Src)
		cover(canvas, inset, b, facesB)
		return canvas, nil
	}
	first, second, divider := Halves(l, aspect)
	draw.Draw(canvas, divider, image.NewUniform(white), image.Point{}, draw.Src)
	cover(canvas, first, a, facesA)
	cover(canvas, second, b, facesB)
	switch l.Kind {
	case BeforeAfter:
		for i, r := range []image.Rectangle{first, second} {
			band := image.Rect(r.Min.X, r.Min.Y+r.Dy()/30, r.Max.X, r.Min.Y+r.Dy()/30+min(r.Dy(), r.Dx())/6)
			if err := lettering.Draw(canvas, band, [2]string{"BEFORE", "AFTER"}[i], white, ink); err != nil {
				return nil, err
			}
		}
	case Versus:
		badge(canvas, min(w, h)/9)
		d := min(w, h) / 9
		box := image.Rect(w/2-d, h/2-d*2/3, w/2+d, h/2+d*2/3)
		if err := lettering.Draw(canvas, box, "VS", white, ink); err != nil {
			return nil, err
		}
	}
	return canvas, nil
}

// Halves are the two rectangles of a split layout and the divider
// between them: left and right, or on a 9:16 canvas or when stacked, top
// and bottom.
func Halves(l Layout, aspect string) (first, second, divider image.Rectangle) {
	w, h := Size(aspect)
	const d = 3 // half the divider's width
	if l.Stacked || aspect == "9:16" {
		return image.Rect(0, 0, w, h/2-d), image.Rect(0, h/2+d, w, h), image.Rect(0, h/2-d, w, h/2+d)
	}
	return image.Rect(0, 0, w/2-d, h), image.Rect(w/2+d, 0, w, h), image.Rect(w/2-d, 0, w/2+d, h)
}

// cover fills r of dst with the largest crop of src of r's shape, kept
// around its faces (or saliency), resampled with Catmull-Rom.
func cover(dst *image.NRGBA, r image.Rectangle, src image.Image, faces []vision.Face) {
	var sal []float64
	if len(faces) == 0 {
		sal = vision.Saliency(src)
	}
	win := framing.Window(src.Bounds(), float64(r.Dx())/float64(r.Dy()), faces, sal)
	xdraw.CatmullRom.Scale(dst, r, src, win, draw.Src, nil)
}

// badge draws the red VS disc with a white ring at the centre.
func badge(m *image.NRGBA, radius int) {
	cx, cy := m.Rect.Dx()/2, m.Rect.Dy()/2
	ring := radius + max(3, radius/12)
	for y := cy - ring; y <= cy+ring; y++ {
		for x := cx - ring; x <= cx+ring; x++ {
			d2 := (x-cx)*(x-cx) + (y-cy)*(y-cy)
			switch {
			case d2 <= radius*radius:
				m.SetNRGBA(x, y, red)
			case d2 <= ring*ring:
				m.SetNRGBA(x, y, white)
			}
		}
	}
}
