// Package combine is the local engine of POST /thumbnails/edit/combine:
// two pictures on one thumbnail canvas, in a layout read from the prompt
// by a small grammar. A prompt outside the grammar is refused with 400
// unsupported_prompt before anything is charged (the service sends it to
// the image provider instead when one is configured).
//
// The grammar, case-insensitive; punctuation and filler words ("put",
// "the", "images", "them", "please", "layout", …) are ignored:
//
//	side by side | side-by-side | next to each other | split screen | split | left and right
//	    the two pictures in two halves, a thin white divider between them
//	before and after | before/after | before & after | before vs after | before-after
//	    two halves labelled BEFORE and AFTER
//	versus | vs | v | compare | comparison | face-off | X vs Y
//	    two halves with a VS badge on the divider; in "X vs Y" with X and Y
//	    of at most 24 characters each, X and Y label the halves
//	picture-in-picture | picture in picture | pip | inset  [top-left | top-right | bottom-left | bottom-right]
//	    the second picture small in a corner of the first, framed in white:
//	    as large as a 16:9 inset 30% of the canvas wide, in the second
//	    picture's own shape within 3:4 to 16:9; the corner defaults to
//	    bottom-right ("top left", "upper right", "lower left corner" also
//	    name corners)
//	stacked | stack | top and bottom | top/bottom | vertical | vertically | one above the other | above and below
//	    with a split layout: the halves one above the other
//
// Exactly one layout is named (a split named alongside before/after or
// versus is that layout); a corner goes only with picture-in-picture and
// stacking only with the split layouts. On a 9:16 canvas the split
// layouts are always stacked: halves side by side would be strips too
// narrow to show anything.
//
// Each half (and the inset) is a cover crop of its picture: the largest
// window of the half's shape, placed around the picture's faces or, when
// it has none, its salient part (package framing), then resampled.
package combine

import (
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/phrase"
)

// Kind is a layout.
type Kind int

// The layouts.
const (
	SideBySide Kind = iota + 1
	BeforeAfter
	Versus
	PictureInPicture
)

// Corner is where the inset of picture-in-picture goes.
type Corner string

// The corners.
const (
	TopLeft     Corner = "top-left"
	TopRight    Corner = "top-right"
	BottomLeft  Corner = "bottom-left"
	BottomRight Corner = "bottom-right"
)

// MaxName is the most characters a name of "X vs Y" has to label a half.
const MaxName = 24

// Layout is a parsed combine prompt.
type Layout struct {
	Kind Kind
	// Stacked puts the halves of a split layout one above the other.
	Stacked bool
	// Corner is the inset's (PictureInPicture only).
	Corner Corner
	// Names label the halves of Versus ("X vs Y"); both or neither set.
	Names [2]string
}

// accepted is the grammar in short, for error messages.
const accepted = `accepted layouts: side by side, before and after (or before/after), versus (or vs, compare, "X vs Y"), ` +
	`picture-in-picture (or pip, inset) with an optional corner (top-left, top-right, bottom-left, bottom-right); ` +
	`add "stacked" (or "top and bottom", "vertical") to put the halves one above the other`

func unsupported(why string) error {
	return apierr.New(apierr.UnsupportedPrompt, "prompt: "+why+"; "+accepted).With("field", "prompt")
}

// item is what a phrase of the prompt means.
type item int

const (
	filler     item = iota + 1
	layoutWord      // names a Kind
	stackWord
	cornerWord
	versusSep // "vs": a layout word that may stand between two names
)

// meaning is what a phrase of the vocabulary means.
type meaning struct {
	item   item
	kind   Kind
	corner Corner
}

var vocabulary = func() phrase.Vocab[meaning] {
	var v phrase.Vocab[meaning]
	add := func(it item, k Kind, c Corner, list string) {
		v.Add(meaning{item: it, kind: k, corner: c}, list)
	}
	add(layoutWord, SideBySide, "", `side by side, side-by-side, next to each other, beside each other, split screen,
		split-screen, split, left and right, left/right, left-right, two halves, half and half, one on each side,
		one on the left and one on the right, two columns`)
	add(layoutWord, BeforeAfter, "", `before and after, before/after, before & after, before vs after, before versus after,
		before v after, before-after, before to after, before after, transformation, then and now, then vs now, then/now`)
	add(layoutWord, Versus, "", `compare, comparison, compared, face-off, face off, showdown, head to head, head-to-head,
		battle, matchup, match-up`)
	add(versusSep, Versus, "", `versus, vs, v`)
	add(layoutWord, PictureInPicture, "", `picture-in-picture, picture in picture, pip, inset, small in the corner,
		in the corner, corner inset, overlay in the corner, little box, small box, reaction cam, facecam, face cam, webcam`)
	add(stackWord, 0, "", `stacked, stack, top and bottom, top/bottom, top-bottom, vertical, vertically,
		one above the other, above and below, on top of each other, one on top, on top of the other, rows`)
	for _, c := range []struct {
		corner Corner
		vert   []string
		horiz  string
	}{
		{TopLeft, []string{"top", "upper"}, "left"}, {TopRight, []string{"top", "upper"}, "right"},
		{BottomLeft, []string{"bottom", "lower"}, "left"}, {BottomRight, []string{"bottom", "lower"}, "right"},
	} {
		for _, w := range c.vert {
			h := c.horiz
			v.AddModifier(meaning{item: cornerWord, corner: c.corner}, w+"-"+h+", "+w+" "+h+", "+w+"-"+h+" corner, "+w+" "+h+" corner")
		}
	}
	// Filler may stand inside the names of "X vs Y" and is trimmed from
	// their ends.
	v.AddModifier(meaning{item: filler}, `put, place, show, combine, join, merge, make, create, arrange, layout, thumbnail, please,
		them, these, those, both, two, a, an, the, of, with, in, into, as, on, at, it, its, and, to, by, corner, image, images,
		picture, pictures, photo, photos, pic, pics, one, first, second, 1, 2, together, each other`)
	return v
}()

// Parse reads a combine prompt written as a person writes it: the
// layout it names anywhere, with stacking and the inset's corner; other
// words are ignored, and a layout after "no", "not" or "without" is left
// out. When it names several layouts, a split named alongside
// before/after or versus is that layout, and otherwise the first wins;
// a corner without picture-in-picture and stacking with it are ignored.
// A prompt with no layout is an *apierr.Error with code
// apierr.UnsupportedPrompt whose message lists the accepted layouts.
func Parse(prompt string) (Layout, error) {
	l, err := parse(prompt)
	if err != nil || l.Names[0] == "" {
		return l, err
	}
	// Names whose words would read differently next to the "vs" of
	// String ("a before, vs after b" is not "before vs after") are left
	// out: the halves go unlabelled rather than labelled wrongly.
	if again, err := parse(l.String()); err != nil || again != l {
		l.Names = [2]string{}
	}
	return l, nil
}

func parse(prompt string) (Layout, error) {
	if !utf8.ValidString(prompt) {
		return Layout{}, unsupported("the prompt is not valid UTF-8")
	}
	toks := phrase.Split(prompt)
	all := vocabulary.Scan(toks)
	var l Layout
	sep := -1 // the hit of the "vs" between names
	denied := false
	for i, h := range all {
		m := h.Value
		if h.Negated {
			denied = true
			continue
		}
		switch m.item {
		case layoutWord, versusSep:
			if m.item == versusSep && sep < 0 {
				sep = i
			}
			switch {
			case l.Kind == 0 || l.Kind == SideBySide && (m.kind == BeforeAfter || m.kind == Versus):
				l.Kind = m.kind
			}
		case stackWord:
			l.Stacked = true
		case cornerWord:
			if l.Corner == "" {
				l.Corner = m.corner
			}
		}
	}
	if l.Kind == 0 && l.Stacked {
		l.Kind = SideBySide // "stacked" alone is a split, one above the other
	}
	switch {
	case l.Kind == 0 && denied:
		return Layout{}, unsupported("every layout named is denied")
	case l.Kind == 0:
		return Layout{}, unsupported("no layout named")
	case l.Kind == PictureInPicture:
		l.Stacked = false
		if l.Corner == "" {
			l.Corner = BottomRight
		}
	default:
		l.Corner = ""
	}
	if l.Kind == Versus && sep >= 0 {
		names, err := versusNames(toks, all, sep)
		if err != nil {
			return Layout{}, err
		}
		l.Names = names
	}
	return l, nil
}

// versusNames reads X and Y of "X vs Y": the words either side of the
// "vs" (hit sep) up to the nearest other phrase that is not filler or a
// clause break, without filler at their ends. Both are set only when
// both hold a word that is not filler, neither is longer than MaxName
// and the label font can draw both.
func versusNames(toks []phrase.Token, hits []phrase.Hit[meaning], sep int) ([2]string, error) {
	// A token of a phrase other than filler ends a name.
	stop := make([]bool, len(toks))
	fill := make([]bool, len(toks))
	for _, h := range hits {
		for i := h.Start; i < h.End; i++ {
			stop[i] = h.Value.item != filler
			fill[i] = h.Value.item == filler
		}
	}
	vs := hits[sep]
	lo := vs.Start
	for lo > 0 && !stop[lo-1] && !toks[lo-1].Break && !toks[lo-1].Quoted {
		lo--
	}
	hi := vs.End
	for hi < len(toks) && !stop[hi] && !toks[hi-1].Break && !toks[hi].Quoted {
		hi++
	}
	name := func(lo, hi int) string {
		for lo < hi && fill[lo] {
			lo++
		}
		for hi > lo && fill[hi-1] {
			hi--
		}
		ws := make([]string, 0, hi-lo)
		for _, t := range toks[lo:hi] {
			ws = append(ws, t.Text)
		}
		return strings.Join(ws, " ")
	}
	x, y := name(lo, vs.Start), name(vs.End, hi)
	for _, n := range []string{x, y} {
		if n == "" || utf8.RuneCountInString(n) > MaxName {
			return [2]string{}, nil
		}
		// Labels are set in capitals; a name the font cannot draw would
		// show as empty boxes.
		missing, err := imaging.Missing(labelFont, strings.ToUpper(n))
		if err != nil {
			return [2]string{}, err
		}
		if len(missing) > 0 {
			return [2]string{}, nil
		}
	}
	return [2]string{x, y}, nil
}

// Applied lists what the layout does, in the grammar's words: the
// layout ("side by side", "Batman vs Superman", "picture-in-picture
// top-left"), then "stacked" when it is.
func (l Layout) Applied() []string {
	var s string
	switch l.Kind {
	case SideBySide:
		s = "side by side"
	case BeforeAfter:
		s = "before and after"
	case Versus:
		s = "versus"
		if l.Names[0] != "" {
			s = l.Names[0] + " vs " + l.Names[1]
		}
	case PictureInPicture:
		s = "picture-in-picture " + string(l.Corner)
	}
	out := []string{s}
	if l.Stacked {
		out = append(out, "stacked")
	}
	return out
}

// String writes the layout in the grammar's words; it parses back to the
// same layout.
func (l Layout) String() string { return strings.Join(l.Applied(), ", ") }
