// Package instruct is the local engine of POST /thumbnails/edit
// (ARCHITECTURE §7): a small, documented grammar of edit instructions,
// carried out on the pixels. A prompt outside the grammar is refused
// with 400 unsupported_prompt before anything is charged (the service
// sends it to the image provider instead when one is configured).
//
// The grammar, case-insensitive. A prompt is one or more instructions
// joined by "and", "then", "also", ",", ";" or a full stop; "please",
// "make it", "the image" and similar filler words are ignored anywhere.
//
//	brighter | brighten | lighter | lighten | bright         the midtones lifted (a gamma curve: blacks and whites stay)
//	darker | darken | dimmer | dim | dark                    the midtones lowered
//	  also: more/less brightness, increase/reduce brightness, brightness up/down
//	more contrast | increase/boost/add/raise contrast | higher/high contrast | contrast up
//	less contrast | decrease/reduce/lower contrast | low contrast | contrast down
//	                                                         a sigmoid curve on luma (colours keep their saturation)
//	                                                         about a level between mid-grey and the picture's mean
//	saturate | more saturated | more saturation | more vivid | vivid | more vibrant
//	  | more colourful | boost colours | increase saturation  colours further from grey (hue kept, never clipped)
//	desaturate | less saturated | less saturation | less vivid | muted
//	  | mute colours | less colourful | reduce saturation     colours closer to grey
//	crop to 16:9 | crop to 9:16   (also: crop 16:9, 16x9, landscape, portrait, widescreen, vertical, "aspect ratio")
//	                                                         the largest such crop, kept around the faces, else the
//	                                                         salient part (see package framing); pixels not resized
//	mirror | flip | flip horizontally | horizontal flip      left and right swapped
//	add text "…" [top | bottom | left | right]               also: put/write/caption/title/headline, "at the top"…
//	add [a] [thin | thick] [<colour>] border [in <colour>]   a frame inside the picture's edge (default white)
//
// The adjustments take a degree anywhere in their instruction: "slightly",
// "a bit", "a little", "a touch", "somewhat" (milder) or "much", "a lot",
// "way", "far", "very" (stronger). Text is 1–60 characters between
// straight or curly double quotes, set in Inter Display Black, white with
// a dark outline and shadow, as large as fits 80% of the width in at most
// two lines: in the top or bottom third, or the left or right half, of the
// picture, moved or narrowed within that band to leave faces uncovered
// when that keeps it legible. Without a position it goes at the bottom, or
// at the top when a face fills the bottom and not the top. A border is
// 1.5%, 3% or 5% of the shorter side (thin, default, thick); its colour is
// a colour word (the background grammar's: red, navy, gold, …) or #rrggbb
// / #rgb. Only a crop changes the size of the picture.
package instruct

import (
	"fmt"
	"image/color"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/colour"
	"hookline.dev/pkg/fonts"
	"hookline.dev/pkg/imaging"
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
	// bottom, left, right or "" for the default (text).
	text, where string
	// colour is the border's; width is 1 thin, 2 plain, 3 thick.
	colour color.RGBA
	width  int
}

// Program is a parsed prompt: its instructions, carried out in order.
type Program struct {
	ops []op
}

// accepted is the grammar in short, for error messages.
const accepted = `accepted instructions: brighter / darker (optionally "much", "slightly", "a bit"), ` +
	`more contrast / less contrast, saturate / desaturate (or more / less saturated, more vivid), ` +
	`crop to 16:9 / crop to 9:16, mirror (or flip horizontally), add text "…" [top|bottom|left|right] ` +
	`(1–60 characters in double quotes), add border <colour> [thin|thick] (a colour word or #rrggbb); ` +
	`join several with "and", "then", "," or ";"`

// unsupported is the refusal of a prompt: 400 unsupported_prompt naming
// the field, the reason, and what is accepted.
func unsupported(why string) error {
	return apierr.New(apierr.UnsupportedPrompt, "prompt: "+why+"; "+accepted).With("field", "prompt")
}

// Parse reads a prompt of POST /thumbnails/edit. A prompt outside the
// grammar (see the package comment) is an *apierr.Error with code
// apierr.UnsupportedPrompt whose message lists the accepted phrasings.
func Parse(prompt string) (Program, error) {
	clauses, err := split(prompt)
	if err != nil {
		return Program{}, err
	}
	var p Program
	for _, c := range clauses {
		o, err := parseClause(c)
		if err != nil {
			return Program{}, err
		}
		p.ops = append(p.ops, o)
	}
	switch {
	case len(p.ops) == 0:
		return Program{}, unsupported("no instruction given")
	case len(p.ops) > MaxInstructions:
		return Program{}, unsupported(fmt.Sprintf("at most %d instructions, got %d", MaxInstructions, len(p.ops)))
	}
	return p, nil
}

// clause is one instruction as written: its words, lower-cased, and the
// quoted texts in it.
type clause struct {
	words  []string
	quoted []string
}

// quoteMarks open and close a quoted text: straight and curly double
// quotes, in any pairing (phones type “…” and keyboards "…").
const quoteMarks = "\"“”„"

// separatorWords end an instruction.
var separatorWords = map[string]bool{"and": true, "then": true, "also": true}

// split cuts a prompt into clauses at separators outside quotes. Words
// are lower-cased; characters that are neither letters, digits nor one
// of #:/-'& separate words.
func split(prompt string) ([]clause, error) {
	if !utf8.ValidString(prompt) {
		return nil, unsupported("the prompt is not valid UTF-8")
	}
	var out []clause
	var cur clause
	var word strings.Builder
	endWord := func() {
		if word.Len() == 0 {
			return
		}
		w := strings.ToLower(word.String())
		word.Reset()
		if separatorWords[w] {
			endClause(&out, &cur)
			return
		}
		cur.words = append(cur.words, w)
	}
	rs := []rune(prompt)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case strings.ContainsRune(quoteMarks, r):
			endWord()
			j := i + 1
			for j < len(rs) && !strings.ContainsRune(quoteMarks, rs[j]) {
				j++
			}
			if j == len(rs) {
				return nil, unsupported("a quoted text is not closed")
			}
			cur.quoted = append(cur.quoted, strings.Join(strings.Fields(string(rs[i+1:j])), " "))
			i = j
		case r == ',' || r == ';' || r == '.' || r == '!' || r == '?' || r == '\n':
			endWord()
			endClause(&out, &cur)
		case r == '’':
			word.WriteRune('\'')
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("#:/-'&", r):
			word.WriteRune(r)
		default:
			endWord()
		}
	}
	endWord()
	endClause(&out, &cur)
	return out, nil
}

func endClause(out *[]clause, cur *clause) {
	if len(cur.words) > 0 || len(cur.quoted) > 0 {
		*out = append(*out, *cur)
	}
	*cur = clause{}
}

// fillerWords carry no instruction: "please make the image brighter".
var fillerWords = set(`please can could you would make it it's its the this image picture photo photograph pic
	thumbnail whole overall look looks looking a an my our some`)

// degreeWords soften or strengthen an adjustment.
var degreeWords = map[string]int{
	"slightly": 1, "bit": 1, "little": 1, "touch": 1, "tad": 1, "somewhat": 1, "subtly": 1, "mildly": 1, "lightly": 1,
	"much": 3, "lot": 3, "way": 3, "far": 3, "very": 3, "really": 3, "significantly": 3, "strongly": 3, "lots": 3,
}

// adjustments are the phrasings of brightness, contrast and saturation,
// after filler and degree words are taken out.
var adjustments = func() map[string]op {
	m := map[string]op{}
	add := func(k kind, sign int, phrases string) {
		for _, p := range strings.Split(phrases, ",") {
			m[strings.Join(strings.Fields(p), " ")] = op{kind: k, level: 2 * sign}
		}
	}
	add(brightness, 1, `brighter, brighten, lighter, lighten, bright, more bright, more brightness, increase brightness,
		boost brightness, raise brightness, brightness up, turn up brightness, up brightness, lift brightness`)
	add(brightness, -1, `darker, darken, dimmer, dim, dark, less bright, less brightness, decrease brightness,
		reduce brightness, lower brightness, brightness down, turn down brightness`)
	add(contrast, 1, `more contrast, increase contrast, boost contrast, add contrast, raise contrast, higher contrast,
		high contrast, contrast up, more contrasty, stronger contrast`)
	add(contrast, -1, `less contrast, decrease contrast, reduce contrast, lower contrast, low contrast, contrast down,
		softer contrast, softer`)
	add(saturation, 1, `saturate, saturated, more saturated, more saturation, increase saturation, boost saturation,
		raise saturation, more vivid, vivid, more vibrant, vibrant, more colourful, more colorful, colourful, colorful,
		boost colours, boost colors, more colour, more color, richer colours, richer colors, saturation up`)
	add(saturation, -1, `desaturate, desaturated, less saturated, less saturation, decrease saturation,
		reduce saturation, lower saturation, less vivid, less vibrant, muted, mute colours, mute colors,
		less colourful, less colorful, tone down colours, tone down colors, saturation down, more muted`)
	return m
}()

// The word sets of the other instructions: the words that name one
// (borderNouns, cropVerbs, mirrorVerbs), and all the words a clause of
// one may hold besides filler.
var (
	borderNouns    = set(`border frame`)
	cropVerbs      = set(`crop reframe`)
	mirrorVerbs    = set(`mirror mirrored flip flipped`)
	cropWords      = set(`crop reframe to into as for in aspect ratio format`)
	mirrorWords    = set(`mirror mirrored flip flipped horizontally horizontal left right to sideways`)
	textWords      = set(`add put write place insert overlay text caption title headline label words saying says that reads reading with at on in to along across side edge of corner`)
	textVerbs      = set(`add put write place insert overlay text caption title headline label`)
	borderWords    = set(`add put with in of colour color coloured colored around edge edges border frame very extra really super`)
	positionWords  = map[string]string{"top": "top", "upper": "top", "bottom": "bottom", "lower": "bottom", "left": "left", "right": "right"}
	aspectWords    = map[string]string{"16:9": "16:9", "16x9": "16:9", "16/9": "16:9", "landscape": "16:9", "widescreen": "16:9", "horizontal": "16:9", "9:16": "9:16", "9x16": "9:16", "9/16": "9:16", "portrait": "9:16", "vertical": "9:16"}
	thicknessWords = map[string]int{"thin": 1, "slim": 1, "narrow": 1, "fine": 1, "thick": 3, "wide": 3, "fat": 3, "heavy": 3, "bold": 3}
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// parseClause reads one instruction.
func parseClause(c clause) (op, error) {
	var words []string
	for _, w := range c.words {
		if !fillerWords[w] {
			words = append(words, w)
		}
	}
	written := strings.Join(c.words, " ")
	if len(c.quoted) > 0 {
		return parseText(words, c.quoted)
	}
	if len(words) == 0 {
		return op{}, unsupported(fmt.Sprintf("%q is not an instruction", written))
	}
	has := func(vocab map[string]bool) bool {
		for _, w := range words {
			if vocab[w] {
				return true
			}
		}
		return false
	}
	switch {
	case has(borderNouns):
		return parseBorder(words)
	case has(cropVerbs) || len(words) == 1 && strings.ContainsAny(words[0], "0123456789") && aspectWords[words[0]] != "":
		return parseCrop(words)
	case has(mirrorVerbs):
		for _, w := range words {
			if !mirrorWords[w] {
				return op{}, unsupported(fmt.Sprintf("%q: only a horizontal flip (mirror) is supported", written))
			}
		}
		return op{kind: mirror}, nil
	}
	return parseAdjustment(words, written)
}

// parseAdjustment reads brightness, contrast and saturation with their
// degree.
func parseAdjustment(words []string, written string) (op, error) {
	degree := 0
	var core []string
	for _, w := range words {
		d, ok := degreeWords[w]
		if !ok {
			core = append(core, w)
			continue
		}
		if degree != 0 && degree != d {
			return op{}, unsupported(fmt.Sprintf("%q asks for two degrees at once", written))
		}
		degree = d
	}
	o, ok := adjustments[strings.Join(core, " ")]
	if !ok && len(core) > 1 {
		// "more vivid colours": the colours are what is adjusted anyway.
		switch core[len(core)-1] {
		case "colours", "colors", "colour", "color", "tones":
			o, ok = adjustments[strings.Join(core[:len(core)-1], " ")]
		}
	}
	if !ok {
		return op{}, unsupported(fmt.Sprintf("%q is not an instruction this editor knows", written))
	}
	if degree != 0 {
		o.level = o.level / 2 * degree
	}
	return o, nil
}

func parseCrop(words []string) (op, error) {
	aspect := ""
	for _, w := range words {
		if a, ok := aspectWords[w]; ok {
			if aspect != "" && aspect != a {
				return op{}, unsupported("a crop has one aspect ratio")
			}
			aspect = a
			continue
		}
		if !cropWords[w] {
			return op{}, unsupported(fmt.Sprintf("%q: crops are to 16:9 or 9:16", strings.Join(words, " ")))
		}
	}
	if aspect == "" {
		return op{}, unsupported("crop to what? Crops are to 16:9 or 9:16")
	}
	return op{kind: crop, aspect: aspect}, nil
}

func parseText(words, quoted []string) (op, error) {
	if len(quoted) > 1 {
		return op{}, unsupported("one quoted text per instruction; join several with \"and\"")
	}
	t := quoted[0]
	if n := utf8.RuneCountInString(t); n == 0 || n > MaxText {
		return op{}, unsupported(fmt.Sprintf("the text to add has %d characters, it must have 1 to %d", n, MaxText))
	}
	for _, r := range t {
		if !unicode.IsPrint(r) {
			return op{}, unsupported(fmt.Sprintf("the text to add holds the unprintable character %U", r))
		}
	}
	missing, err := imaging.Missing(textFont, t)
	if err != nil {
		return op{}, err
	}
	if len(missing) > 0 {
		return op{}, unsupported(fmt.Sprintf("the font has no letters for %q (Latin, Greek and Cyrillic text is supported)", string(missing)))
	}
	o := op{kind: text, text: t}
	verb := false
	for _, w := range words {
		if p, ok := positionWords[w]; ok {
			if o.where != "" && o.where != p {
				return op{}, unsupported("text goes in one place: top, bottom, left or right")
			}
			o.where = p
			continue
		}
		if !textWords[w] {
			return op{}, unsupported(fmt.Sprintf("%q is not part of an \"add text\" instruction", w))
		}
		verb = verb || textVerbs[w]
	}
	if !verb {
		return op{}, unsupported(`a quoted text is added with "add text \"…\""`)
	}
	return o, nil
}

func parseBorder(words []string) (op, error) {
	o := op{kind: border, width: 2}
	found := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if t, ok := thicknessWords[w]; ok {
			o.width = t
			continue
		}
		if borderWords[w] {
			continue
		}
		c, n, ok := parseColour(words[i:])
		if !ok {
			return op{}, unsupported(fmt.Sprintf("%q is not a colour (a colour word such as gold or navy, or #rrggbb)", w))
		}
		if found && c != o.colour {
			return op{}, unsupported("a border has one colour")
		}
		o.colour, found = c, true
		i += n - 1
	}
	if !found {
		o.colour = color.RGBA{255, 255, 255, 255}
	}
	return o, nil
}

// parseColour reads a colour at the start of words: a colour word of the
// background grammar, "light"/"dark" and a colour word, or #rrggbb /
// #rgb. It returns how many words it took.
func parseColour(words []string) (color.RGBA, int, bool) {
	w := words[0]
	if c, ok := colour.Names[w]; ok {
		return c, 1, true
	}
	if strings.HasPrefix(w, "#") {
		c, ok := colour.ParseHex(w)
		return c, 1, ok
	}
	if len(words) > 1 && (w == "light" || w == "dark") {
		if c, ok := colour.Names[words[1]]; ok {
			towards := 255.0
			if w == "dark" {
				towards = 0
			}
			mix := func(v uint8) uint8 { return uint8(float64(v)*0.55 + towards*0.45 + 0.5) }
			return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}, 2, true
		}
	}
	return color.RGBA{}, 0, false
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
func (p Program) String() string {
	parts := make([]string, len(p.ops))
	for i, o := range p.ops {
		parts[i] = o.String()
	}
	return strings.Join(parts, ", ")
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
		return strings.TrimSpace(`add text "` + o.text + `" ` + o.where)
	case border:
		s := fmt.Sprintf("add border #%02x%02x%02x", o.colour.R, o.colour.G, o.colour.B)
		switch o.width {
		case 1:
			s += " thin"
		case 3:
			s += " thick"
		}
		return s
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
