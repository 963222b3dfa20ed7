// Package overlay suggests where and how to put text on a thumbnail: the
// calmest regions of the picture (spectral-residual saliency, away from
// faces), a colour and stroke that stand out against each region, and
// short texts taken from the picture's own prompt. Every value comes from
// a measurement of the image or a word of the prompt.
package overlay

import (
	"cmp"
	"fmt"
	"image"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/fonts"
	"hookline.dev/pkg/imaging"
	"hookline.dev/pkg/nlp"
	"hookline.dev/pkg/textai"
	"hookline.dev/pkg/vision"
)

// Suggestion is one way to put text on the picture.
type Suggestion struct {
	Text        string
	Placement   string
	Color       string
	StrokeColor string
	FontFamily  string
	// FontSize is in pixels at 1280×720.
	FontSize int
	Styling  string
	Reason   string
}

// Input is what Suggest reads.
type Input struct {
	Img      image.Image
	Faces    []vision.Face
	Saliency []float64 // vision.Saliency of Img
	Prompt   string
	FaceName string
}

// Request limits.
const (
	MaxPrompt   = 500
	MaxFaceName = 60
)

// Validate checks a request's text fields; imageUrl is checked by loading.
func Validate(imageURL, prompt, faceName *string) (string, string, string, error) {
	f := apierr.Fields{}
	var u, p, n string
	if imageURL == nil || strings.TrimSpace(*imageURL) == "" {
		f.Add("imageUrl", "required")
	} else {
		u = strings.TrimSpace(*imageURL)
	}
	if prompt == nil || strings.TrimSpace(*prompt) == "" || nlp.CodePoints(*prompt) > MaxPrompt {
		f.Add("originalPrompt", "required, at most 500 characters")
	} else {
		p = strings.TrimSpace(*prompt)
	}
	if faceName != nil {
		if nlp.CodePoints(*faceName) > MaxFaceName {
			f.Add("faceName", "at most 60 characters")
		}
		n = strings.TrimSpace(*faceName)
	}
	return u, p, n, f.Err()
}

// region is a placement as a rectangle of the unit square.
type region struct {
	name           string
	x0, y0, x1, y1 float64
}

var regions = []region{
	{"top", 0, 0, 1, 1.0 / 3}, {"bottom", 0, 2.0 / 3, 1, 1}, {"left", 0, 0, 1.0 / 3, 1}, {"right", 2.0 / 3, 0, 1, 1},
	{"center", 1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3},
	{"top-left", 0, 0, 0.5, 0.5}, {"top-right", 0.5, 0, 1, 0.5}, {"bottom-left", 0, 0.5, 0.5, 1}, {"bottom-right", 0.5, 0.5, 1, 1},
}

// measured is a region with its measurements.
type measured struct {
	region
	saliency, faces, luma float64
	cost                  float64
}

// palette is what text may be painted in.
var palette = []struct{ hex, name string }{
	{"#FFFFFF", "white"}, {"#FFD400", "yellow"}, {"#111111", "near-black"}, {"#FF3B30", "red"},
}

// Suggest returns 3 to 5 suggestions, the calmest regions first.
func Suggest(in Input) []Suggestion {
	b := in.Img.Bounds()
	var ms []measured
	for _, r := range regions {
		m := measured{region: r}
		m.saliency = meanSaliency(in.Saliency, r)
		for _, f := range in.Faces {
			m.faces += overlap(f.Rect, b, r)
		}
		m.luma = meanLuma(in.Img, r)
		// Faces must stay visible: covering one costs more than any busy
		// background.
		m.cost = m.saliency + 2*m.faces
		ms = append(ms, m)
	}
	slices.SortStableFunc(ms, func(a, b measured) int { return cmp.Compare(a.cost, b.cost) })
	texts := texts(in.Prompt, in.FaceName)
	n := min(5, max(3, len(texts)))
	out := make([]Suggestion, 0, n)
	for i := 0; i < n && i < len(ms); i++ {
		m := ms[i]
		text := texts[i%len(texts)]
		color, contrast := bestColor(m.luma)
		stroke := "#000000"
		if relLuma(color) < 0.4 {
			stroke = "#FFFFFF"
		}
		f := display
		if utf8.RuneCountInString(text) > 18 {
			f = long
		}
		out = append(out, Suggestion{
			Text: text, Placement: m.name, Color: color, StrokeColor: stroke, FontFamily: f.family,
			FontSize: fontSize(m.region, text, f), Styling: f.styling,
			Reason: reason(m, color, contrast),
		})
	}
	return out
}

func reason(m measured, color string, contrast float64) string {
	face := "no face there"
	if m.faces > 0.01 {
		face = fmt.Sprintf("%.0f %% of a face there", 100*m.faces)
	}
	tone := "dark"
	if m.luma > 0.5 {
		tone = "light"
	}
	return fmt.Sprintf("the %s is among the calmest areas (saliency %.2f, %s); %s text on its %s background contrasts %.1f:1",
		m.name, m.saliency, face, colorName(color), tone, contrast)
}

func colorName(hex string) string {
	for _, p := range palette {
		if p.hex == hex {
			return p.name
		}
	}
	return hex
}

var number = regexp.MustCompile(`\b\d+[%$kKmM]?\b`)

// texts are short headlines from the prompt: its quoted headline, its key
// phrases, a number it names, the face's name with the main phrase.
func texts(prompt, faceName string) []string {
	var out []string
	add := func(s string) {
		s = strings.ToUpper(strings.Join(firstWords(s, 4), " "))
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	phrases := nlp.KeyPhrases(prompt, 4)
	if q := textai.QuotedHeadline(prompt); q != "" {
		add(q)
	}
	if len(phrases) > 0 {
		add(phrases[0].Text)
		if faceName != "" {
			add(faceName + " " + phrases[0].Text)
		}
		if n := number.FindString(prompt); n != "" {
			add(n + " " + phrases[0].Text)
		}
	}
	for _, p := range phrases[min(1, len(phrases)):] {
		add(p.Text)
	}
	if len(out) == 0 {
		add(prompt)
	}
	if len(phrases) > 0 {
		add(phrases[0].Text + "?")
	}
	return out
}

func firstWords(s string, n int) []string {
	f := strings.Fields(s)
	return f[:min(n, len(f))]
}

// face is a font a suggestion names: its family, the embedded font of
// that family the size is measured with, how it is styled and in how many
// lines.
type face struct {
	family, styling string
	font            fonts.Name
	lines           int
}

// The faces: a condensed display face for short texts, a heavy sans in
// up to two lines for long ones.
var (
	display = face{family: "Bebas Neue", styling: "uppercase, heavy stroke, soft drop shadow", font: fonts.Display, lines: 1}
	long    = face{family: "Inter Display Black", styling: "uppercase, tight tracking, stroke, two lines if needed", font: fonts.Heavy, lines: 2}
)

// Font sizes, in pixels at 1280×720: at least minFontSize, at most a
// quarter of the frame's height.
const (
	minFontSize = 36
	maxFontSize = 180
)

// fontSize is the size at which text, set in f, fills 90 % of the region
// (at 1280×720) each way at the most, measured with the font itself.
func fontSize(r region, text string, f face) int {
	box := image.Pt(int((r.x1-r.x0)*1280*0.9), int((r.y1-r.y0)*720*0.9))
	b, err := imaging.Fit(text, imaging.Style{Font: f.font}, box, f.lines, maxFontSize)
	if err != nil {
		// The fonts are embedded: only a broken build fails to load one.
		return minFontSize
	}
	return int(max(minFontSize, b.Size()))
}

func meanSaliency(sal []float64, r region) float64 {
	n := vision.SaliencySize
	sum, cnt := 0.0, 0
	for y := int(r.y0 * float64(n)); y < int(math.Ceil(r.y1*float64(n))) && y < n; y++ {
		for x := int(r.x0 * float64(n)); x < int(math.Ceil(r.x1*float64(n))) && x < n; x++ {
			sum += sal[y*n+x]
			cnt++
		}
	}
	if cnt == 0 {
		return 0
	}
	return sum / float64(cnt)
}

// overlap is the share of the face rect inside the region.
func overlap(face, bounds image.Rectangle, r region) float64 {
	w, h := float64(bounds.Dx()), float64(bounds.Dy())
	rr := image.Rect(bounds.Min.X+int(r.x0*w), bounds.Min.Y+int(r.y0*h), bounds.Min.X+int(r.x1*w), bounds.Min.Y+int(r.y1*h))
	in := face.Intersect(rr)
	if face.Empty() || in.Empty() {
		return 0
	}
	return float64(in.Dx()*in.Dy()) / float64(face.Dx()*face.Dy())
}

func meanLuma(img image.Image, r region) float64 {
	b := img.Bounds()
	sum, cnt := 0.0, 0
	for y := b.Min.Y + int(r.y0*float64(b.Dy())); y < b.Min.Y+int(r.y1*float64(b.Dy())); y += 8 {
		for x := b.Min.X + int(r.x0*float64(b.Dx())); x < b.Min.X+int(r.x1*float64(b.Dx())); x += 8 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sum += relative(float64(cr)/65535, float64(cg)/65535, float64(cb)/65535)
			cnt++
		}
	}
	if cnt == 0 {
		return 0
	}
	return sum / float64(cnt)
}

// relative is WCAG relative luminance of sRGB components in 0..1.
func relative(r, g, b float64) float64 {
	lin := func(c float64) float64 {
		if c <= 0.03928 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func relLuma(hex string) float64 {
	var r, g, b int
	_, _ = fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return relative(float64(r)/255, float64(g)/255, float64(b)/255)
}

// bestColor is the palette colour of the highest WCAG contrast against a
// background of relative luminance bg.
func bestColor(bg float64) (string, float64) {
	best, ratio := "", 0.0
	for _, p := range palette {
		l := relLuma(p.hex)
		c := (math.Max(l, bg) + 0.05) / (math.Min(l, bg) + 0.05)
		if c > ratio {
			best, ratio = p.hex, c
		}
	}
	return best, ratio
}
