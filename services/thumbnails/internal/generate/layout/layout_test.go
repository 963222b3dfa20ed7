package layout

import (
	"errors"
	"image/color"
	"reflect"
	"strings"
	"testing"
)

const palette = `"palette": {"background": "#101010", "background2": "#202020", "primary": "#ff0000", "accent": "#ffee00", "text": "#ffffff", "stroke": "#000000"}`

const full = `{
	"aspect": "9:16",
	"background": {"kind": "radial", "colors": ["background2", "background"], "center": [0.5, 0.3]},
	"face": {"box": [0.1, 0.5, 0.8, 0.5], "shape": "circle", "outline": "accent", "side": "center"},
	"texts": [
		{"name": "headline", "box": [0.05, 0.05, 0.9, 0.4], "size": 0.25, "highlight": "accent", "text": "SAMPLE"},
		{"name": "label", "box": [0.05, 0.45, 0.3, 0.05], "size": 0.05, "font": "sans", "text": "EP. 1", "plate": "primary", "stroke": 0}
	],
	"accents": [{"kind": "arrow", "box": [0.7, 0.4, 0.2, 0.1], "aimFace": true}, {"kind": "badge", "box": [0.1, 0.9, 0.2, 0.05], "text": "NEW"}],
	"grade": "moody",
	` + palette + `
}`

func TestParseFull(t *testing.T) {
	l, err := Parse([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if l.Aspect != Portrait || l.Grade != GradeMoody || l.Background.Kind != BgRadial || l.Background.CenterY != 0.3 {
		t.Fatalf("layout fields: %+v", l)
	}
	h := l.Texts[0]
	// Defaults: display font, upper case, left/top, stroke and shadow on.
	if h.Font != "display" || h.Case != CaseUpper || h.Align != AlignLeft || h.VAlign != VAlignTop || h.Stroke != 0.08 || !h.Shadow || h.Color != RoleText || h.StrokeColor != RoleStroke {
		t.Fatalf("headline defaults: %+v", h)
	}
	if lb := l.Texts[1]; lb.Stroke != 0 || lb.Plate != RolePrimary || lb.Font != "sans" {
		t.Fatalf("label: %+v", lb)
	}
	if l.Face == nil || l.Face.Shape != ShapeCircle || l.Face.Outline != RoleAccent || !l.Face.Shadow {
		t.Fatalf("face: %+v", l.Face)
	}
	if a := l.Accents[0]; a.Color != RoleAccent || !a.AimFace {
		t.Fatalf("arrow: %+v", a)
	}
	if l.Palette[RolePrimary] != (color.RGBA{255, 0, 0, 255}) {
		t.Fatalf("palette: %v", l.Palette)
	}
	want := []Slot{{"background", "color"}, {"face", "face"}, {"headline", "text"}, {"label", "text"}}
	if !reflect.DeepEqual(l.Slots(), want) {
		t.Fatalf("slots %v, want %v", l.Slots(), want)
	}
}

func TestReferenceBackgroundIsAnImageSlot(t *testing.T) {
	l, err := Parse([]byte(`{"background": {"kind": "reference", "colors": ["background"]},
		"texts": [{"name": "headline", "box": [0, 0, 1, 1], "size": 0.2}], ` + palette + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Slots(); len(got) != 2 || got[0] != (Slot{"background", "image"}) || got[1] != (Slot{"headline", "text"}) {
		t.Fatalf("slots %v", got)
	}
	if l.Aspect != Landscape || l.Grade != GradePunchy {
		t.Fatalf("defaults: aspect %q grade %q", l.Aspect, l.Grade)
	}
}

func TestParseRejects(t *testing.T) {
	cases := map[string]struct{ doc, want string }{
		"unknown field":      {strings.Replace(full, `"grade": "moody"`, `"grade": "moody", "mood": 1`, 1), "unknown field"},
		"unknown text field": {strings.Replace(full, `"text": "SAMPLE"`, `"text": "SAMPLE", "colour": "red"`, 1), "unknown field"},
		"box outside":        {strings.Replace(full, `[0.05, 0.05, 0.9, 0.4]`, `[0.5, 0.05, 0.9, 0.4]`, 1), "texts[0].box"},
		"box size":           {strings.Replace(full, `[0.05, 0.05, 0.9, 0.4]`, `[0.05, 0.05, 0.9]`, 1), "want [x, y, w, h]"},
		"unknown font":       {strings.Replace(full, `"font": "sans"`, `"font": "comic"`, 1), "font \"comic\""},
		"unknown role":       {strings.Replace(full, `"highlight": "accent"`, `"highlight": "gold"`, 1), "highlight \"gold\""},
		"background kind":    {strings.Replace(full, `"kind": "radial"`, `"kind": "plasma"`, 1), "background.kind"},
		"accent kind":        {strings.Replace(full, `"kind": "arrow"`, `"kind": "laser"`, 1), "accents[0].kind"},
		"shape":              {strings.Replace(full, `"shape": "circle"`, `"shape": "star"`, 1), "face.shape"},
		"grade":              {strings.Replace(full, `"grade": "moody"`, `"grade": "sepia"`, 1), "grade"},
		"aspect":             {strings.Replace(full, `"aspect": "9:16"`, `"aspect": "4:3"`, 1), "aspect"},
		"no headline":        {strings.Replace(full, `"name": "headline"`, `"name": "title"`, 1), "no slot named \"headline\""},
		"duplicate slot":     {strings.Replace(full, `"name": "label"`, `"name": "headline"`, 1), "duplicate name"},
		"badge without word": {strings.Replace(full, `, "text": "NEW"`, ``, 1), "needs a word"},
		"word on an arrow":   {strings.Replace(full, `"aimFace": true}`, `"aimFace": true, "whenAsked": true}`, 1), "only a badge or a burst"},
		"aim without face":   {strings.Replace(full, `"face": {"box": [0.1, 0.5, 0.8, 0.5], "shape": "circle", "outline": "accent", "side": "center"},`, ``, 1), "no face slot"},
		"palette role":       {strings.Replace(full, `"stroke": "#000000"`, `"stroke": "#000000", "glow": "#ffffff"`, 1), "palette.glow"},
		"palette missing":    {strings.Replace(full, `"accent": "#ffee00", `, ``, 1), "palette.accent: required"},
		"palette colour":     {strings.Replace(full, `"#ff0000"`, `"red"`, 1), "#rrggbb"},
		"size":               {strings.Replace(full, `"size": 0.25`, `"size": 0.9`, 1), "size"},
		"trailing data":      {full + ` {}`, "after the document"},
		"not json":           {`headline`, "invalid"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

// A badge drawn only when the prompt asks for one needs no word of its
// own, and takes the prompt's.
func TestParseBadgeWhenAsked(t *testing.T) {
	l, err := Parse([]byte(strings.Replace(full, `"text": "NEW"}`, `"whenAsked": true}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	a := l.Accents[1]
	if !a.WhenAsked || !a.AutoText || a.Text != "" {
		t.Fatalf("badge %+v", a)
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	doc := strings.Replace(strings.Replace(full, `"font": "sans"`, `"font": "comic"`, 1), `"grade": "moody"`, `"grade": "sepia"`, 1)
	_, err := Parse([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "comic") || !strings.Contains(err.Error(), "sepia") {
		t.Fatalf("err = %v, want both problems", err)
	}
}
