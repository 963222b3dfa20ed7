// Package overlay suggests where and how to put text on a thumbnail: the
// calmest regions of the picture (spectral-residual saliency) clear of
// faces and away from the text already on it, a colour and stroke that
// stand out against each region, and short texts taken from the
// picture's own prompt. Every value comes from a measurement of the image
// or a word of the prompt, and the reason says which: the words for the
// text's colour and the region's lightness follow the measured relative
// luminances, and the contrast it quotes is the one the text gets.
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

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/textai"
)

// Suggestion is one way to put text on the picture.
type Suggestion struct {
	Text      string
	Placement string
	// Box is the placement's region in the picture's pixels.
	Box         image.Rectangle
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
	Img   image.Image
	Faces []vision.Face
	// Text are the regions of Img that already hold text (a text
	// detector's boxes, in Img's coordinates).
	Text     []image.Rectangle
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

// Edge bands, offered only when faces leave fewer than three of the
// regions free: along each side, the frame's strip up to the nearest
// face, a fifth of the frame at most and minEdge at least. They carry the
// contract's placement names (top, bottom, left, right); their boxes are
// narrower than the regions of the same name.
const (
	maxEdge = 0.2
	minEdge = 0.08
)

// edges are the edge bands of a frame with bounds b that faces leave free.
func edges(b image.Rectangle, faces []image.Rectangle) []region {
	top, bottom, left, right := maxEdge, maxEdge, maxEdge, maxEdge
	w, h := float64(b.Dx()), float64(b.Dy())
	for _, f := range faces {
		top = min(top, float64(f.Min.Y-b.Min.Y)/h)
		bottom = min(bottom, float64(b.Max.Y-f.Max.Y)/h)
		left = min(left, float64(f.Min.X-b.Min.X)/w)
		right = min(right, float64(b.Max.X-f.Max.X)/w)
	}
	var out []region
	for _, r := range []region{
		{"top", 0, 0, 1, top}, {"bottom", 0, 1 - bottom, 1, 1},
		{"left", 0, 0, left, 1}, {"right", 1 - right, 0, 1, 1},
	} {
		if r.x1-r.x0 >= minEdge && r.y1-r.y0 >= minEdge {
			out = append(out, r)
		}
	}
	return out
}

// faceMargin grows a face's box on every side, as a share of its size,
// before regions are kept clear of it: the detector's box runs from brows
// to chin, and hair and ears are part of the face too.
const faceMargin = 0.1

// measured is a region with its measurements.
type measured struct {
	region
	saliency, text, luma float64
	cost                 float64
}

// palette is what text may be painted in.
var palette = []struct{ hex, name string }{
	{"#FFFFFF", "white"}, {"#FFD400", "yellow"}, {"#111111", "near-black"}, {"#FF3B30", "red"},
}

// Legibility: minContrast is WCAG's AA ratio for text; a region whose
// best colour falls short gets the text on a plate of plateColor.
const (
	minContrast = 4.5
	plateColor  = "#111111"
)

// Lightness bands of relative luminance, for the words of a reason: below
// darkBelow is dark (sRGB grey under about 89), above lightAbove light
// (over about 170), mid-tone between.
const (
	darkBelow  = 0.1
	lightAbove = 0.4
)

// Suggest returns up to five suggestions, the calmest regions first:
// three at least when faces leave three regions (or, failing that, edge
// bands) free, none over a face.
func Suggest(in Input) []Suggestion {
	b := in.Img.Bounds()
	var faces []image.Rectangle
	for _, f := range in.Faces {
		g := int(faceMargin * float64(max(f.Rect.Dx(), f.Rect.Dy())))
		faces = append(faces, f.Rect.Inset(-g))
	}
	measure := func(rs []region) []measured {
		var ms []measured
		for _, r := range rs {
			box := r.rect(b)
			clear := true
			for _, f := range faces {
				clear = clear && !f.Overlaps(box)
			}
			if !clear {
				continue
			}
			m := measured{region: r, saliency: meanSaliency(in.Saliency, r), luma: meanLuma(in.Img, box)}
			for _, t := range in.Text {
				if in := t.Intersect(box); !in.Empty() {
					m.text += float64(in.Dx()*in.Dy()) / float64(box.Dx()*box.Dy())
				}
			}
			// Covering text already there costs as much as the busiest
			// background.
			m.cost = m.saliency + m.text
			ms = append(ms, m)
		}
		slices.SortStableFunc(ms, func(a, b measured) int { return cmp.Compare(a.cost, b.cost) })
		return ms
	}
	ms := measure(regions)
	if len(ms) < 3 {
		ms = append(ms, measure(edges(b, faces))...)
	}
	texts := texts(in.Prompt, in.FaceName)
	n := min(5, max(3, len(texts)), len(ms))
	out := make([]Suggestion, 0, n)
	for i := 0; i < n; i++ {
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
		styling := f.styling
		if contrast < minContrast {
			styling += ", on a solid " + plateColor + " plate"
			color, stroke = "#FFFFFF", "#000000"
		}
		out = append(out, Suggestion{
			Text: text, Placement: m.name, Box: m.rect(b), Color: color, StrokeColor: stroke, FontFamily: f.family,
			FontSize: fontSize(m.region, text, f), Styling: styling,
			Reason: reason(m, color, contrast),
		})
	}
	return out
}

// rect is r in the pixels of a frame with bounds b.
func (r region) rect(b image.Rectangle) image.Rectangle {
	w, h := float64(b.Dx()), float64(b.Dy())
	return image.Rect(b.Min.X+int(r.x0*w), b.Min.Y+int(r.y0*h), b.Min.X+int(math.Ceil(r.x1*w)), b.Min.Y+int(math.Ceil(r.y1*h)))
}

// lightness words a relative luminance.
func lightness(l float64) string {
	switch {
	case l < darkBelow:
		return "dark"
	case l > lightAbove:
		return "light"
	}
	return "mid-tone"
}

// reason says why the region, and why the colour: the region's measured
// lightness and the contrast the text gets, on a plate when the picture
// alone cannot give it minContrast.
func reason(m measured, color string, contrast float64) string {
	where := "nothing written there"
	if m.text > 0.01 {
		where = fmt.Sprintf("%.0f %% of it under existing text", 100*m.text)
	}
	why := fmt.Sprintf("the %s is among the calmest areas clear of faces (saliency %.2f, %s)", m.name, m.saliency, where)
	bg := fmt.Sprintf("its %s background (relative luminance %.2f)", lightness(m.luma), m.luma)
	if contrast < minContrast {
		plate := relLuma(plateColor)
		return fmt.Sprintf("%s; %s gives no colour more than %.2f:1, too little to read, so %s text on a %s plate contrasts %.1f:1",
			why, bg, contrast, colorName(color), colorName(plateColor), ratio(relLuma(color), plate))
	}
	return fmt.Sprintf("%s; %s text on %s contrasts %.1f:1", why, colorName(color), bg, contrast)
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

// meanLuma is the mean relative luminance of img inside r, on a grid of
// about 128×128 samples.
func meanLuma(img image.Image, r image.Rectangle) float64 {
	step := max(1, max(r.Dx(), r.Dy())/128)
	sum, cnt := 0.0, 0
	for y := r.Min.Y; y < r.Max.Y; y += step {
		for x := r.Min.X; x < r.Max.X; x += step {
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
	return 0.2126*colour.SRGBToLinear(r) + 0.7152*colour.SRGBToLinear(g) + 0.0722*colour.SRGBToLinear(b)
}

// ratio is the WCAG contrast ratio of two relative luminances.
func ratio(a, b float64) float64 {
	return (math.Max(a, b) + 0.05) / (math.Min(a, b) + 0.05)
}

func relLuma(hex string) float64 {
	var r, g, b int
	_, _ = fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return relative(float64(r)/255, float64(g)/255, float64(b)/255)
}

// bestColor is the palette colour of the highest WCAG contrast against a
// background of relative luminance bg.
func bestColor(bg float64) (string, float64) {
	best, most := "", 0.0
	for _, p := range palette {
		if c := ratio(relLuma(p.hex), bg); c > most {
			best, most = p.hex, c
		}
	}
	return best, most
}
