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
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/imaging"
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

// item is what a run of words of the prompt means.
type item int

const (
	unknown item = iota
	filler
	layoutWord // names a Kind
	stackWord
	cornerWord
	versusSep // "vs": a layout word that may stand between two names
)

// phrase is a known run of words.
type phrase struct {
	words  []string
	item   item
	kind   Kind
	corner Corner
}

// phrases are the grammar's words, longest first so that "top and
// bottom" wins over "top".
var phrases = func() []phrase {
	var ps []phrase
	add := func(it item, k Kind, c Corner, list string) {
		for _, p := range strings.Split(list, ",") {
			ps = append(ps, phrase{words: strings.Fields(p), item: it, kind: k, corner: c})
		}
	}
	add(layoutWord, SideBySide, "", `side by side, side-by-side, next to each other, beside each other, split screen,
		split-screen, split, left and right, left/right, left-right`)
	add(layoutWord, BeforeAfter, "", `before and after, before/after, before & after, before vs after, before versus after,
		before v after, before-after, before to after, before after`)
	add(layoutWord, Versus, "", `compare, comparison, compared, face-off, face off, showdown`)
	add(versusSep, Versus, "", `versus, vs, v`)
	add(layoutWord, PictureInPicture, "", `picture-in-picture, picture in picture, pip, inset`)
	add(stackWord, 0, "", `stacked, stack, top and bottom, top/bottom, top-bottom, vertical, vertically,
		one above the other, above and below, on top of each other`)
	for _, c := range []struct {
		corner Corner
		vert   []string
		horiz  string
	}{
		{TopLeft, []string{"top", "upper"}, "left"}, {TopRight, []string{"top", "upper"}, "right"},
		{BottomLeft, []string{"bottom", "lower"}, "left"}, {BottomRight, []string{"bottom", "lower"}, "right"},
	} {
		for _, v := range c.vert {
			h := c.horiz
			add(cornerWord, 0, c.corner, v+"-"+h+", "+v+" "+h+", "+v+"-"+h+" corner, "+v+" "+h+" corner")
		}
	}
	for _, w := range strings.Fields(`put place show combine join merge make create arrange layout thumbnail please
		them these those both two a an the of with in into as on at it its and to by corner image images picture
		pictures photo photos pic pics one first second 1 2 together`) {
		add(filler, 0, "", w)
	}
	add(filler, 0, "", "each other")
	// Longest first.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && len(ps[j].words) > len(ps[j-1].words); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return ps
}()

// token is a word of the prompt: lower-cased for matching, as written
// for names. end marks the last word before punctuation: phrases do not
// run across it.
type token struct {
	key, text string
	end       bool
}

// tokens splits a prompt into words of letters, digits and & ' / - +;
// other characters separate words, and , ; : ! ? brackets, a new line
// and a full stop also end a phrase (but "vs." is just "vs").
func tokens(prompt string) []token {
	var out []token
	var word []rune
	flush := func(end bool) {
		if len(word) > 0 {
			s := string(word)
			out = append(out, token{key: strings.ToLower(s), text: s})
			word = word[:0]
		}
		if end && len(out) > 0 {
			out[len(out)-1].end = true
		}
	}
	for _, r := range prompt {
		switch {
		case r == '.' && len(word) > 0 && (strings.EqualFold(string(word), "vs") || strings.EqualFold(string(word), "v")):
			flush(false)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("&'/-+", r):
			word = append(word, r)
		case r == '.' || strings.ContainsRune(",;:!?()[]{}\n", r):
			flush(true)
		default:
			flush(false)
		}
	}
	flush(true)
	return out
}

// match is a phrase found at a position, or an unknown word.
type match struct {
	phrase
	text string // the words as written
}

// Parse reads a combine prompt. A prompt outside the grammar (see the
// package comment) is an *apierr.Error with code
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
	toks := tokens(prompt)
	var ms []match
	for i := 0; i < len(toks); {
		m := match{phrase: phrase{item: unknown}, text: toks[i].text}
		n := 1
		for _, p := range phrases {
			if fits(toks[i:], p.words) {
				m.phrase = p
				n = len(p.words)
				break
			}
		}
		if n > 1 {
			var ws []string
			for _, t := range toks[i : i+n] {
				ws = append(ws, t.text)
			}
			m.text = strings.Join(ws, " ")
		}
		ms = append(ms, m)
		i += n
	}
	var l Layout
	seps := 0
	for _, m := range ms {
		switch m.item {
		case layoutWord, versusSep:
			if m.item == versusSep {
				seps++
			}
			switch {
			case l.Kind == 0 || l.Kind == m.kind || l.Kind == SideBySide && (m.kind == BeforeAfter || m.kind == Versus):
				l.Kind = m.kind
			case (l.Kind == BeforeAfter || l.Kind == Versus) && m.kind == SideBySide:
			default:
				return Layout{}, unsupported("name one layout")
			}
		case stackWord:
			l.Stacked = true
		case cornerWord:
			if l.Corner != "" && l.Corner != m.corner {
				return Layout{}, unsupported("an inset goes in one corner")
			}
			l.Corner = m.corner
		}
	}
	if seps > 1 {
		return Layout{}, unsupported(`"vs" joins two pictures, not more`)
	}
	names, err := versusNames(ms)
	if err != nil {
		return Layout{}, err
	}
	if l.Kind == 0 && l.Stacked {
		l.Kind = SideBySide // "stacked" alone is a split, one above the other
	}
	switch {
	case l.Kind == 0:
		return Layout{}, unsupported("no layout named")
	case l.Corner != "" && l.Kind != PictureInPicture:
		return Layout{}, unsupported("a corner goes with picture-in-picture only")
	case l.Stacked && l.Kind == PictureInPicture:
		return Layout{}, unsupported("picture-in-picture cannot be stacked")
	}
	if l.Kind == PictureInPicture && l.Corner == "" {
		l.Corner = BottomRight
	}
	if l.Kind == Versus {
		l.Names = names
	}
	return l, nil
}

// fits reports whether toks start with words, with no phrase end inside.
func fits(toks []token, words []string) bool {
	if len(toks) < len(words) {
		return false
	}
	for i, w := range words {
		if toks[i].key != w || toks[i].end && i < len(words)-1 {
			return false
		}
	}
	return true
}

// versusNames reads X and Y of "X vs Y": the runs of unknown and filler
// words either side of the "vs", without the filler at their ends. Both
// are set only when both hold a word that is not filler, neither is
// longer than MaxName and the label font can draw both; unknown words
// anywhere else refuse the prompt.
func versusNames(ms []match) ([2]string, error) {
	sep := -1
	for i, m := range ms {
		if m.item == versusSep {
			sep = i
		}
	}
	// The runs that may hold names.
	lo, hi := sep, sep
	if sep >= 0 {
		for lo > 0 && (ms[lo-1].item == unknown || ms[lo-1].item == filler) {
			lo--
		}
		for hi < len(ms)-1 && (ms[hi+1].item == unknown || ms[hi+1].item == filler) {
			hi++
		}
	}
	for i, m := range ms {
		if m.item == unknown && (sep < 0 || i < lo || i > hi) {
			return [2]string{}, unsupported(fmt.Sprintf("%q is not a layout word", m.text))
		}
	}
	if sep < 0 {
		return [2]string{}, nil
	}
	name := func(run []match) string {
		for len(run) > 0 && run[0].item == filler {
			run = run[1:]
		}
		for len(run) > 0 && run[len(run)-1].item == filler {
			run = run[:len(run)-1]
		}
		ws := make([]string, len(run))
		for i, m := range run {
			ws[i] = m.text
		}
		return strings.Join(ws, " ")
	}
	x, y := name(ms[lo:sep]), name(ms[sep+1:hi+1])
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

// String writes the layout in the grammar's words; it parses back to the
// same layout.
func (l Layout) String() string {
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
		return "picture-in-picture " + string(l.Corner)
	}
	if l.Stacked {
		s += ", stacked"
	}
	return s
}
