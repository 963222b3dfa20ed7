// Package scene reads a thumbnail's concept description ("Shocked
// creator pointing at a glowing laptop, bold yellow background") as a
// designer would: the words to set as the headline, and the art
// direction around them — colours, mood, the people and objects to draw,
// a comparison, a number, where things go. The local compositor draws
// what it finds; words it does not understand are ignored.
//
// The headline is the quoted text when there is one; otherwise Topic is
// what it is derived from: the prompt without its art direction, so that
// no colour, background, pose or layout word can reach a headline.
package scene

import (
	"image/color"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"hookline.dev/pkg/media/colour"
)

// Scene is what a prompt asks for.
type Scene struct {
	// Quoted is the text the prompt quotes, to be set as it is; "" when
	// none.
	Quoted string
	// Topic is the prompt without its art direction: what a headline is
	// derived from when nothing is quoted.
	Topic string
	// Background, Accent and Text are the colours the prompt names for
	// those roles; nil when it names none.
	Background, Accent, Text *Colour
	// Mood is dark, bright, neon, pastel or "" (none named).
	Mood string
	// Grade is the colour grade the mood or lighting words ask for:
	// punchy, warm, cool, moody, clean or "".
	Grade string
	// Subjects are the people to draw (creator, woman, chef), in order.
	Subjects []string
	// Expression is the subject's face (shocked, happy, angry), if named.
	Expression string
	// Objects are the things named (singular, lower case), in order.
	Objects []string
	// Compare is the comparison the prompt makes, nil when none.
	Compare *Comparison
	// Number is the number or sum to show big ("$1", "10", "50%"), ""
	// when none; Money says it is a sum.
	Number string
	Money  bool
	// TextAt is where the text goes (left, right, top, bottom, center,
	// top-left, top-right, bottom-left, bottom-right), "" when not said.
	TextAt string
	// SubjectAt is where the person goes (left, right, center), "" when
	// not said.
	SubjectAt string
	// CloseUp asks for the face large.
	CloseUp bool
	// PointAt is what the subject points at (an object or "" for
	// pointing without one); Pointing says the prompt asks for it.
	Pointing bool
	PointAt  string
}

// Colour is a named colour of a prompt: the words as written ("bold
// yellow") and the colour they mean.
type Colour struct {
	Name string
	RGB  color.RGBA
}

// Comparison is "A vs B", "before and after" or "A or B".
type Comparison struct {
	Kind        string // vs, before-after, or
	Left, Right string
}

// Options extends the parser.
type Options struct {
	// Object reports extra nouns that name a drawable object (an art
	// library's keywords), beyond the package's own list; may be nil.
	Object func(noun string) bool
}

var (
	quotedRe = regexp.MustCompile(`["“”«»]([^"“”«»]{1,80})["“”«»]`)
	// A word: letters, digits, apostrophes, hyphens, and a number's $ % , .
	wordRe = regexp.MustCompile(`[$€£]?[\p{L}\p{N}][\p{L}\p{N}'’\-]*(?:[.,]\d+)*%?|[,;:.!?()\[\]—–/+&]`)
)

// word is one token of a prompt.
type word struct {
	text  string // as written
	key   string // lower case, singular
	raw   string // lower case as written
	punct bool   // a clause break: , ; : . ! ? ( ) — /
	art   bool   // art direction: never in the topic
}

// Parse reads prompt. It never fails: an empty Scene is a prompt that
// asks for nothing beyond its words.
func Parse(prompt string, o Options) Scene {
	var s Scene
	text := prompt
	if m := quotedRe.FindStringSubmatchIndex(prompt); m != nil {
		q := strings.TrimSpace(prompt[m[2]:m[3]])
		if n := len(strings.Fields(q)); n >= 1 && n <= 8 {
			s.Quoted = q
			// The quote's place stays a text word, for "…" at the top.
			text = prompt[:m[0]] + " " + quoteMark + " " + prompt[m[1]:]
		}
	}
	ws := split(text)
	p := parser{s: &s, ws: ws, o: o}
	p.colours()
	p.layout()
	p.people()
	p.comparison()
	p.objects()
	p.numbers()
	p.artWords()
	s.Topic = p.topic()
	if s.Pointing && s.PointAt == "" && len(s.Objects) > 0 {
		s.PointAt = s.Objects[0]
	}
	return s
}

// quoteMark stands where the quoted headline was.
const quoteMark = "quotedheadline"

// compounds are two-word nouns read as one (the second word alone would
// mislead: "cream" is a colour).
var compounds = strings.NewReplacer("side by side", "side-by-side", "graphics card", "graphics-card", "gift card", "gift-card", "ice cream", "ice-cream", "Ice cream", "Ice-cream", "test tube", "test-tube",
	"credit card", "credit-card", "money bag", "money-bag", "magnifying glass", "magnifying-glass", "hot dog", "hotdog")

var compoundWords = set(`side-by-side ice-cream test-tube credit-card money-bag magnifying-glass`)

func split(text string) []word {
	var out []word
	for _, t := range wordRe.FindAllString(compounds.Replace(text), -1) {
		raw := strings.ToLower(strings.ReplaceAll(t, "’", "'"))
		w := word{text: t, raw: raw, key: singular(raw)}
		if compoundWords[raw] {
			w.text = strings.ReplaceAll(t, "-", " ") // as written
		}
		if r := []rune(t); len(r) == 1 && !unicode.IsLetter(r[0]) && !unicode.IsDigit(r[0]) {
			w.punct = t != "&" && t != "+"
		}
		out = append(out, w)
	}
	return out
}

// singular is a noun's singular by the common English rules, for
// matching: laptops → laptop, boxes → box, cities → city.
func singular(w string) string {
	if len(w) < 4 || irregularS[w] {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"), strings.HasSuffix(w, "'s"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

var irregularS = set(`news bus gas glasses sunglasses series species lens always`)

type parser struct {
	s  *Scene
	ws []word
	o  Options
}

// clause returns the bounds [from, to) of the clause around i.
func (p *parser) clause(i int) (int, int) {
	from, to := i, i
	for from > 0 && !p.ws[from-1].punct {
		from--
	}
	for to < len(p.ws) && !p.ws[to].punct {
		to++
	}
	return from, to
}

func (p *parser) at(i int) string {
	if i < 0 || i >= len(p.ws) {
		return ""
	}
	return p.ws[i].raw
}

// colours finds the colours and moods: a colour word (with its
// modifiers) before a role word (background, accents, text) or after
// "on a", a list of colours, or a colour before an object; mood words
// (dark, moody, neon, pastel, bright) anywhere in art direction.
func (p *parser) colours() {
	s := p.s
	for i := 0; i < len(p.ws); i++ {
		w := p.ws[i]
		c, ok := colour.Names[w.raw]
		if !ok {
			p.mood(i)
			continue
		}
		// Modifiers before the colour: "bold yellow", "dark red".
		from := i
		for from > 0 && colourModifiers[p.ws[from-1].raw] {
			from--
		}
		role, roleAt := p.roleAfter(i)
		listed := colourAt(p.at(i+1)) || colourAt(p.at(i+2)) && (p.at(i+1) == "and" || p.at(i+1) == ",") ||
			colourAt(p.at(i-1)) || colourAt(p.at(i-2)) && p.at(i-1) == "and"
		onA := p.at(i-1) == "on" || p.at(i-2) == "on" && (p.at(i-1) == "a" || p.at(i-1) == "an" || colourModifiers[p.at(i-1)])
		objectNext := p.objectAt(i + 1)
		capsName := i > 0 && unicode.IsUpper([]rune(w.text)[0]) && i+1 < len(p.ws) && unicode.IsUpper([]rune(p.ws[i+1].text + " ")[0])
		if capsName && role == "" && from == i {
			continue // Black Friday, Red Dead Redemption: a name
		}
		if role == "" && !listed && !onA && from == i && !objectNext {
			continue // "green energy": the colour is the topic's
		}
		p.mark(from, max(i, roleAt)+1)
		mods := make([]string, 0, i-from)
		for j := from; j < i; j++ {
			mods = append(mods, p.ws[j].raw)
		}
		named := &Colour{Name: strings.Join(append(mods, w.raw), " "), RGB: modified(c, mods)}
		for _, m := range mods {
			p.moodWord(m)
		}
		switch {
		case role == "accent" && s.Accent == nil:
			s.Accent = named
		case role == "text" && s.Text == nil:
			s.Text = named
		case role == "background" && s.Background == nil:
			s.Background = named
		case objectNext && role == "":
			// the object's own colour: "a red car"
		case s.Background == nil && role == "":
			s.Background = named
		case s.Accent == nil && role == "":
			s.Accent = named
		}
	}
}

func colourAt(w string) bool { _, ok := colour.Names[w]; return ok }

// roleAfter is the colour role the words after a colour at i name
// within its clause ("yellow background", "red accents", "white bold
// text", "blue and orange colour scheme"), "" when none.
func (p *parser) roleAfter(i int) (string, int) {
	_, to := p.clause(i)
	for j := i + 1; j < to && j <= i+4; j++ {
		k := p.ws[j].key
		if r, ok := roleWords[k]; ok {
			return r, j
		}
		if !colourAt(k) && !colourModifiers[k] && !artWords[k] && k != "and" && k != "with" && k != "-" {
			return "", 0
		}
	}
	return "", 0
}

var roleWords = map[string]string{
	"background": "background", "backdrop": "background", "bg": "background", "wall": "background", "sky": "background",
	"scheme": "background", "palette": "background", "theme": "background", "tone": "background", "gradient": "background",
	"backgrounds": "background", "color": "background", "colour": "background",
	"accent": "accent", "highlight": "accent", "glow": "accent", "light": "accent", "lighting": "accent",
	"outline": "accent", "rim": "accent", "border": "accent", "arrow": "accent", "circle": "accent", "splash": "accent", "pop": "accent",
	"text": "text", "font": "text", "letter": "text", "lettering": "text", "headline": "text", "title": "text", "word": "text", "type": "text",
}

// colourModifiers are words that shade a colour.
var colourModifiers = set(`bold bright dark deep light pale pastel neon vivid hot electric soft muted rich warm cool
	vibrant saturated solid flat dusty royal baby sky`)

// modified is c shaded by its modifiers: dark and deep towards black,
// light, pale, pastel and soft towards white, neon and electric to full
// saturation.
func modified(c color.RGBA, mods []string) color.RGBA {
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}
	for _, m := range mods {
		switch m {
		case "dark", "deep":
			if max(c.R, c.G, c.B) > 115 { // navy is dark already
				c = colour.Mix(c, black, 0.45)
			}
		case "light", "pale", "pastel", "soft", "baby":
			c = colour.Mix(c, white, 0.5)
		case "neon", "electric", "hot", "vivid", "bold", "bright", "saturated":
			c = saturate(c)
		case "muted", "dusty":
			g := uint8((int(c.R) + int(c.G) + int(c.B)) / 3) //nolint:gosec // G115: the mean of three bytes
			c = colour.Mix(c, color.RGBA{g, g, g, 255}, 0.4)
		}
	}
	return c
}

// saturate stretches c's channels to the full range, keeping its hue.
func saturate(c color.RGBA) color.RGBA {
	mx := max(c.R, c.G, c.B)
	mn := min(c.R, c.G, c.B)
	if mx == mn {
		return c
	}
	f := func(v uint8) uint8 { return uint8(int(v-mn) * 255 / int(mx-mn)) } //nolint:gosec // G115: v within mn..mx, so 0..255
	return color.RGBA{f(c.R), f(c.G), f(c.B), 255}
}

// moods are the words that set the look, with the mood and grade each
// asks for ("" keeps the other's).
var moods = map[string][2]string{
	"dark": {"dark", "moody"}, "moody": {"dark", "moody"}, "noir": {"dark", "moody"}, "gritty": {"dark", "moody"},
	"dramatic": {"", "moody"}, "cinematic": {"", "moody"}, "mysterious": {"dark", "moody"}, "spooky": {"dark", "moody"},
	"neon": {"neon", "punchy"}, "cyberpunk": {"neon", "cool"}, "synthwave": {"neon", "punchy"},
	"pastel": {"pastel", "clean"}, "minimal": {"bright", "clean"}, "minimalist": {"bright", "clean"}, "clean": {"bright", "clean"},
	"bright": {"bright", "punchy"}, "vibrant": {"bright", "punchy"}, "colorful": {"bright", "punchy"}, "colourful": {"bright", "punchy"},
	"warm": {"", "warm"}, "sunny": {"bright", "warm"}, "cozy": {"", "warm"}, "cosy": {"", "warm"}, "golden-hour": {"", "warm"},
	"cool": {"", "cool"}, "icy": {"", "cool"}, "cold": {"", "cool"}, "futuristic": {"", "cool"},
}

// mood reads the mood word at i, if it is one used as art direction:
// "dark" only beside another art word ("dark moody", "dark background",
// "dark and"), not in a name ("Dark Souls").
func (p *parser) mood(i int) {
	w := p.ws[i]
	if _, ok := moods[w.raw]; !ok {
		return
	}
	if i > 0 && unicode.IsUpper([]rune(w.text)[0]) && i+1 < len(p.ws) && unicode.IsUpper([]rune(p.ws[i+1].text + " ")[0]) {
		return // Dark Souls
	}
	switch w.raw {
	case "dark", "warm", "cool", "clean", "cold", "minimal":
		next, prev := p.at(i+1), p.at(i-1)
		_, nextMood := moods[next]
		_, nextRole := roleWords[singular(next)]
		if !nextMood && !nextRole && !colourAt(next) && !p.clauseHasArt(i) && next != "and" && next != "" && !p.ws[min(i+1, len(p.ws)-1)].punct &&
			prev != "and" && next != "tones" && next != "vibe" && next != "vibes" && next != "look" && next != "style" && next != "mood" {
			return // "cool gadgets", "clean code": the topic's
		}
	}
	p.ws[i].art = true
	p.moodWord(w.raw)
}

// clauseHasArt reports whether the clause of i names a colour role or
// an art word ("dark laboratory with green accents").
func (p *parser) clauseHasArt(i int) bool {
	from, to := p.clause(i)
	for j := from; j < to; j++ {
		k := p.ws[j].key
		if _, ok := roleWords[k]; ok && j != i || artWords[k] && !sizeWords[k] {
			return true
		}
	}
	return false
}

func (p *parser) moodWord(m string) {
	v, ok := moods[m]
	if !ok {
		return
	}
	if v[0] != "" && p.s.Mood == "" {
		p.s.Mood = v[0]
	}
	if v[1] != "" && p.s.Grade == "" {
		p.s.Grade = v[1]
	}
}

// layout finds where things go: "text on the left", "headline at the
// top-right", "me on the right", "close-up", "pointing at".
func (p *parser) layout() {
	s := p.s
	for i := 0; i < len(p.ws); i++ {
		k := p.ws[i].raw
		switch {
		case k == "close-up" || k == "closeup" || k == "close" && p.at(i+1) == "up":
			s.CloseUp = true
			p.mark(i, i+1)
			if k == "close" {
				p.mark(i+1, i+2)
			}
		case k == "pointing" || k == "points" || k == "point" && (p.at(i+1) == "at" || p.at(i+1) == "to"):
			s.Pointing = true
			p.mark(i, i+1)
			for j := i + 1; j < len(p.ws) && j <= i+5 && !p.ws[j].punct; j++ {
				if p.objectAt(j) {
					s.PointAt = p.ws[j].key
					break
				}
			}
		case sides[k] != "" || k == "top" || k == "bottom" || k == "middle" || k == "centre" || k == "center" || k == "upper" || k == "lower" ||
			strings.HasPrefix(k, "top-") || strings.HasPrefix(k, "bottom-"):
			p.side(i)
		}
	}
}

var sides = map[string]string{"left": "left", "right": "right"}

// side reads a placement at i ("left", "top right", "top-right") and
// gives it to what its clause names: the text, or the subject.
func (p *parser) side(i int) {
	from, to := p.clause(i)
	// The placement's own words: vertical then horizontal.
	v, h := "", ""
	j := i
	for ; j < to && j < i+3; j++ {
		k := p.ws[j].raw
		for _, part := range strings.Split(k, "-") {
			switch part {
			case "top", "upper":
				v = "top"
			case "bottom", "lower":
				v = "bottom"
			case "left", "right":
				h = part
			case "middle", "centre", "center":
				h = "center"
			}
		}
		if !strings.Contains("top upper bottom lower left right middle centre center top-left top-right bottom-left bottom-right", k) {
			break
		}
	}
	// Only a placement phrase: preceded by on/at/in (the) or followed by
	// side/corner/third/half, or a hyphenated pair.
	prev := p.at(i - 1)
	if prev == "the" {
		prev = p.at(i - 2)
	}
	next := p.at(j)
	placed := prev == "on" || prev == "at" || prev == "in" || prev == "to" || prev == "from" ||
		next == "side" || next == "corner" || next == "third" || next == "half" || strings.Contains(p.ws[i].raw, "-")
	if !placed || v == "" && h == "" {
		return
	}
	at := v
	switch {
	case v == "":
		at = h
	case h != "" && h != "center":
		at = v + "-" + h
	}
	endAt := j
	if next == "side" || next == "corner" || next == "third" || next == "half" {
		endAt++
	}
	startAt := i
	for startAt > from && (p.ws[startAt-1].raw == "the" || p.ws[startAt-1].raw == "on" || p.ws[startAt-1].raw == "at" ||
		p.ws[startAt-1].raw == "in" || p.ws[startAt-1].raw == "to") {
		startAt--
	}
	// Who goes there: the nearest text or subject word in the clause.
	target := ""
	for d := 1; d < to-from && target == ""; d++ {
		for _, q := range []int{i - d, j - 1 + d} {
			if q < from || q >= to || target != "" {
				continue
			}
			k := p.ws[q].key
			switch {
			case textWords[k]:
				target = "text"
			case subjectWords[k] || k == "face" || k == "me" || k == "i" || k == "he" || k == "she" || k == "host":
				target = "subject"
			}
		}
	}
	switch target {
	case "text":
		if p.s.TextAt == "" {
			p.s.TextAt = at
		}
	case "subject":
		if p.s.SubjectAt == "" && (at == "left" || at == "right" || at == "center") {
			p.s.SubjectAt = at
		}
	}
	// Where an object goes is not ours to place, but it is art direction
	// all the same.
	p.mark(startAt, endAt)
	for q := from; q < to; q++ {
		if textWords[p.ws[q].key] {
			p.ws[q].art = true
		}
	}
}

var textWords = set(`text headline title words lettering caption copy font space ` + quoteMark)

func (p *parser) mark(from, to int) {
	for j := max(from, 0); j < to && j < len(p.ws); j++ {
		p.ws[j].art = true
	}
}

// subjectWords are the people a prompt puts in the picture; generic
// ones (genericSubjects) are the drawn subject, never the topic.
var subjectWords = set(`creator youtuber man woman guy girl boy kid child person host streamer influencer
	people face chef doctor gamer teacher student dad mom mum father mother family couple friend
	vlogger presenter athlete runner coach scientist programmer developer founder reporter`)

var genericSubjects = set(`creator youtuber man woman guy girl boy person host face streamer influencer vlogger presenter`)

// expressions are the faces a prompt asks the subject to pull.
var expressions = set(`shocked surprised amazed excited happy smiling laughing angry furious sad crying scared
	terrified confused worried nervous stunned disgusted screaming yelling thinking curious serious confident
	wide-eyed jaw-dropping astonished`)

// people finds the subjects and their expression: "shocked creator",
// "a woman with a surprised face".
func (p *parser) people() {
	s := p.s
	for i, w := range p.ws {
		if subjectWords[w.key] {
			if !slices.Contains(s.Subjects, w.key) {
				s.Subjects = append(s.Subjects, w.key)
			}
			if genericSubjects[w.key] {
				p.ws[i].art = true
			}
		}
		if expressions[w.raw] {
			// Art direction when it describes a person or a face here,
			// not a title's verb ("I was shocked by...").
			near := false
			for j := i - 3; j <= i+3; j++ {
				if j >= 0 && j < len(p.ws) && (subjectWords[p.ws[j].key] || p.ws[j].key == "expression" || p.ws[j].key == "reaction") {
					near = true
				}
			}
			if near || i == 0 && len(p.ws) > 1 && subjectWords[p.ws[1].key] {
				p.ws[i].art = true
				if s.Expression == "" {
					s.Expression = w.raw
				}
			}
		}
		if (w.key == "expression" || w.key == "reaction" && p.at(i-1) != "my") && p.ws[max(i-1, 0)].art {
			p.ws[i].art = true
		}
	}
}

// objectAt reports whether the word at i names an object: one of the
// package's nouns, or an art library's noun after a determiner or a
// preposition ("a fly", "made of lightning"), never after "to" (a verb:
// "to fly the Space Shuttle").
func (p *parser) objectAt(i int) bool {
	if i < 0 || i >= len(p.ws) {
		return false
	}
	k := p.ws[i].key
	if objectWords[k] {
		return true
	}
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		prev := p.ws[j]
		if determiners[prev.raw] {
			return p.isObject(k)
		}
		if prev.punct || prev.raw == "to" || !colourAt(prev.raw) && !colourModifiers[prev.raw] && !sizeWords[prev.key] && !prev.art {
			return false
		}
	}
	return false
}

// determiners come before a noun.
var determiners = set(`a an the some two three four five many my his her their your our its this that these those of with
	and or on in at like`)

func (p *parser) isObject(k string) bool {
	if objectWords[k] {
		return true
	}
	return p.o.Object != nil && !artWords[k] && !subjectWords[k] && !colourAt(k) && p.o.Object(k)
}

// objects lists the objects named outside the quoted text, in order. A
// noun before another is its modifier ("mountain bike": a bike), unless
// the other measures it ("gift box", "pile of coins").
func (p *parser) objects() {
	title := p.titleCase()
	for i, w := range p.ws {
		if w.punct || colourAt(w.raw) || artWords[w.key] {
			continue
		}
		if !title && i > 1 && !p.ws[i-1].punct && capital(p.ws[i-1].text) && capital(w.text) {
			continue // a name's word: Elden Ring, Apple Watch
		}
		if p.objectAt(i+1) && !measures[p.ws[i+1].key] {
			continue
		}
		if p.objectAt(i) && !slices.Contains(p.s.Objects, w.key) {
			p.s.Objects = append(p.s.Objects, w.key)
		}
	}
	if p.s.Quoted != "" && len(p.s.Objects) == 0 {
		// A quoted headline may still name what to draw ("IPHONE 17?!").
		for _, w := range split(p.s.Quoted) {
			if p.isObject(w.key) && !slices.Contains(p.s.Objects, w.key) {
				p.s.Objects = append(p.s.Objects, w.key)
			}
		}
	}
}

// titleCase reports whether most words of the prompt start with a
// capital (a title written in Title Case): capitals then name nothing.
func (p *parser) titleCase() bool {
	letters, caps := 0, 0
	for _, w := range p.ws {
		if w.punct || !unicode.IsLetter([]rune(w.text)[0]) {
			continue
		}
		letters++
		if capital(w.text) {
			caps++
		}
	}
	return letters > 0 && caps*5 >= letters*3
}

// comparison finds "A vs B" / "A versus B", "before and after" and "A or
// B" between two short phrases of objects or names.
func (p *parser) comparison() {
	for i, w := range p.ws {
		switch {
		case w.raw == "vs" || w.raw == "vs." || w.raw == "versus":
			l, r := p.phraseBefore(i), p.phraseAfter(i+1)
			if l != "" && r != "" {
				p.s.Compare = &Comparison{Kind: "vs", Left: l, Right: r}
				return
			}
		case w.raw == "before" && (p.at(i+1) == "and" || p.at(i+1) == "&" || p.at(i+1) == "/") && p.at(i+2) == "after",
			w.raw == "before" && p.at(i+1) == "after":
			p.s.Compare = &Comparison{Kind: "before-after", Left: "before", Right: "after"}
			// The picture shows the two sides: the words are art direction.
			end := i + 3
			if p.at(i+1) == "after" {
				end = i + 2
			}
			p.mark(i, end)
			return
		case w.raw == "or" && i > 0:
			l, r := p.phraseBefore(i), p.phraseAfter(i+1)
			lw, rw := strings.Fields(l), strings.Fields(r)
			if len(lw) > 0 && len(rw) > 0 && len(lw) <= 2 && len(rw) <= 2 &&
				(p.isObject(singular(strings.ToLower(lw[len(lw)-1]))) || p.isObject(singular(strings.ToLower(rw[len(rw)-1]))) || capital(l) && capital(r)) {
				p.s.Compare = &Comparison{Kind: "or", Left: l, Right: r}
				return
			}
		}
	}
}

func capital(s string) bool { return s != "" && unicode.IsUpper([]rune(s)[0]) }

// phraseBefore is up to three content words before i in its clause.
func (p *parser) phraseBefore(i int) string {
	var out []string
	for j := i - 1; j >= 0 && len(out) < 3; j-- {
		w := p.ws[j]
		if w.punct || compareStops[w.raw] {
			break
		}
		if colourAt(w.raw) || artWords[w.key] || w.art {
			continue
		}
		out = append([]string{w.text}, out...)
	}
	return strings.Join(out, " ")
}

// phraseAfter is up to three content words from i in its clause.
func (p *parser) phraseAfter(i int) string {
	var out []string
	for j := i; j < len(p.ws) && len(out) < 3; j++ {
		w := p.ws[j]
		if w.punct || compareStops[w.raw] {
			break
		}
		if colourAt(w.raw) || artWords[w.key] || w.art {
			continue
		}
		out = append(out, w.text)
	}
	return strings.Join(out, " ")
}

// measures are nouns that hold or count another ("gift box", "bag of
// chips"): the other is the object.
var measures = set(`box bag cup bottle jar slice pile stack bowl plate glass`)

var compareStops = set(`a an the is are which who what and with in on at for of to should i you we it comparison review
	showdown battle which one better worse - split screen side`)

var (
	moneyRe  = regexp.MustCompile(`^[$€£]\d[\d,]*(?:\.\d+)?(?:k|m|b)?$`)
	numberRe = regexp.MustCompile(`^\d[\d,]*(?:\.\d+)?(?:%|k|m|x)?$`)
)

// numbers finds the number to show big: a sum first ($1, €500, 10k
// dollars), else a percentage or a count.
func (p *parser) numbers() {
	for i, w := range p.ws {
		switch {
		case moneyRe.MatchString(w.raw):
			p.s.Number, p.s.Money = strings.ToUpper(w.text), true
			if big := p.at(i + 1); big == "million" || big == "billion" || big == "thousand" {
				p.s.Number += map[string]string{"million": "M", "billion": "B", "thousand": "K"}[big]
			}
			return
		case numberRe.MatchString(w.raw) && (p.at(i+1) == "dollars" || p.at(i+1) == "dollar" || p.at(i+1) == "euros" || p.at(i+1) == "pounds" || p.at(i+1) == "bucks"):
			p.s.Number, p.s.Money = "$"+w.text, true
			if p.at(i+1) == "euros" {
				p.s.Number = "€" + w.text
			}
			if p.at(i+1) == "pounds" {
				p.s.Number = "£" + w.text
			}
			return
		}
	}
	for i, w := range p.ws {
		if !numberRe.MatchString(w.raw) || len(w.raw) == 4 && (strings.HasPrefix(w.raw, "19") || strings.HasPrefix(w.raw, "20")) {
			continue // not a number, or a year
		}
		if i > 0 && !p.ws[i-1].punct && strings.ToLower(p.ws[i-1].text) != p.ws[i-1].text {
			continue // a name's number: iPhone 17, Windows 11
		}
		p.s.Number = strings.ToUpper(w.text)
		return
	}
}

// artWords are the words of art direction that are never a topic:
// backgrounds, lighting, composition, poses, effects and the words for
// the thumbnail itself.
var artWords = set(`background backdrop bg backgrounds glowing glow glows lighting lit light-up neon pastel vignette bokeh
	gradient gradients close-up closeup wide-angle shot composition framing foreground accent highlight rim
	pointing point holding looking staring facing posing pose expression
	thumbnail thumbnails style styled aesthetic vibe vibes look mood moody colour color colours colors scheme palette tone tones
	saturated contrast high-contrast hdr lens blur blurred blurry sharp 3d render rendered realistic photorealistic cinematic
	dramatic bold vibrant vivid minimalist minimal outline outlined border shadow shadows drop-shadow sparkle sparkles sparkling
	overlay overlays arrow arrows circle circled split screen split-screen side-by-side text font lettering headline caption
	big large huge giant massive oversized light rim-light ` + quoteMark)

// sizeWords ask for a thing drawn big when an object follows ("a giant
// rocket", "a huge pile of coins"); before anything else they are the
// topic's ("a huge mistake").
var sizeWords = set(`big large huge giant massive oversized`)

// artWords marks the art words that carry no topic wherever they are;
// the ambiguous ones (big, huge, giant, light, text) only next to other
// art direction.
func (p *parser) artWords() {
	soft := set(`big large huge giant massive oversized text headline font shot look style aesthetic tone tones sharp
	point light split screen circle arrow highlight`)
	for i, w := range p.ws {
		if !artWords[w.key] && !artWords[w.raw] {
			continue
		}
		if sizeWords[w.key] {
			_, to := p.clause(i)
			object := false
			for j := i + 1; j < to && j <= i+4; j++ {
				object = object || p.objectAt(j)
			}
			if !object {
				continue
			}
		} else if soft[w.key] {
			prevArt := i > 0 && p.ws[i-1].art
			nextArt := i+1 < len(p.ws) && (p.ws[i+1].art || artWords[p.ws[i+1].key] || colourAt(p.ws[i+1].raw) || p.objectAt(i+1) || p.ws[i+1].key == "of" || p.ws[i+1].key == "with" || p.ws[i+1].punct)
			if !prevArt && !nextArt {
				continue
			}
		}
		p.ws[i].art = true
	}
	// A mood or colour modifier beside art direction is art ("soft
	// pastel colours", "clean white background"); "with", "and", "of"
	// left alone between art words are art too, so that "bold yellow
	// background with red accents" leaves nothing.
	for i := range p.ws {
		_, mood := moods[p.ws[i].raw]
		beside := i > 0 && p.ws[i-1].art || i+1 < len(p.ws) && p.ws[i+1].art
		if (mood || colourModifiers[p.ws[i].raw]) && beside && !p.ws[i].art {
			p.ws[i].art = true
			p.moodWord(p.ws[i].raw)
		}
	}
	for i := 1; i+1 < len(p.ws); i++ {
		if (p.ws[i].raw == "with" || p.ws[i].raw == "and" || p.ws[i].raw == "of") && p.ws[i-1].art && p.ws[i+1].art {
			p.ws[i].art = true
		}
	}
}

// topic is the prompt's words without art direction, clause breaks kept
// as commas; a clause left with nothing but function words goes.
func (p *parser) topic() string {
	var out []string
	var clause []string
	content := false
	flush := func(sep string) {
		if content {
			out = append(out, strings.Join(clause, " ")+sep)
		}
		clause, content = nil, false
	}
	for _, w := range p.ws {
		if w.punct {
			sep := w.text
			if sep == "(" || sep == ")" || sep == "—" || sep == "–" || sep == "/" || sep == ";" {
				sep = ","
			}
			flush(sep)
			continue
		}
		if w.art {
			continue
		}
		clause = append(clause, w.text)
		if !fillers[w.raw] {
			content = true
		}
	}
	flush("")
	t := strings.TrimSpace(strings.Join(out, " "))
	return strings.TrimRight(t, ",;:")
}

// fillers are function words: a clause of nothing else says nothing.
var fillers = set(`a an the at on in of with and or to for is are by from into onto over under behind next his her their my
	your its very really super some this that these those`)

// objectWords are the common nouns of thumbnails that name a thing to
// draw (singular): a library of art matches them by its keywords.
var objectWords = set(`laptop computer pc phone smartphone iphone android tablet ipad camera microphone mic headphone headset
	keyboard mouse monitor tv television controller console joystick robot rocket satellite drone battery chip
	money cash dollar coin bitcoin wallet credit-card bank gold diamond gem crown trophy medal ring
	car truck bus bike bicycle motorcycle plane airplane train boat ship house home building castle tent
	pizza burger hamburger taco sushi ramen noodle pasta spaghetti coffee tea cake cookie donut doughnut bread egg
	apple banana avocado strawberry cherry lemon watermelon pineapple grape carrot broccoli tomato potato chocolate
	candy ice-cream popcorn steak meat chicken fish salad sandwich hotdog fries wine beer cocktail water
	cat dog kitten puppy bird parrot owl eagle lion tiger bear panda monkey shark whale dolphin octopus snake
	spider bee butterfly horse cow pig rabbit fox wolf frog turtle dinosaur unicorn dragon
	plant tree flower rose cactus mushroom leaf sun moon star planet earth globe fire flame volcano snow snowflake
	lightning rainbow cloud umbrella
	book notebook pencil pen paintbrush brush scissors hammer wrench toolbox tool saw axe key lock
	clock watch alarm hourglass calendar magnifying-glass bulb lightbulb idea brain heart skull ghost alien bomb
	gift present balloon party ticket map compass backpack suitcase passport
	shoe sneaker shirt dress hat glasses sunglasses lipstick makeup perfume
	dumbbell weight basketball football soccer ball baseball tennis golf guitar piano drum violin trumpet
	gamepad dice chess puzzle joystick
	chart graph stock calculator envelope mail email package box trash bin toilet bed couch sofa chair
	syringe pill medicine stethoscope dna microscope telescope magnet flask test-tube
	warning stop sign flag check cross question exclamation money-bag moneybag`)

// ArtWords lists the words of art direction in text (see ArtWord),
// reading two-word nouns as one ("ice cream" holds no colour).
func ArtWords(text string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(compounds.Replace(text))) {
		if w = strings.Trim(w, ",.!?:;\"“”"); ArtWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// ArtWord reports whether w (lower case) is a word of art direction: a
// colour, a mood, a pose or layout word, or a generic subject. No
// derived headline holds one.
func ArtWord(w string) bool {
	k := singular(w)
	_, mood := moods[w]
	return artWords[w] && !sizeWords[w] || artWords[k] && !sizeWords[k] || colourAt(w) || plainArt[w] || mood && !ambiguousMoods[w] ||
		expressions[w] || genericSubjects[k] || sides[w] != "" || w == "top" || w == "bottom" || w == "closeup"
}

// plainArt are colour modifiers that are art direction wherever they
// stand; ambiguousMoods are mood words a topic may use ("cool gadgets",
// "clean code", "dark web").
var (
	plainArt       = set(`bold bright neon pastel vivid vibrant saturated muted`)
	ambiguousMoods = set(`dark warm cool clean cold minimal sunny cozy cosy icy futuristic gritty spooky mysterious`)
)

func set(words string) map[string]bool { return wordSet(strings.Fields(words)) }

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
