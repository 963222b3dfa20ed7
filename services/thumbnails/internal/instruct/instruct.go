// Package instruct is the local engine of POST /thumbnails/edit
// (ARCHITECTURE §7): a small documented grammar of instructions, carried
// out on the pixels. A prompt outside it is 400 unsupported_prompt (and
// goes to the image provider when one is configured).
//
// Grammar (case-insensitive; instructions joined by "and", "then", ",",
// ";"; a leading "make it"/"please" and trailing punctuation are ignored):
//
//	[much|slightly|a bit|a little] brighter | lighter | darker      (also: brighten, darken)
//	more contrast | increase contrast | less contrast | reduce contrast
//	saturate | more saturated | more vivid | more colourful | boost colours
//	desaturate | less saturated | mute colours
//	crop to 16:9 | crop to 9:16
//	mirror | flip | flip horizontally
//	add text "…" [at|on|to] [the] [top|bottom|left|right]          (default bottom; 1–60 characters)
//	add [a] [thin|thick] [<colour>] border [in <colour>]           (default white)
//
// Colours are the background grammar's colour words (red, navy, gold…) or
// #rrggbb.
package instruct

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"regexp"
	"strings"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/framing"
	"hookline.dev/services/thumbnails/internal/layout"
	"hookline.dev/services/thumbnails/internal/lettering"
	"hookline.dev/services/thumbnails/internal/matte"
)

// Kind is what one instruction does.
type Kind string

// The instructions.
const (
	Brightness Kind = "brightness"
	Contrast   Kind = "contrast"
	Saturation Kind = "saturation"
	Crop       Kind = "crop"
	Mirror     Kind = "mirror"
	Text       Kind = "text"
	Border     Kind = "border"
)

// Op is one instruction.
type Op struct {
	Kind Kind
	// Amount is signed: +0.15 for "brighter", -0.3 for "much darker".
	Amount float64
	Aspect string // crop
	Text   string // text
	// Where is top, bottom, left or right (text).
	Where  string
	Colour color.RGBA // border
	// Width is thin, medium or thick (border).
	Width string
}

// Program is a parsed prompt: its instructions in order.
type Program []Op

// MaxText bounds the text of an "add text" instruction.
const MaxText = 60

var (
	quoted    = regexp.MustCompile(`["“”]([^"“”]*)["“”]`)
	separator = regexp.MustCompile(`\s*(?:,|;|\band then\b|\bthen\b|\band\b)\s*`)
	degree    = `(?:(much|far|a lot|slightly|a bit|a little|somewhat)\s+)?`
	grammar   = []struct {
		re *regexp.Regexp
		mk func(m []string) (Op, error)
	}{
		{regexp.MustCompile(`^` + degree + `(brighter|lighter|brighten( it| up)?)$`), func(m []string) (Op, error) {
			return Op{Kind: Brightness, Amount: amount(m[1], 0.15)}, nil
		}},
		{regexp.MustCompile(`^` + degree + `(darker|darken( it)?)$`), func(m []string) (Op, error) {
			return Op{Kind: Brightness, Amount: -amount(m[1], 0.15)}, nil
		}},
		{regexp.MustCompile(`^` + degree + `(more contrast|increase( the)? contrast|boost( the)? contrast|higher contrast)$`), func(m []string) (Op, error) {
			return Op{Kind: Contrast, Amount: amount(m[1], 0.25)}, nil
		}},
		{regexp.MustCompile(`^` + degree + `(less contrast|reduce( the)? contrast|lower contrast)$`), func(m []string) (Op, error) {
			return Op{Kind: Contrast, Amount: -amount(m[1], 0.25)}, nil
		}},
		{regexp.MustCompile(`^` + degree + `(saturate|more saturated|more vivid|more colou?rful|boost( the)? colou?rs)$`), func(m []string) (Op, error) {
			return Op{Kind: Saturation, Amount: amount(m[1], 0.3)}, nil
		}},
		{regexp.MustCompile(`^` + degree + `(desaturate|less saturated|less colou?rful|mute( the)? colou?rs)$`), func(m []string) (Op, error) {
			return Op{Kind: Saturation, Amount: -amount(m[1], 0.3)}, nil
		}},
		{regexp.MustCompile(`^crop( it)?( to)? (16:9|9:16)$`), func(m []string) (Op, error) {
			return Op{Kind: Crop, Aspect: m[3]}, nil
		}},
		{regexp.MustCompile(`^(mirror( it)?|flip( it)?( horizontally)?)$`), func([]string) (Op, error) {
			return Op{Kind: Mirror}, nil
		}},
		{regexp.MustCompile(`^add( the)? text \x00(\d+)\x00(?: (?:at|on|to|in))?(?: the)?(?: (top|bottom|left|right))?$`), nil},
		{regexp.MustCompile(`^add( a| an)?(?: (thin|thick))?(?: (\S+))? border(?: (?:in|of) (\S+))?$`), func(m []string) (Op, error) {
			name := m[3]
			if m[4] != "" {
				if name != "" {
					return Op{}, fmt.Errorf("a border has one colour")
				}
				name = m[4]
			}
			c := color.RGBA{255, 255, 255, 255}
			if name != "" {
				var ok bool
				if c, ok = colour(name); !ok {
					return Op{}, fmt.Errorf("%q is not a colour (a name such as gold, or #rrggbb)", name)
				}
			}
			w := m[2]
			if w == "" {
				w = "medium"
			}
			return Op{Kind: Border, Colour: c, Width: w}, nil
		}},
	}
)

// amount scales an instruction's default step by its degree word.
func amount(degree string, step float64) float64 {
	switch degree {
	case "much", "far", "a lot":
		return 2 * step
	case "slightly", "a bit", "a little", "somewhat":
		return step / 2
	}
	return step
}

func colour(name string) (color.RGBA, bool) {
	if c, ok := matte.ColourWords[name]; ok {
		return c, true
	}
	c, err := layout.ParseHex(name)
	return c, err == nil
}

// Accepted is the grammar in one line, for error messages.
const Accepted = `brighter/darker (much, slightly), more/less contrast, saturate/desaturate, crop to 16:9 or 9:16, mirror, ` +
	`add text "…" top/bottom/left/right, add border <colour>; join instructions with "and"`

func unsupported(reason string) error {
	return apierr.New(apierr.UnsupportedPrompt, "the local editor does not understand this prompt ("+reason+"); it understands: "+Accepted).
		With("grammar", Accepted)
}

// Parse reads a prompt into a Program, or refuses it with
// apierr.UnsupportedPrompt.
func Parse(prompt string) (Program, error) {
	// Quoted texts are set aside first: their words are not instructions.
	var texts []string
	p := quoted.ReplaceAllStringFunc(prompt, func(q string) string {
		texts = append(texts, quoted.FindStringSubmatch(q)[1])
		return fmt.Sprintf("\x00%d\x00", len(texts)-1)
	})
	p = strings.ToLower(strings.Join(strings.Fields(p), " "))
	p = strings.TrimRight(p, ".!")
	var prog Program
	for _, clause := range separator.Split(p, -1) {
		clause = strings.TrimPrefix(strings.TrimPrefix(clause, "please "), "make it ")
		if clause == "" {
			continue
		}
		op, err := parseClause(clause, texts)
		if err != nil {
			return nil, err
		}
		prog = append(prog, op)
	}
	if len(prog) == 0 {
		return nil, unsupported("no instruction")
	}
	return prog, nil
}

func parseClause(clause string, texts []string) (Op, error) {
	for _, g := range grammar {
		m := g.re.FindStringSubmatch(clause)
		if m == nil {
			continue
		}
		if g.mk != nil {
			op, err := g.mk(m)
			if err != nil {
				return Op{}, unsupported(err.Error())
			}
			return op, nil
		}
		var i int
		_, _ = fmt.Sscan(m[2], &i)
		t := strings.TrimSpace(texts[i])
		if n := len([]rune(t)); n == 0 || n > MaxText {
			return Op{}, unsupported(fmt.Sprintf("the text to add must be 1 to %d characters", MaxText))
		}
		where := m[3]
		if where == "" {
			where = "bottom"
		}
		return Op{Kind: Text, Text: t, Where: where}, nil
	}
	return Op{}, unsupported(fmt.Sprintf("%q is not an instruction it knows", strings.ReplaceAll(clause, "\x00", `"`)))
}

// String writes the program in the grammar's canonical words; it parses
// back to the same program.
func (p Program) String() string {
	parts := make([]string, len(p))
	for i, op := range p {
		parts[i] = op.String()
	}
	return strings.Join(parts, " and ")
}

// String writes one instruction canonically.
func (op Op) String() string {
	degree := func(a, step float64, up, down string) string {
		word, mag := up, a
		if a < 0 {
			word, mag = down, -a
		}
		switch {
		case mag > step*1.5:
			return "much " + word
		case mag < step*0.75:
			return "slightly " + word
		}
		return word
	}
	switch op.Kind {
	case Brightness:
		return degree(op.Amount, 0.15, "brighter", "darker")
	case Contrast:
		return degree(op.Amount, 0.25, "more contrast", "less contrast")
	case Saturation:
		return degree(op.Amount, 0.3, "saturate", "desaturate")
	case Crop:
		return "crop to " + op.Aspect
	case Mirror:
		return "mirror"
	case Text:
		return fmt.Sprintf("add text %q %s", op.Text, op.Where)
	case Border:
		w := op.Width + " "
		if op.Width == "medium" {
			w = ""
		}
		return fmt.Sprintf("add %sborder in #%02x%02x%02x", w, op.Colour.R, op.Colour.G, op.Colour.B)
	}
	return string(op.Kind)
}

// Apply carries out the program on img. Only a crop changes the size.
// faces and saliency are img's (vision.Saliency); a crop keeps the faces,
// and added text avoids covering them where the picture allows.
func (p Program) Apply(img image.Image, faces []vision.Face, saliency []float64) (*image.NRGBA, error) {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	faces = shift(faces, b.Min)
	for _, op := range p {
		switch op.Kind {
		case Brightness:
			brightness(out, op.Amount)
		case Contrast:
			contrast(out, op.Amount)
		case Saturation:
			saturation(out, op.Amount)
		case Mirror:
			mirror(out)
			faces, saliency = mirrorFaces(faces, out.Rect.Dx()), mirrorMap(saliency)
		case Crop:
			r := framing.Window(out.Rect, framing.Ratio(op.Aspect), faces, saliency)
			cropped := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
			draw.Draw(cropped, cropped.Rect, out, r.Min, draw.Src)
			out, faces, saliency = cropped, shift(faces, r.Min), nil
		case Text:
			if err := lettering.Draw(out, textBox(out.Rect, op.Where), op.Text, color.NRGBA{255, 255, 255, 255}, color.NRGBA{12, 12, 16, 255}); err != nil {
				return nil, err
			}
		case Border:
			border(out, op.Colour, op.Width)
		}
	}
	return out, nil
}

// textBox is the band of the picture text goes in: the top or bottom
// fifth, or the left or right 45 %, inside a margin.
func textBox(r image.Rectangle, where string) image.Rectangle {
	w, h := r.Dx(), r.Dy()
	m := min(w, h) / 30
	switch where {
	case "top":
		return image.Rect(m, m, w-m, h/5+m)
	case "left":
		return image.Rect(m, m, w*45/100, h-m)
	case "right":
		return image.Rect(w*55/100, m, w-m, h-m)
	}
	return image.Rect(m, h-h/5-m, w-m, h-m)
}

func shift(faces []vision.Face, by image.Point) []vision.Face {
	out := make([]vision.Face, len(faces))
	for i, f := range faces {
		out[i] = vision.Face{Rect: f.Rect.Sub(by), Score: f.Score}
	}
	return out
}

// mirrorMap flips a saliency map left to right.
func mirrorMap(m []float64) []float64 {
	n := vision.SaliencySize
	if len(m) != n*n {
		return nil
	}
	out := make([]float64, len(m))
	for y := range n {
		for x := range n {
			out[y*n+x] = m[y*n+n-1-x]
		}
	}
	return out
}

func mirrorFaces(faces []vision.Face, w int) []vision.Face {
	out := make([]vision.Face, len(faces))
	for i, f := range faces {
		out[i] = vision.Face{Rect: image.Rect(w-f.Rect.Max.X, f.Rect.Min.Y, w-f.Rect.Min.X, f.Rect.Max.Y), Score: f.Score}
	}
	return out
}
