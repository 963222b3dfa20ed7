// Package instruct is the local engine of POST /thumbnails/edit
// (ARCHITECTURE §7): edit instructions read from a prompt written as a
// person writes it, carried out on the pixels. A prompt in which nothing
// is recognised is refused with 400 unsupported_prompt before anything
// is charged (the service sends it to the image provider instead when
// one is configured).
//
// Every instruction recognised anywhere in the prompt is carried out, in
// the order written; other words are ignored, and an instruction after
// "no", "not", "without" or "don't" is left out. Matching is
// case-insensitive and skips articles ("increase the contrast"); the
// tokenizer and matcher are package phrase's. The instructions:
//
//	brighter | brighten | lighter | lighten | bright         the midtones lifted (a gamma curve: blacks and whites stay)
//	darker | darken | dimmer | dim | dark                    the midtones lowered
//	  also: more/less brightness, increase/reduce brightness, brightness up/down
//	more contrast | increase/boost/add/raise contrast | higher/high contrast | contrast up | punchier
//	less contrast | decrease/reduce/lower contrast | low contrast | contrast down | softer
//	                                                         a sigmoid curve on luma (colours keep their saturation)
//	                                                         about a level between mid-grey and the picture's mean
//	saturate | more saturated | more saturation | more vivid | vivid | more vibrant
//	  | more colourful | boost colours | increase saturation  colours further from grey (hue kept, never clipped)
//	desaturate | less saturated | less saturation | less vivid | muted
//	  | mute colours | less colourful | reduce saturation     colours closer to grey
//	crop | reframe | cut … to 16:9 | 9:16 (also landscape, widescreen, portrait, vertical, shorts, reels,
//	  stories; "16:9" or "9:16" alone is a crop)              the largest such crop, kept around the faces, else the
//	                                                         salient part (see package framing); pixels not resized
//	mirror | flip | flip horizontally | horizontal flip      left and right swapped (a vertical flip is refused)
//	add text "…" | add the text HELLO | write hello world | caption/title/headline … | put 'SALE'
//	  [top | bottom | left | right] [colour] [big | small]   text; quotes are optional
//	add [a] [thin | thick] [<colour>] border [in <colour>]   a frame inside the picture's edge (default white)
//	the filters of package adjust                            grayscale ("black and white"), sepia, vintage, warm,
//	                                                         cool, vignette, blur background, sharpen, film grain,
//	                                                         duotone, posterize, invert
//
// An adjustment takes a degree next to it: "slightly", "a bit", "a
// little", "a touch", "somewhat" (milder) or "much", "a lot", "way",
// "far", "very" (stronger). Quoted text is between straight or curly
// double quotes, or single quotes; unquoted text follows "text",
// "caption", "title", "saying", "write"…: a run of capitals ("add the
// text HOUSTON WE HAVE A PROBLEM in big yellow letters"), or after
// "write", "saying", "text" and the like the words up to the next "in",
// "at", "on", "with", "and" or the clause's end. Text is 1–60 characters,
// set in Inter Display Black, white (or the colour named next to it)
// with an outline that contrasts and a shadow, as large as fits 80% of
// the width in at most two lines (90% and larger when "big", half when
// "small"): in the top or bottom third, or the left or right half, of
// the picture, moved or narrowed within that band to leave faces
// uncovered when that keeps it legible. Without a position it goes at
// the bottom, or at the top when a face fills the bottom and not the
// top. A border is 1.5%, 3% or 5% of the shorter side (thin, default,
// thick). Colour, size, position, thickness and degree words attach to
// the nearest instruction they can qualify within their part of the
// sentence (parts end at punctuation and at "and", "then"). A colour is
// a colour word of pkg/media/colour (red, navy, gold, …, also after dark,
// light, deep, pale or pastel) or #rrggbb / #rgb. Only a crop changes the
// size of the picture.
package instruct

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/adjust"
	"hookline.dev/services/thumbnails/internal/edits/phrase"
)

// Limits of a prompt.
const (
	// MaxText is the most characters an added text has.
	MaxText = 60
	// MaxInstructions bounds the work one prompt asks for: each
	// instruction is a pass over the whole picture.
	MaxInstructions = 12
)

// kind is what an instruction does.
type kind int

const (
	brightness kind = iota + 1
	contrast
	saturation
	crop
	mirror
	text
	border
	filter
)

// Text sizes.
const (
	small  = 1
	normal = 2
	big    = 3
)

// op is one instruction. Only the fields of its kind are set.
type op struct {
	kind kind
	// level is the signed strength of an adjustment: ±1 mild, ±2 plain,
	// ±3 strong; negative is darker, less contrast, less saturated.
	level int
	// aspect is "16:9" or "9:16" (crop).
	aspect string
	// text is the words to add, white space collapsed; where is top,
	// bottom, left, right or "" for the default; size is small, normal
	// or big (text).
	text, where string
	size        int
	// colour is the border's or the text's, named by colourWord as the
	// prompt wrote it ("" for the default: white); width is 1 thin, 2
	// plain, 3 thick (border).
	colour     color.RGBA
	colourWord string
	width      int
	// filter is a filter of package adjust (filter).
	filter adjust.Filter
}

// Program is a parsed prompt: its instructions, carried out in order.
type Program struct {
	ops []op
}

// accepted is the grammar in short, for error messages.
const accepted = `accepted instructions: brighter / darker (optionally "much", "slightly", "a bit"), ` +
	`more contrast / less contrast, saturate / desaturate (or more / less saturated, more vivid), ` +
	`crop to 16:9 / crop to 9:16, mirror (or flip horizontally), add text "…" [top|bottom|left|right] [colour] [big|small] ` +
	`(1–60 characters; quotes optional: "add the text SALE in red"), add border <colour> [thin|thick] (a colour word or #rrggbb), ` +
	`and the filters (black and white, sepia, vintage, warm, cool, vignette, blur background, sharpen, film grain, duotone, ` +
	`posterize, invert); several may be named in one sentence`

// unsupported is the refusal of a prompt: 400 unsupported_prompt naming
// the field, the reason, and what is accepted.
func unsupported(why string) error {
	return apierr.New(apierr.UnsupportedPrompt, "prompt: "+why+"; "+accepted).With("field", "prompt")
}

// role is what a phrase of the vocabulary does: name an instruction, or
// qualify one (a modifier).
type role int

const (
	instruction role = iota + 1
	refusal          // an instruction this editor cannot carry out ("flip vertically")
	textIntro        // names added text: "text", "caption", "write"…
	cropVerb
	aspectWord
	degreeWord
	positionWord
	sizeWord
	thicknessWord
	borderNoun
	colourWord
	joiner // "and", "then": ends a part of the sentence
)

// meaning is what a phrase of the vocabulary means.
type meaning struct {
	role role
	op   op
	// n is a degree (1 milder, 3 stronger), a thickness or a text size.
	n int
	// where is a position, aspect an aspect ratio.
	where, aspect string
	// anyText: after this intro the words that follow are the text,
	// whatever their case ("write hello"); otherwise only capitals
	// ("add SALE").
	anyText bool
	// why explains a refusal.
	why string
}

var vocabulary = func() phrase.Vocab[meaning] {
	var v phrase.Vocab[meaning]
	adj := func(k kind, sign int, phrasings string) {
		v.Add(meaning{role: instruction, op: op{kind: k, level: 2 * sign}}, phrasings)
	}
	adj(brightness, 1, `brighter, brighten, brighten up, lighter, lighten, lighten up, bright, more bright, more brightness,
		increase brightness, boost brightness, raise brightness, brightness up, turn up brightness, up brightness,
		lift brightness, more light, lighten it up, brighter colours, brighter colors, lift the shadows, less dark`)
	adj(brightness, -1, `darker, darken, dimmer, dim, dark, less bright, less brightness, decrease brightness,
		reduce brightness, lower brightness, brightness down, turn down brightness, moodier, moody`)
	adj(contrast, 1, `more contrast, increase contrast, boost contrast, add contrast, raise contrast, higher contrast,
		high contrast, contrast up, more contrasty, stronger contrast, punchier, punchy, more punch, contrastier`)
	adj(contrast, -1, `less contrast, decrease contrast, reduce contrast, lower contrast, low contrast, contrast down,
		softer contrast, softer, flatter`)
	adj(saturation, 1, `saturate, saturated, more saturated, more saturation, increase saturation, boost saturation,
		raise saturation, more vivid, vivid, more vibrant, vibrant, more colourful, more colorful, colourful, colorful,
		boost colours, boost colors, boost the colours, boost the colors, more colour, more color, richer colours,
		richer colors, saturation up, pop the colours, pop the colors, colours pop, colors pop, make the colours pop,
		make the colors pop, punchier colours, punchier colors`)
	adj(saturation, -1, `desaturate, desaturated, less saturated, less saturation, decrease saturation,
		reduce saturation, lower saturation, less vivid, less vibrant, muted, mute colours, mute colors,
		less colourful, less colorful, tone down colours, tone down colors, tone down the colours, tone down the colors,
		saturation down, more muted, washed out, faded colours, faded colors`)
	v.Add(meaning{role: instruction, op: op{kind: mirror}}, `mirror, mirrored, mirror image, flip, flipped, flip horizontally,
		horizontal flip, flip it horizontally, flip left to right, flip sideways, mirror horizontally`)
	v.Add(meaning{role: refusal, why: "only a horizontal flip (mirror) is supported"}, `flip vertically, vertical flip,
		flipped vertically, upside down, upside-down, flip upside down, rotate, rotated, turn sideways`)
	v.Add(meaning{role: borderNoun}, `border, frame, outline around, edge border, bordered, framed`)
	v.Add(meaning{role: cropVerb}, `crop, cropped, reframe, reframed, cut down, trim, resize, aspect ratio`)
	v.AddModifier(meaning{role: cropVerb}, `make it, format, convert to, turn into, turn it into, for`)
	for _, a := range []struct{ aspect, phrasings string }{
		{"16:9", `16:9, 16x9, 16/9, 16 by 9, landscape, widescreen, wide screen, horizontal, youtube, youtube thumbnail`},
		{"9:16", `9:16, 9x16, 9/16, 9 by 16, portrait, vertical, shorts, youtube shorts, reels, reel, tiktok, stories, story`},
	} {
		v.AddModifier(meaning{role: aspectWord, aspect: a.aspect}, a.phrasings)
	}
	// The verbs are modifiers: "don't add grain" denies the grain.
	v.AddModifier(meaning{role: textIntro}, `add, put, place, insert, overlay, stamp`)
	v.Add(meaning{role: textIntro, anyText: true}, `text, add text, the text, caption, add a caption, title, add a title,
		headline, words, the words, label, saying, that says, which says, says, reading, that reads, reads, write,
		type, print, with the text, with the words`)
	for w, n := range map[string]int{
		"slightly": 1, "a bit": 1, "a little": 1, "a little bit": 1, "a touch": 1, "a tad": 1, "somewhat": 1, "subtly": 1,
		"mildly": 1, "lightly": 1, "just a bit": 1, "a hint": 1,
		"much": 3, "a lot": 3, "way": 3, "far": 3, "very": 3, "really": 3, "significantly": 3, "strongly": 3, "lots": 3,
		"super": 3, "extra": 3, "dramatically": 3,
	} {
		v.AddModifier(meaning{role: degreeWord, n: n}, w)
	}
	for w, p := range map[string]string{
		"top": "top", "upper": "top", "the top": "top", "at the top": "top", "bottom": "bottom", "lower": "bottom",
		"left": "left", "right": "right", "left side": "left", "right side": "right", "header": "top", "footer": "bottom",
	} {
		v.AddModifier(meaning{role: positionWord, where: p}, w)
	}
	v.AddModifier(meaning{role: sizeWord, n: big}, `big, bigger, large, larger, huge, giant, massive, enormous, oversized, giant`)
	v.AddModifier(meaning{role: sizeWord, n: small}, `small, smaller, tiny, little letters, discreet`)
	v.AddModifier(meaning{role: thicknessWord, n: 1}, `thin, slim, narrow, fine, subtle`)
	v.AddModifier(meaning{role: thicknessWord, n: 3}, `thick, wide, fat, heavy, chunky`)
	for _, j := range []string{"and", "then", "also", "plus", "but", "after that", "and then", "as well as"} {
		v.AddModifier(meaning{role: joiner}, j)
	}
	v.AddFunc(true, func(toks []phrase.Token, i int) (meaning, int) {
		c, n := phrase.Colour(toks, i)
		words := make([]string, n)
		for j := range words {
			words[j] = toks[i+j].Key
		}
		return meaning{role: colourWord, op: op{colour: c, colourWord: strings.Join(words, " ")}}, n
	})
	// The filters, whose words the edit shares with the filter endpoint.
	adjust.Vocabulary().Each(func(k adjust.FilterKind, words string, weak bool) {
		m := meaning{role: instruction, op: op{kind: filter, filter: adjust.Filter{Kind: k}}}
		if weak {
			v.AddWeak(m, words)
		} else {
			v.Add(m, words)
		}
	})
	return v
}()

// Parse reads a prompt of POST /thumbnails/edit (see the package
// comment). A prompt with no instruction recognised, or whose text to
// add is too long or has letters the font lacks, is an *apierr.Error
// with code apierr.UnsupportedPrompt whose message lists what is
// accepted.
func Parse(prompt string) (Program, error) {
	if !utf8.ValidString(prompt) {
		return Program{}, unsupported("the prompt is not valid UTF-8")
	}
	toks := phrase.Split(prompt)
	all := vocabulary.Scan(toks)
	r := reader{toks: toks, used: make([]bool, len(toks)), hits: phrase.Strong(all)}
	for _, h := range all {
		r.denied = r.denied || h.Negated
	}
	if err := r.texts(r.hits); err != nil {
		return Program{}, err
	}
	r.instructions()
	if len(r.ops) == 0 {
		switch {
		case r.refused != "":
			return Program{}, unsupported(r.refused)
		case r.denied:
			return Program{}, unsupported("every instruction named is denied")
		}
		return Program{}, unsupported("no instruction recognised")
	}
	if len(r.ops) > MaxInstructions {
		return Program{}, unsupported(fmt.Sprintf("at most %d instructions, got %d", MaxInstructions, len(r.ops)))
	}
	ops := make([]op, len(r.ops))
	for i, p := range r.ops {
		ops[i] = p.op
	}
	return Program{ops: ops}, nil
}

// placed is an instruction and the tokens it spans.
type placed struct {
	op         op
	start, end int
	// degree, where, size, width and colour were set by a modifier.
	qualified map[role]bool
}

// reader is a prompt being read.
type reader struct {
	toks []phrase.Token
	// used marks the tokens that belong to an added text.
	used    []bool
	ops     []placed
	hits    []phrase.Hit[meaning]
	refused string
	denied  bool
}

// texts reads the added texts: each quoted text in a part of the
// sentence that has a text intro, and the unquoted text after an intro.
func (r *reader) texts(hits []phrase.Hit[meaning]) error {
	for i, t := range r.toks {
		if !t.Quoted || !r.introNear(hits, i) {
			continue
		}
		if err := r.addText(t.Text, i, i+1); err != nil {
			return err
		}
	}
	for _, h := range hits {
		if h.Value.role != textIntro || r.used[h.Start] || r.partHasQuote(h.Start) {
			continue
		}
		start, end := r.unquoted(h)
		if start == end {
			continue
		}
		words := make([]string, 0, end-start)
		for _, t := range r.toks[start:end] {
			words = append(words, t.Text)
		}
		if err := r.addText(strings.Join(words, " "), h.Start, end); err != nil {
			return err
		}
	}
	slices.SortFunc(r.ops, func(a, b placed) int { return a.start - b.start })
	return nil
}

// introNear says the part of the sentence around token i has a text
// intro that is not denied.
func (r *reader) introNear(hits []phrase.Hit[meaning], i int) bool {
	lo, hi := r.part(i)
	for _, h := range hits {
		if h.Value.role == textIntro && h.Start >= lo && h.Start < hi {
			return true
		}
	}
	return false
}

func (r *reader) partHasQuote(i int) bool {
	lo, hi := r.part(i)
	for _, t := range r.toks[lo:hi] {
		if t.Quoted {
			return true
		}
	}
	return false
}

// stopWords end an unquoted text written in lower or mixed case.
var stopWords = map[string]bool{
	"in": true, "at": true, "on": true, "with": true, "and": true, "then": true, "to": true, "across": true,
	"along": true, "near": true, "using": true, "over": true, "under": true, "below": true, "above": true,
	"for": true, "please": true, "but": true, "plus": true, "as": true,
	"top": true, "bottom": true, "left": true, "right": true, "upper": true, "lower": true,
}

// leadWords may stand between an intro and its text: "a caption saying",
// "the text that reads".
var leadWords = map[string]bool{"the": true, "a": true, "an": true, "that": true, "which": true, "saying": true,
	"says": true, "reads": true, "reading": true, "of": true, "text": true, "words": true, "caption": true, "title": true}

// unquoted is the span of the unquoted text after intro h: a run of
// words in capitals, or, after an intro that takes any text, the words
// up to a stop word or the clause's end. The span is empty when no
// text follows.
func (r *reader) unquoted(h phrase.Hit[meaning]) (int, int) {
	i := h.End
	if r.toks[h.End-1].Break {
		return i, i
	}
	for i < len(r.toks) && leadWords[r.toks[i].Key] && !isCapitals(r.toks[i].Text) {
		if r.toks[i].Break {
			return i, i
		}
		i++
	}
	start := i
	if i < len(r.toks) && isCapitals(r.toks[i].Text) && hasLetter(r.toks[i].Text) {
		for i < len(r.toks) && !r.toks[i].Quoted && isCapitals(r.toks[i].Text) && !r.used[i] {
			i++
			if r.toks[i-1].Break {
				break
			}
		}
		return start, i
	}
	if !h.Value.anyText {
		return start, start
	}
	// A stop word ends the text as written in lower case: "Top 10" is
	// text, "top" a position.
	for i < len(r.toks) && !r.toks[i].Quoted && !r.stops(i) && !r.used[i] {
		i++
		if r.toks[i-1].Break {
			break
		}
	}
	return start, i
}

// stops says token i ends an unquoted text written in lower or mixed
// case: a stop word as written in lower case.
func (r *reader) stops(i int) bool {
	return stopWords[r.toks[i].Key] && r.toks[i].Key == r.toks[i].Text
}

// isCapitals says s has no lower-case letter.
func isCapitals(s string) bool {
	return !strings.ContainsFunc(s, unicode.IsLower)
}

func hasLetter(s string) bool { return strings.ContainsFunc(s, unicode.IsLetter) }

// addText records a text op for t, spanning tokens [start, end).
func (r *reader) addText(t string, start, end int) error {
	// Double quotes delimit a text in this grammar, so a text holds none
	// ("add '"SALE' top" adds SALE): what is read back from Applied is
	// then what was added.
	t = strings.Map(func(c rune) rune {
		if strings.ContainsRune(phrase.DoubleQuotes, c) {
			return -1
		}
		return c
	}, t)
	// Runs of spaces are one, as a quoted text reads back.
	if t = strings.Join(strings.Fields(t), " "); t == "" {
		return nil // nothing but quote marks and spaces: no text to add
	}
	if n := utf8.RuneCountInString(t); n > MaxText {
		return unsupported(fmt.Sprintf("the text to add has %d characters, it must have 1 to %d", n, MaxText))
	}
	for _, c := range t {
		if !unicode.IsPrint(c) {
			return unsupported(fmt.Sprintf("the text to add holds the unprintable character %U", c))
		}
	}
	missing, err := imaging.Missing(textFont, t)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return unsupported(fmt.Sprintf("the font has no letters for %q (Latin, Greek and Cyrillic text is supported)", string(missing)))
	}
	for i := start; i < end; i++ {
		r.used[i] = true
	}
	r.ops = append(r.ops, placed{op: op{kind: text, text: t, size: normal}, start: start, end: end, qualified: map[role]bool{}})
	return nil
}

// part is the part of the sentence around token i: up to the clause
// breaks and the joiners ("and", "then") outside texts either side.
func (r *reader) part(i int) (int, int) {
	lo, hi := i, i+1
	for lo > 0 && !r.toks[lo-1].Break && !r.joinerAt(lo-1) {
		lo--
	}
	for hi < len(r.toks) && !r.toks[hi-1].Break && !r.joinerAt(hi) {
		hi++
	}
	return lo, hi
}

func (r *reader) joinerAt(i int) bool {
	if r.used[i] {
		return false
	}
	switch r.toks[i].Key {
	case "and", "then", "also", "plus", "but":
		// "black and white" is one phrase, not two parts.
		for _, p := range r.ops {
			if i >= p.start && i < p.end {
				return false
			}
		}
		return !r.inFilterPhrase(i)
	}
	return false
}

// inFilterPhrase says token i is inside a phrase of more than one word
// ("black and white").
func (r *reader) inFilterPhrase(i int) bool {
	for _, h := range r.hits {
		if i > h.Start && i < h.End-1 {
			return true
		}
	}
	return false
}

// instructions reads the instructions other than texts, then attaches
// the modifiers and colours to them.
func (r *reader) instructions() {
	crops := map[int]bool{} // aspect hits a crop verb took
	for _, h := range r.hits {
		if r.used[h.Start] {
			continue
		}
		m := h.Value
		switch m.role {
		case instruction:
			o := m.op
			if o.kind == filter {
				o.filter = adjust.FilterAt(r.toks, phrase.Hit[adjust.FilterKind]{Value: o.filter.Kind, Start: h.Start, End: h.End})
				if slices.ContainsFunc(r.ops, func(p placed) bool { return p.op.kind == filter && p.op.filter.Kind == o.filter.Kind }) {
					continue
				}
			}
			r.place(o, h)
		case refusal:
			// "flip it upside down" asks for no mirror.
			r.refused = m.why
			lo, hi := r.part(h.Start)
			r.ops = slices.DeleteFunc(r.ops, func(p placed) bool { return p.op.kind == mirror && p.start >= lo && p.start < hi })
		case borderNoun:
			lo, hi := r.part(h.Start)
			if !slices.ContainsFunc(r.ops, func(p placed) bool { return p.op.kind == border && p.start >= lo && p.start < hi }) {
				r.place(op{kind: border, width: 2, colour: white}, h)
			}
		case cropVerb:
			// The first aspect of the verb's part is the crop's; the
			// others of the part say the same or are left out.
			lo, hi := r.part(h.Start)
			aspect := ""
			for j, a := range r.hits {
				if a.Value.role == aspectWord && a.Start >= lo && a.Start < hi && !crops[j] {
					crops[j] = true
					if aspect == "" {
						aspect = a.Value.aspect
						r.place(op{kind: crop, aspect: aspect}, h)
					}
				}
			}
		}
	}
	for j, a := range r.hits {
		// "16:9" alone is a crop; "landscape" alone is not.
		if a.Value.role == aspectWord && !crops[j] && !r.used[a.Start] && strings.ContainsAny(r.toks[a.Start].Key, "0123456789") {
			r.place(op{kind: crop, aspect: a.Value.aspect}, a)
		}
	}
	slices.SortStableFunc(r.ops, func(a, b placed) int { return a.start - b.start })
	r.qualify()
}

// white is the colour of a border or text when none is named.
var white = color.RGBA{255, 255, 255, 255}

func (r *reader) place(o op, h phrase.Hit[meaning]) {
	r.ops = append(r.ops, placed{op: o, start: h.Start, end: h.End, qualified: map[role]bool{}})
}

// qualify attaches each modifier and colour to the nearest instruction
// of its part of the sentence that it can qualify and that no modifier
// of its role has qualified yet.
func (r *reader) qualify() {
	for _, h := range r.hits {
		if !h.Modifier || r.used[h.Start] {
			continue
		}
		m := h.Value
		switch m.role {
		case degreeWord:
			if p := r.nearest(h.Start, degreeWord, brightness, contrast, saturation); p != nil {
				p.op.level = p.op.level / 2 * m.n
			}
		case positionWord:
			if p := r.nearestText(h.Start, positionWord); p != nil {
				p.op.where = m.where
			}
		case sizeWord:
			if p := r.nearestText(h.Start, sizeWord); p != nil {
				p.op.size = m.n
			}
		case thicknessWord:
			if p := r.nearest(h.Start, thicknessWord, border); p != nil {
				p.op.width = m.n
			}
		case colourWord:
			if p := r.nearest(h.Start, colourWord, text, border); p != nil {
				p.op.colour, p.op.colourWord = m.op.colour, m.op.colourWord
			}
		}
	}
}

// nearest is the instruction of one of kinds nearest token i in its part
// of the sentence not yet qualified by role, the
// one after i on a tie; nil when there is none.
func (r *reader) nearest(i int, role role, kinds ...kind) *placed {
	lo, hi := r.part(i)
	var best *placed
	bestD := 0
	for j := range r.ops {
		p := &r.ops[j]
		if !slices.Contains(kinds, p.op.kind) || p.start >= hi || p.end <= lo || p.qualified[role] {
			continue
		}
		d := p.start - i
		if i >= p.start {
			d = i - (p.end - 1) + 1 // after the instruction: a tie goes to the one that follows
		}
		if best == nil || d < bestD {
			best, bestD = p, d
		}
	}
	if best != nil {
		best.qualified[role] = true
	}
	return best
}

// nearestText is the text nearest token i for a modifier only a text
// takes (a size, a position): in its part of the sentence, else anywhere
// ("add text "NEW" at the top, make it huge").
func (r *reader) nearestText(i int, role role) *placed {
	if p := r.nearest(i, role, text); p != nil {
		return p
	}
	var best *placed
	for j := range r.ops {
		p := &r.ops[j]
		if p.op.kind == text && !p.qualified[role] && (best == nil || distance(i, p) < distance(i, best)) {
			best = p
		}
	}
	if best != nil {
		best.qualified[role] = true
	}
	return best
}

func distance(i int, p *placed) int {
	if i < p.start {
		return p.start - i
	}
	return i - p.end + 1
}

// CroppedTo is the program followed by a crop to aspect ("16:9" or
// "9:16"; anything else leaves the program as it is): how an edit's
// aspectRatio applies, with the faces followed through the program's own
// mirrors and crops, which the faces of the source no longer describe.
func (p Program) CroppedTo(aspect string) Program {
	if aspect != "16:9" && aspect != "9:16" {
		return p
	}
	ops := append(p.ops[:len(p.ops):len(p.ops)], op{kind: crop, aspect: aspect})
	return Program{ops: ops}
}

// String writes the program in the grammar's canonical words, one
// instruction after another joined by ", "; it parses back to the same
// program.
func (p Program) String() string { return strings.Join(p.Applied(), ", ") }

// Applied lists the program's instructions in the grammar's canonical
// words, in order: what an edit result reports it applied.
func (p Program) Applied() []string {
	out := make([]string, len(p.ops))
	for i, o := range p.ops {
		out[i] = o.String()
	}
	return out
}

func (o op) String() string {
	switch o.kind {
	case brightness:
		return degree(o.level) + map[bool]string{true: "brighter", false: "darker"}[o.level > 0]
	case contrast:
		return degree(o.level) + map[bool]string{true: "more contrast", false: "less contrast"}[o.level > 0]
	case saturation:
		return degree(o.level) + map[bool]string{true: "more saturated", false: "less saturated"}[o.level > 0]
	case crop:
		return "crop to " + o.aspect
	case mirror:
		return "mirror"
	case text:
		s := `add text "` + o.text + `"`
		if o.where != "" {
			s += " " + o.where
		}
		if o.colourWord != "" {
			s += " " + o.colourWord
		}
		switch o.size {
		case small:
			s += " small"
		case big:
			s += " big"
		}
		return s
	case border:
		s := "add border"
		if o.colourWord != "" {
			s += " " + o.colourWord
		}
		switch o.width {
		case 1:
			s += " thin"
		case 3:
			s += " thick"
		}
		return s
	case filter:
		if o.filter.Kind == adjust.FilterCool {
			// "cool" alone gives way to any other instruction (it is
			// praise in "a cool border"); its strong phrasing reads back.
			return "cool tone"
		}
		return o.filter.String()
	}
	return ""
}

// degree is the word of an adjustment's strength.
func degree(level int) string {
	switch level {
	case 1, -1:
		return "slightly "
	case 3, -3:
		return "much "
	}
	return ""
}

// textFont is the face added text is set in.
const textFont = fonts.Heavy
