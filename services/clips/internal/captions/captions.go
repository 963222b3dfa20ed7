// Package captions writes a clip's burned-in text as an ASS script for
// libass (ffmpeg's subtitles filter): the captions from word timings in
// one of five styles, the optional hook title and end card, the brand's
// frame and the progress bar (drawn in the same libass pass, which costs
// less than a filter each); and the same captions as SRT for editors. User text reaches the script only through
// Escape, so it can never become an override tag, a line break or
// anything but literal text, and every word of it fits the frame's width
// (fit.go): libass wraps at spaces, and a longer word is cut with an
// ellipsis.
package captions

import (
	"fmt"
	"image"
	"math"
	"strings"
	"unicode"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/fonts"
)

// Style is a subtitle style name.
type Style string

// The subtitle styles.
const (
	Bold      Style = "bold"
	Clean     Style = "clean"
	Minimal   Style = "minimal"
	Energetic Style = "energetic"
	Glow      Style = "glow"
)

// Styles lists the styles in the API's order.
var Styles = []Style{Bold, Clean, Minimal, Energetic, Glow}

// ParseStyle reads a style name.
func ParseStyle(s string) (Style, bool) {
	for _, st := range Styles {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// Word is a timed word, in seconds from the clip's start.
type Word struct {
	Start, End float64
	Text       string
	// Break ends a caption line after the word (the end of a translated
	// sentence, which may carry no punctuation).
	Break bool
}

// Spec describes a clip's text.
type Spec struct {
	Width, Height int
	Style         Style
	Words         []Word
	// Keywords are coloured when Emphasis is set.
	Keywords []string
	Emphasis bool
	// Hook, when set, is shown as an animated title for HookSeconds.
	Hook        string
	HookSeconds float64
	// EndCard, when set, is shown from EndStart for EndSeconds.
	EndCard              string
	EndStart, EndSeconds float64
	// Cutaways are full-frame kinetic-typography cards of a keyword,
	// drawn over the picture while the speech goes on.
	Cutaways []Cutaway
	// Faces are the faces on screen, which the hook and the captions
	// move away from (place.go).
	Faces []FaceBox
	// Frame, when its Border is not 0, is a border around the picture
	// over the text; Bar, when not 0, is a progress bar along the bottom
	// edge, over the frame, filling it in Bar seconds and gone after.
	// libass draws both in the pass that draws the text, for less than a
	// filter each would cost.
	Frame Frame
	Bar   float64
	// Logo, when not empty, is the box the brand's logo covers (pixels of
	// the frame): the hook narrows to leave it free and the captions keep
	// out of its rows (place.go).
	Logo image.Rectangle
}

// Frame is a border of colour RGB (0xRRGGBB), Border pixels wide.
type Frame struct {
	RGB    uint32
	Border int
}

// Cutaway is a keyword card.
type Cutaway struct {
	Start, End float64
	Text       string
}

// Cutaways picks up to maxCards keyword cards of seconds each: at the first
// time each keyword's first word is spoken after skip seconds, not
// overlapping one another, ending before end.
func Cutaways(words []Word, keywords []string, skip, seconds, end float64, maxCards int) []Cutaway {
	var out []Cutaway
	last := skip
	for _, k := range keywords {
		if len(out) == maxCards {
			break
		}
		toks := nlp.Tokens(k)
		if len(toks) == 0 {
			continue
		}
		for _, w := range words {
			if w.Start < last || w.Start+seconds > end {
				continue
			}
			if t := nlp.Tokens(w.Text); len(t) > 0 && nlp.Stem(t[0]) == nlp.Stem(toks[0]) {
				out = append(out, Cutaway{Start: w.Start, End: w.Start + seconds, Text: k})
				last = w.Start + seconds + 1
				break
			}
		}
	}
	return out
}

// MaxWords is how many words a caption line holds: 3 in portrait, where
// lines must stay short to be read at a glance, 6 in landscape.
func (s Spec) MaxWords() int {
	if s.Height > s.Width {
		return 3
	}
	return 6
}

// Escape makes s literal ASS text: braces cannot open an override block
// (they are escaped as libass reads them), a backslash cannot start \N,
// \n or \h (a word joiner follows it), and line breaks and other control
// characters become spaces.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString("\\\u2060")
		case r == '{' || r == '}':
			b.WriteRune('\\')
			b.WriteRune(r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// look is a style's fonts and colours (ASS colours are &HAABBGGRR).
type look struct {
	font                fonts.Name
	size                float64 // of the frame's height
	primary, outlineCol string
	back                string
	outline, shadow     float64 // of the font size
	box                 bool
	upper               bool
	marginV             float64 // of the height
	emphasis            string  // the colour of keywords
	blur                float64
	// active, when set, is the colour of the box behind the word being
	// spoken (keywords keep theirs), its ink dark on it; the word grows
	// to activeScale % as it starts.
	active      string
	activeScale int
}

var looks = map[Style]look{
	Bold:      {font: fonts.Heavy, size: 0.052, primary: "&H00FFFFFF", outlineCol: "&H00000000", back: "&H00000000", outline: 0.1, upper: true, marginV: 0.2, emphasis: "&H0000D7FF"},
	Clean:     {font: fonts.Sans, size: 0.04, primary: "&H00FFFFFF", outlineCol: "&H99000000", back: "&H99000000", outline: 0.25, box: true, marginV: 0.16, emphasis: "&H0000D7FF"},
	Minimal:   {font: fonts.Sans, size: 0.03, primary: "&H00F0F0F0", outlineCol: "&H80000000", back: "&H80000000", outline: 0.03, shadow: 0.04, marginV: 0.07, emphasis: "&H00A0E0FF"},
	Energetic: {font: fonts.Display, size: 0.075, primary: "&H00FFFFFF", outlineCol: "&H00000000", back: "&H00000000", outline: 0.09, shadow: 0.05, upper: true, marginV: 0.24, active: "&H0000F0FF", emphasis: "&H0060FF60", activeScale: 110},
	Glow:      {font: fonts.Heavy, size: 0.048, primary: "&H00FFFFFF", outlineCol: "&H00FFC000", back: "&H00000000", outline: 0.12, marginV: 0.19, emphasis: "&H00FFE0A0", blur: 6},
}

// ASS is the script of spec.
func ASS(s Spec) string {
	lk := looks[s.Style]
	if lk.font == "" {
		lk = looks[Clean]
	}
	h := float64(s.Height)
	size := math.Round(lk.size * h)
	border := 1
	if lk.box {
		border = 3
	}
	capMargin, hookMargin, cardMargin := s.Width/12, s.Width/14, s.Width/10
	hookSize, hookBox := math.Round(0.045*h), 0.02*h
	cardSize, cardOutline := math.Round(0.08*h), 0.004*h
	var b strings.Builder
	fmt.Fprintf(&b, "[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 0\nScaledBorderAndShadow: yes\n\n", s.Width, s.Height)
	b.WriteString("[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n")
	fmt.Fprintf(&b, "Style: Caption,%s,%.0f,%s,%s,%s,%s,0,0,0,0,100,100,0,0,%d,%.1f,%.1f,2,%d,%d,%d,1\n",
		fonts.Families[lk.font], size, lk.primary, lk.primary, lk.outlineCol, lk.back, border, lk.outline*size, lk.shadow*size,
		capMargin, capMargin, int(lk.marginV*h))
	if lk.active != "" {
		// BorderStyle 3 draws an opaque box around each run of text in
		// this style: \rActive puts one behind the spoken word alone.
		fmt.Fprintf(&b, "Style: Active,%s,%.0f,%s,%s,%s,%s,0,0,0,0,100,100,0,0,3,%.1f,0,2,%d,%d,%d,1\n",
			fonts.Families[lk.font], size, activeInk, activeInk, lk.active, lk.active, activePad*size, capMargin, capMargin, int(lk.marginV*h))
	}
	fmt.Fprintf(&b, "Style: Hook,%s,%.0f,&H00FFFFFF,&H00FFFFFF,&H00101010,&HC0101010,0,0,0,0,100,100,0,0,3,%.0f,0,8,%d,%d,%d,1\n",
		fonts.Families[fonts.Heavy], hookSize, hookBox, hookMargin, hookMargin, int(0.14*h))
	fmt.Fprintf(&b, "Style: Card,%s,%.0f,&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,%.0f,0,5,%d,%d,0,1\n\n",
		fonts.Families[fonts.Display], cardSize, cardOutline, cardMargin, cardMargin)
	b.WriteString("[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")

	// Every word fits between its style's margins, at the largest scale
	// its animation reaches: the spoken word grows to activeScale, the
	// hook to 100 %, a cutaway's keyword to 110 %.
	width := func(margin int) float64 { return float64(s.Width - 2*margin) }
	capFit := newFitter(lk.font, size, float64(max(lk.activeScale, 100))/100, width(capMargin), (lk.outline+lk.shadow)*size+lk.blur)
	hookFit := newFitter(fonts.Heavy, hookSize, 1, width(hookMargin), hookBox)
	cardFit := newFitter(fonts.Display, cardSize, 1, width(cardMargin), cardOutline)
	cutFit := newFitter(fonts.Display, cardSize, 1.1, width(cardMargin), cardOutline)

	// The hook is placed first; captions shown meanwhile avoid it too.
	hookDef, capDef := spot{an: 8, marginV: int(0.14 * h)}, spot{an: 2, marginV: int(lk.marginV * h)}
	hookSpot, hookBand := s.hookSpot(hookDef, hookFit, hookSize, hookBox)
	if hook := strings.TrimSpace(s.Hook); hook != "" && !s.clearOfLogo(s.hookBox(hookSpot, hookFit, hookMargin, hookSize, hookBox)) {
		// The hook's box would run under the logo: it ends left of it,
		// wrapping into more lines where it must.
		hookDef.marginR = s.Width - s.Logo.Min.X + int(math.Ceil(hookBox+logoGap*h))
		hookFit = newFitter(fonts.Heavy, hookSize, 1, float64(s.Width-hookMargin-hookDef.marginR), hookBox)
		hookSpot, hookBand = s.hookSpot(hookDef, hookFit, hookSize, hookBox)
	}
	capPad := (lk.outline+lk.shadow)*size + lk.blur

	keys := KeywordKeys(s.Keywords)
	blur := ""
	if lk.blur > 0 {
		blur = fmt.Sprintf("{\\blur%.0f}", lk.blur)
	}
	for _, line := range Lines(s.Words, s.MaxWords()) {
		sp := s.lineSpot(line, lk, capDef, capFit, size, capPad, hookBand)
		if lk.active == "" {
			placedEvent(&b, 2, line[0].Start, line[len(line)-1].End, "Caption", sp, capDef, blur+s.lineText(line, -1, lk, keys, capFit))
			continue
		}
		// The active word lights up while it is spoken; the line stays.
		for k, w := range line {
			end := w.End
			if k+1 < len(line) {
				end = line[k+1].Start
			}
			start := w.Start
			if k == 0 {
				start = line[0].Start
			}
			placedEvent(&b, 2, start, end, "Caption", sp, capDef, blur+s.lineText(line, k, lk, keys, capFit))
		}
	}
	for _, c := range s.Cutaways {
		panel := fmt.Sprintf("{\\an7\\pos(0,0)\\bord0\\shad0\\1c&H00281E14&\\fad(120,120)\\p1}m 0 0 l %d 0 %d %d 0 %d{\\p0}", s.Width, s.Width, s.Height, s.Height)
		event(&b, 0, c.Start, c.End, "Card", panel)
		event(&b, 1, c.Start, c.End, "Card", "{\\fad(120,120)\\1c&H0000D7FF&\\fscx60\\fscy60\\t(0,250,\\fscx110\\fscy110)\\t(250,500,\\fscx100\\fscy100)}"+Escape(cutFit.fit(strings.ToUpper(c.Text))))
	}
	if hook := strings.TrimSpace(s.Hook); hook != "" && s.HookSeconds > 0 {
		placedEvent(&b, 3, 0, s.HookSeconds, "Hook", hookSpot, hookDef, "{\\fad(150,250)\\fscx70\\fscy70\\t(0,300,\\fscx100\\fscy100)}"+Escape(hookFit.fit(hook)))
	}
	if card := strings.TrimSpace(s.EndCard); card != "" && s.EndSeconds > 0 {
		event(&b, 4, s.EndStart, s.EndStart+s.EndSeconds, "Card", "{\\fad(300,0)}"+Escape(cardFit.fit(card)))
	}
	s.decor(&b)
	return b.String()
}

// barColour is the progress bar's (#FFD000); untilTheEnd is a time
// past the end of any clip, seconds.
const (
	barColour   = "&H0000D0FF&"
	untilTheEnd = 10 * 3600.0
)

// decor writes the frame, shown from the first frame to the last, and
// the progress bar, as drawings.
func (s Spec) decor(b *strings.Builder) {
	w, h := s.Width, s.Height
	if f := s.Frame; f.Border > 0 {
		// One event an edge: libass blends each event over its bounds,
		// and one drawing of the four edges, blended over the whole
		// frame, costs more than the drawbox it replaces.
		t := f.Border
		colour := fmt.Sprintf("&H00%02X%02X%02X&", f.RGB&0xff, f.RGB>>8&0xff, f.RGB>>16)
		for _, e := range []image.Rectangle{image.Rect(0, 0, w, t), image.Rect(0, h-t, w, h), image.Rect(0, t, t, h-t), image.Rect(w-t, t, w, h-t)} {
			event(b, 5, 0, untilTheEnd, "Card", rect(e, colour, ""))
		}
	}
	if s.Bar > 0 {
		// The bar is uncovered left to right as the clip plays: an
		// animated clip over a full-width bar.
		bar := max(6, h/160)
		grow := fmt.Sprintf("\\clip(0,%d,0,%d)\\t(\\clip(0,%d,%d,%d))", h-bar, h, h-bar, w, h)
		event(b, 6, 0, s.Bar, "Card", rect(image.Rect(0, h-bar, w, h), barColour, grow))
	}
}

// rect is the text of an event drawing r filled in colour, with more
// override tags.
func rect(r image.Rectangle, colour, tags string) string {
	return fmt.Sprintf("{\\an7\\pos(%d,%d)\\bord0\\shad0\\1c%s%s\\p1}m 0 0 l %d 0 %d %d 0 %d{\\p0}",
		r.Min.X, r.Min.Y, colour, tags, r.Dx(), r.Dx(), r.Dy(), r.Dy())
}

// The spoken word's box: its padding (of the font size), its ink, and
// how long the word takes to grow, ms. The box differs from a keyword's
// colour at a glance, so a lit stop word does not read as stressed; a
// spoken keyword's box takes the keyword's colour.
const (
	activePad = 0.06
	activeInk = "&H00101010"
	activePop = 90
)

// lineText is a caption line with the active word (index, or -1) boxed
// and the keywords coloured.
func (s Spec) lineText(line []Word, active int, lk look, keys Keys, fit fitter) string {
	shown := lk.shown(line, fit)
	parts := make([]string, len(line))
	for i, w := range line {
		t := Escape(shown[i])
		keyword := s.Emphasis && keys.Emphasises(w.Text)
		switch {
		case i == active:
			box := ""
			if keyword {
				box = fmt.Sprintf("\\3c%s", lk.emphasis)
			}
			// The box's height is the font's line, with no padding above
			// or below.
			t = fmt.Sprintf("{\\rActive\\ybord0%s\\t(0,%d,\\fscx%d\\fscy%d)}%s{\\r}", box, activePop, lk.activeScale, lk.activeScale, t)
		case keyword:
			t = fmt.Sprintf("{\\c%s}%s{\\r}", lk.emphasis, t)
		}
		parts[i] = t
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i == 0:
		case i == active || i-1 == active:
			// The spaces beside the box widen by an outline, which would
			// otherwise touch it.
			fmt.Fprintf(&b, "{\\fsp%.0f} {\\fsp0}", lk.outline*fit.size)
		default:
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// shown are the words of line as drawn: in capitals if the style wants
// them, each cut to fit.
func (lk look) shown(line []Word, fit fitter) []string {
	out := make([]string, len(line))
	for i, w := range line {
		t := w.Text
		if lk.upper {
			t = strings.ToUpper(t)
		}
		out[i] = fit.fit(t)
	}
	return out
}

// Keys are the stems of the keywords a caption emphasises.
type Keys map[string]bool

// KeywordKeys are the keys of keywords: their words' stems, stop words
// left out.
func KeywordKeys(keywords []string) Keys {
	m := Keys{}
	for _, k := range keywords {
		for _, t := range nlp.Tokens(k) {
			if !nlp.IsStopword(t) {
				m[nlp.Stem(t)] = true
			}
		}
	}
	return m
}

// Emphasises reports whether a spoken word is one of the keywords and
// worth stressing: never a stop word nor a word of fewer than 3 letters,
// whatever stem it shares with a keyword ("is" with "isolation").
func (k Keys) Emphasises(word string) bool {
	t := nlp.Tokens(word)
	if len(t) != 1 || nlp.IsStopword(t[0]) {
		return false
	}
	letters := 0
	for _, r := range t[0] {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3 && k[nlp.Stem(t[0])]
}

func event(b *strings.Builder, layer int, start, end float64, style, text string) {
	fmt.Fprintf(b, "Dialogue: %d,%s,%s,%s,,0,0,0,,%s\n", layer, stamp(start, '.', 2), stamp(end, '.', 2), style, text)
}

// stamp formats seconds as H:MM:SS.cc (ASS) or HH:MM:SS,mmm (SRT).
func stamp(sec float64, sep byte, digits int) string {
	sec = math.Max(0, sec)
	scale := math.Pow10(digits)
	total := int64(math.Round(sec * scale))
	frac := total % int64(scale)
	whole := total / int64(scale)
	if digits == 2 {
		return fmt.Sprintf("%d:%02d:%02d%c%02d", whole/3600, whole/60%60, whole%60, sep, frac)
	}
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", whole/3600, whole/60%60, whole%60, sep, frac)
}

// Lines groups words into caption lines of at most max words, breaking
// early after a sentence's end, a pause or a word that says Break.
func Lines(words []Word, maxWords int) [][]Word {
	var out [][]Word
	var cur []Word
	for i, w := range words {
		if strings.TrimSpace(w.Text) == "" {
			continue
		}
		cur = append(cur, w)
		last := strings.TrimRight(w.Text, "\"')”’")
		pause := i+1 < len(words) && words[i+1].Start-w.End > 0.6
		if len(cur) == maxWords || pause || w.Break || strings.HasSuffix(last, ".") || strings.HasSuffix(last, "?") || strings.HasSuffix(last, "!") {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// SRT is the captions as SRT, in lines of maxWords words.
func SRT(words []Word, maxWords int) string {
	var b strings.Builder
	for i, line := range Lines(words, maxWords) {
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, stamp(line[0].Start, ',', 3), stamp(line[len(line)-1].End, ',', 3), lineText(line))
	}
	return b.String()
}

// VTT is the captions as WebVTT, the same cues as SRT's. A cue's text
// cannot open a tag or an entity ('<' and '&' are escaped), nor end the
// cue (it is one line), nor read as a timing ("-->" is broken).
func VTT(words []Word, maxWords int) string {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for i, line := range Lines(words, maxWords) {
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, stamp(line[0].Start, '.', 3), stamp(line[len(line)-1].End, '.', 3), esc.Replace(lineText(line)))
	}
	return b.String()
}

// lineText is a caption line's words on one line.
func lineText(line []Word) string {
	texts := make([]string, len(line))
	for k, w := range line {
		texts[k] = strings.Join(strings.Fields(w.Text), " ")
	}
	return strings.Join(texts, " ")
}
