package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"hookline.dev/pkg/media/fonts"
)

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("layout: invalid")

// Parse decodes and validates a layout document (strict: unknown fields
// are an error). Absent optional fields take their defaults: aspect 16:9,
// display font, upper case, left/top alignment, a stroke of 0.08 and a
// shadow on text, role text on stroke, punchy grade.
func Parse(data []byte) (Layout, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w wireLayout
	if err := dec.Decode(&w); err != nil {
		return Layout{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Layout{}, fmt.Errorf("%w: data after the document", ErrInvalid)
	}
	var p parser
	l := p.layout(w)
	if len(p.errs) > 0 {
		return Layout{}, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(p.errs, "; "))
	}
	return l, nil
}

// parser collects every problem of a document, so that a template author
// sees them all at once.
type parser struct{ errs []string }

func (p *parser) fail(format string, args ...any) {
	p.errs = append(p.errs, fmt.Sprintf(format, args...))
}

func (p *parser) layout(w wireLayout) Layout {
	l := Layout{
		Aspect:     orDefault(w.Aspect, Landscape),
		Background: p.background(w.Background),
		Palette:    p.palette(w.Palette),
		Grade:      Grade(orDefault(w.Grade, string(GradePunchy))),
	}
	if l.Aspect != Landscape && l.Aspect != Portrait {
		p.fail("aspect %q: want 16:9 or 9:16", l.Aspect)
	}
	switch l.Grade {
	case GradePunchy, GradeWarm, GradeCool, GradeMoody, GradeClean:
	default:
		p.fail("grade %q: want punchy, warm, cool, moody or clean", l.Grade)
	}
	if len(w.Texts) == 0 {
		p.fail("texts: a layout needs at least a headline")
	}
	seen := map[string]bool{}
	for i, wt := range w.Texts {
		t := p.text(fmt.Sprintf("texts[%d]", i), wt)
		if seen[t.Name] {
			p.fail("texts[%d]: duplicate name %q", i, t.Name)
		}
		seen[t.Name] = true
		l.Texts = append(l.Texts, t)
	}
	if !seen[SlotHeadline] {
		p.fail("texts: no slot named %q", SlotHeadline)
	}
	if w.Face != nil {
		f := p.face(*w.Face)
		l.Face = &f
	}
	for i, wa := range w.Accents {
		l.Accents = append(l.Accents, p.accent(fmt.Sprintf("accents[%d]", i), wa, l.Face != nil))
	}
	l.slots = slotsOf(l)
	return l
}

func slotsOf(l Layout) []Slot {
	bg := Slot{Name: "background", Kind: "color"}
	if l.Background.Kind == BgReference {
		bg.Kind = "image"
	}
	slots := []Slot{bg}
	if l.Face != nil {
		slots = append(slots, Slot{Name: "face", Kind: "face"})
	}
	for _, t := range l.Texts {
		slots = append(slots, Slot{Name: t.Name, Kind: "text"})
	}
	return slots
}

func (p *parser) background(w wireBackground) Background {
	b := Background{Kind: BackgroundKind(w.Kind), Angle: w.Angle, CenterX: 0.5, CenterY: 0.5, Blur: 0.5, Dim: 0.3}
	switch b.Kind {
	case BgGradient, BgRadial, BgSplit, BgSolid, BgReference, BgStripes, BgBurst:
	default:
		p.fail("background.kind %q: want gradient, radial, split, solid, reference, stripes or burst", w.Kind)
	}
	if len(w.Colors) == 0 || len(w.Colors) > 3 {
		p.fail("background.colors: want one to three roles, got %d", len(w.Colors))
	}
	for i, c := range w.Colors {
		b.Colors = append(b.Colors, p.role(fmt.Sprintf("background.colors[%d]", i), c, false))
	}
	if w.Center != nil {
		if len(w.Center) != 2 || !unit(w.Center[0]) || !unit(w.Center[1]) {
			p.fail("background.center: want [x, y] within 0..1")
		} else {
			b.CenterX, b.CenterY = w.Center[0], w.Center[1]
		}
	}
	b.Blur = p.fraction("background.blur", w.Blur, b.Blur)
	b.Dim = p.fraction("background.dim", w.Dim, b.Dim)
	return b
}

func (p *parser) text(at string, w wireText) Text {
	t := Text{
		Name:        w.Name,
		Box:         p.box(at+".box", w.Box),
		Font:        orDefault(w.Font, string(fonts.Display)),
		Size:        w.Size,
		Case:        Case(orDefault(w.Case, string(CaseUpper))),
		Align:       Align(orDefault(w.Align, string(AlignLeft))),
		VAlign:      VAlign(orDefault(w.VAlign, string(VAlignTop))),
		Stroke:      0.08,
		Shadow:      true,
		Color:       p.role(at+".color", orDefault(w.Color, string(RoleText)), false),
		StrokeColor: p.role(at+".strokeColor", orDefault(w.StrokeColor, string(RoleStroke)), false),
		Highlight:   p.role(at+".highlight", w.Highlight, true),
		Plate:       p.role(at+".plate", w.Plate, true),
		MaxWords:    w.MaxWords,
		MaxLines:    w.MaxLines,
		Text:        strings.TrimSpace(w.Text),
		Rotate:      w.Rotate,
	}
	if t.Name == "" {
		p.fail("%s.name: required", at)
	}
	if !fonts.Known(t.Font) {
		p.fail("%s.font %q: want one of %v", at, t.Font, fonts.Names())
	}
	if t.Size <= 0 || t.Size > 0.5 {
		p.fail("%s.size %v: want a fraction of the short side in (0, 0.5]", at, t.Size)
	}
	switch t.Case {
	case CaseUpper, CaseLower, CaseTitle, CaseAsIs:
	default:
		p.fail("%s.case %q: want upper, lower, title or none", at, t.Case)
	}
	switch t.Align {
	case AlignLeft, AlignCenter, AlignRight:
	default:
		p.fail("%s.align %q: want left, center or right", at, t.Align)
	}
	switch t.VAlign {
	case VAlignTop, VAlignMiddle, VAlignBottom:
	default:
		p.fail("%s.valign %q: want top, middle or bottom", at, t.VAlign)
	}
	if w.Stroke != nil {
		t.Stroke = *w.Stroke
		if t.Stroke < 0 || t.Stroke > 0.25 {
			p.fail("%s.stroke %v: want 0..0.25 of the font size", at, t.Stroke)
		}
	}
	if w.Shadow != nil {
		t.Shadow = *w.Shadow
	}
	if t.MaxWords < 0 || t.MaxWords > 12 {
		p.fail("%s.maxWords %d: want 0..12 (0: the default)", at, t.MaxWords)
	}
	if t.MaxLines < 0 || t.MaxLines > 4 {
		p.fail("%s.maxLines %d: want 0..4 (0: the default)", at, t.MaxLines)
	}
	if t.Name != SlotHeadline && t.Name != SlotSubline && t.Text == "" {
		p.fail("%s.text: a slot other than headline and subline needs its text", at)
	}
	if math.Abs(t.Rotate) > 20 {
		p.fail("%s.rotate %v: want within ±20 degrees", at, t.Rotate)
	}
	return t
}

func (p *parser) face(w wireFace) Face {
	f := Face{
		Box:          p.box("face.box", w.Box),
		Shape:        Shape(orDefault(w.Shape, string(ShapeCutout))),
		Outline:      p.role("face.outline", w.Outline, true),
		OutlineWidth: 0.025,
		Shadow:       true,
		Side:         Side(orDefault(w.Side, string(SideRight))),
	}
	switch f.Shape {
	case ShapeCutout, ShapeCircle, ShapeSquare:
	default:
		p.fail("face.shape %q: want cutout, circle or square", f.Shape)
	}
	switch f.Side {
	case SideLeft, SideRight, SideCenter:
	default:
		p.fail("face.side %q: want left, right or center", f.Side)
	}
	if w.OutlineWidth != nil {
		f.OutlineWidth = *w.OutlineWidth
		if f.OutlineWidth < 0 || f.OutlineWidth > 0.1 {
			p.fail("face.outlineWidth %v: want 0..0.1", f.OutlineWidth)
		}
	}
	if w.Shadow != nil {
		f.Shadow = *w.Shadow
	}
	return f
}

func (p *parser) accent(at string, w wireAccent, hasFace bool) Accent {
	a := Accent{
		Kind:      AccentKind(w.Kind),
		Box:       p.box(at+".box", w.Box),
		Color:     p.role(at+".color", orDefault(w.Color, string(RoleAccent)), false),
		TextColor: p.role(at+".textColor", orDefault(w.TextColor, string(RoleText)), false),
		Text:      strings.TrimSpace(w.Text),
		AutoText:  w.AutoText || w.WhenAsked,
		WhenAsked: w.WhenAsked,
		Angle:     w.Angle,
		AimFace:   w.AimFace,
	}
	switch a.Kind {
	case AccentArrow, AccentCircle, AccentBar, AccentFrame:
		if a.WhenAsked {
			p.fail("%s.whenAsked: only a badge or a burst carries a word", at)
		}
	case AccentBadge, AccentBurst:
		if a.Text == "" && !a.WhenAsked {
			p.fail("%s.text: a %s needs a word", at, a.Kind)
		}
		if len([]rune(a.Text)) > 12 {
			p.fail("%s.text %q: a %s holds at most 12 characters", at, a.Text, a.Kind)
		}
	default:
		p.fail("%s.kind %q: want arrow, circle, badge, bar, burst or frame", at, w.Kind)
	}
	if a.AimFace && !hasFace {
		p.fail("%s.aimFace: the layout has no face slot", at)
	}
	return a
}

func (p *parser) box(at string, v []float64) Box {
	if len(v) != 4 {
		p.fail("%s: want [x, y, w, h], got %d numbers", at, len(v))
		return Box{}
	}
	b := Box{X: v[0], Y: v[1], W: v[2], H: v[3]}
	// A hair of tolerance, so that 0.1+0.9 rounding does not fail a box
	// that touches an edge.
	const eps = 1e-9
	if !unit(b.X) || !unit(b.Y) || b.W <= 0 || b.H <= 0 || b.X+b.W > 1+eps || b.Y+b.H > 1+eps {
		p.fail("%s %v: want a box with positive size inside 0..1", at, v)
	}
	return b
}

func (p *parser) role(at, name string, optional bool) Role {
	if name == "" && optional {
		return ""
	}
	if !isRole(name) {
		p.fail("%s %q: want one of %v", at, name, Roles())
		return ""
	}
	return Role(name)
}

func (p *parser) palette(m map[string]string) Palette {
	pal := make(Palette, len(m))
	for _, r := range Roles() {
		hex, ok := m[string(r)]
		if !ok {
			p.fail("palette.%s: required", r)
			continue
		}
		c, err := ParseHex(hex)
		if err != nil {
			p.fail("palette.%s: %v", r, err)
			continue
		}
		pal[r] = c
	}
	for k := range m {
		if !isRole(k) {
			p.fail("palette.%s: not a colour role", k)
		}
	}
	return pal
}

func (p *parser) fraction(at string, v *float64, def float64) float64 {
	if v == nil {
		return def
	}
	if !unit(*v) {
		p.fail("%s %v: want 0..1", at, *v)
	}
	return *v
}

func isRole(name string) bool {
	for _, r := range Roles() {
		if Role(name) == r {
			return true
		}
	}
	return false
}

// ParseHex reads a #rrggbb colour.
func ParseHex(s string) (color.RGBA, error) {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{}, fmt.Errorf("colour %q: want #rrggbb", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("colour %q: want #rrggbb", s)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}, nil //nolint:gosec // G115: six hex digits, each byte taken on purpose
}

func unit(v float64) bool { return v >= 0 && v <= 1 }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
