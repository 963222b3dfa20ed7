package adjust

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/colour"
)

// FilterKind names one filter of the grammar.
type FilterKind string

// The filters.
const (
	FilterGrayscale      FilterKind = "grayscale"
	FilterSepia          FilterKind = "sepia"
	FilterVintage        FilterKind = "vintage"
	FilterWarm           FilterKind = "warm"
	FilterCool           FilterKind = "cool"
	FilterVignette       FilterKind = "vignette"
	FilterBlurBackground FilterKind = "blur background"
	FilterSharpen        FilterKind = "sharpen"
	FilterFilmGrain      FilterKind = "film grain"
	FilterDuotone        FilterKind = "duotone"
	FilterPosterize      FilterKind = "posterize"
	FilterInvert         FilterKind = "invert"
)

// Posterize's level counts: the default, and the range a prompt may ask
// for (one level would be a flat picture; past 16 the steps no longer
// show).
const (
	DefaultPosterizeLevels = 4
	MinPosterizeLevels     = 2
	MaxPosterizeLevels     = 16
)

// The duotone of a prompt that names no colours: deep navy shadows, gold
// highlights.
var (
	defaultDuotoneShadows    = color.RGBA{0x1a, 0x1a, 0x40, 0xff}
	defaultDuotoneHighlights = color.RGBA{0xff, 0xcc, 0x00, 0xff}
)

// Filter is one parsed filterPrompt.
type Filter struct {
	Kind FilterKind
	// Shadows and Highlights are a duotone's colours: the darkest tones of
	// the picture become Shadows (the prompt's first colour), the
	// brightest Highlights.
	Shadows, Highlights color.RGBA
	// Levels is a posterize's number of levels per channel.
	Levels int
}

// String describes the filter in the grammar's own words, so that it
// parses back to the same filter: "sepia", "posterize 4",
// "duotone #1a1a40 #ffcc00".
func (f Filter) String() string {
	switch f.Kind {
	case FilterDuotone:
		return fmt.Sprintf("duotone %s %s", hexColor(f.Shadows), hexColor(f.Highlights))
	case FilterPosterize:
		return fmt.Sprintf("posterize %d", f.Levels)
	}
	return string(f.Kind)
}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// phrasings maps each accepted wording of a filter without parameters
// (after normalisation, see ParseFilter) to its filter.
var phrasings = map[string]FilterKind{
	"grayscale": FilterGrayscale, "greyscale": FilterGrayscale,
	"gray scale": FilterGrayscale, "grey scale": FilterGrayscale,
	"black and white": FilterGrayscale, "black & white": FilterGrayscale,
	"b&w": FilterGrayscale, "b & w": FilterGrayscale, "b/w": FilterGrayscale,
	"monochrome": FilterGrayscale,

	"sepia": FilterSepia, "sepia tone": FilterSepia, "sepia toned": FilterSepia,

	"vintage": FilterVintage, "retro": FilterVintage,

	"warm": FilterWarm, "warmer": FilterWarm, "warm tone": FilterWarm, "warm tones": FilterWarm,

	"cool": FilterCool, "cooler": FilterCool, "cool tone": FilterCool, "cool tones": FilterCool,

	"vignette": FilterVignette,

	"blur background": FilterBlurBackground, "blur the background": FilterBlurBackground,
	"background blur": FilterBlurBackground, "blurred background": FilterBlurBackground,
	"blurry background": FilterBlurBackground, "bokeh": FilterBlurBackground,

	"sharpen": FilterSharpen, "sharper": FilterSharpen,

	"film grain": FilterFilmGrain, "grain": FilterFilmGrain, "grainy": FilterFilmGrain,

	"invert": FilterInvert, "inverted": FilterInvert, "negative": FilterInvert,
	"invert colors": FilterInvert, "invert colours": FilterInvert,
	"invert the colors": FilterInvert, "invert the colours": FilterInvert,
}

// leadWords may open a prompt before the filter's name ("apply a",
// "make it", "give the photo a", "convert to"); tailWords may close it
// ("filter", "effect"). Only a run of them at either end is dropped.
var (
	leadWords = set("apply", "add", "use", "give", "make", "turn", "convert", "change",
		"it", "this", "the", "image", "picture", "photo", "thumbnail",
		"a", "an", "some", "into", "to", "with", "look", "please")
	tailWords = set("filter", "effect", "look", "style", "please",
		"it", "this", "image", "picture", "photo", "thumbnail", "the", "to", "on")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// unsupported is the 400 for a prompt outside the grammar.
func unsupported(why string) error {
	return apierr.New(apierr.UnsupportedPrompt, "filterPrompt: "+why+
		`; accepted filters: grayscale (or "black and white", "b&w", "monochrome"), sepia, vintage, warm, cool, vignette, `+
		`blur background, sharpen, film grain, duotone <colour> <colour> (shadows first; names such as navy or gold, or #rrggbb), `+
		`posterize [2-16 levels], invert; optionally led by "apply a"/"make it"/"add" and followed by "filter"/"effect"`).
		With("field", "filterPrompt")
}

// ParseFilter reads a filterPrompt. The grammar, case-insensitive:
//
//	prompt    = [lead] filter [tail] [punctuation]
//	lead      = any run of: apply add use give make turn convert change it this the
//	            image picture photo thumbnail a an some into to with look please
//	tail      = any run of: filter effect look style please it this image picture
//	            photo thumbnail the to on
//	filter    = grayscale | greyscale | gray scale | grey scale | black and white
//	          | black & white | b&w | b & w | b/w | monochrome
//	          | sepia | sepia tone | sepia toned
//	          | vintage | retro
//	          | warm | warmer | warm tone | warm tones
//	          | cool | cooler | cool tone | cool tones
//	          | vignette
//	          | blur background | blur the background | background blur
//	          | blurred background | blurry background | bokeh
//	          | sharpen | sharper
//	          | film grain | grain | grainy
//	          | duotone [in|with|of] [colour [and|to|/] colour]
//	          | posterize [N] | posterize [to|with] N [levels]   (also "posterise")
//	          | invert | inverted | negative | invert [the] colors|colours
//	colour    = #rrggbb | #rgb | a colour name (see pkg/colour.Names: black, white,
//	            grey/gray, silver, red, crimson, maroon, orange, gold, yellow,
//	            lime, green, olive, teal, cyan, turquoise, aqua, blue, navy,
//	            indigo, purple, violet, magenta, pink, brown, beige, cream, …)
//	N         = 2 … 16 (default 4)
//
// Commas and the punctuation that closes a sentence (. ! ?) are ignored.
// "duotone" without colours is navy (#1a1a40) to gold (#ffcc00). The
// first duotone colour maps the shadows, the second the highlights.
// Anything else is a 400 unsupported_prompt listing the accepted filters.
func ParseFilter(prompt string) (Filter, error) {
	words := normalise(prompt)
	for len(words) > 0 && leadWords[words[0]] {
		words = words[1:]
	}
	for len(words) > 0 && tailWords[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return Filter{}, unsupported("no filter named")
	}
	if k, ok := phrasings[strings.Join(words, " ")]; ok {
		return Filter{Kind: k}, nil
	}
	switch words[0] {
	case "duotone":
		return parseDuotone(words[1:])
	case "posterize", "posterise", "posterized", "posterised":
		return parsePosterize(words[1:])
	}
	return Filter{}, unsupported(fmt.Sprintf("%q is not a filter this service knows", strings.Join(words, " ")))
}

// normalise lower-cases the prompt and splits it into words, with commas
// as spaces and sentence punctuation dropped from the end of each word.
func normalise(prompt string) []string {
	s := strings.ToLower(strings.ReplaceAll(prompt, ",", " "))
	words := strings.Fields(s)
	out := words[:0]
	for _, w := range words {
		w = strings.TrimRight(w, ".!?;:")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func parseDuotone(words []string) (Filter, error) {
	if len(words) > 0 && (words[0] == "in" || words[0] == "with" || words[0] == "of") {
		words = words[1:]
	}
	if len(words) == 0 {
		return Filter{Kind: FilterDuotone, Shadows: defaultDuotoneShadows, Highlights: defaultDuotoneHighlights}, nil
	}
	// "navy/gold" is one word; the separator may also stand alone.
	if len(words) == 1 {
		words = strings.SplitN(words[0], "/", 2)
	}
	if len(words) == 3 && (words[1] == "and" || words[1] == "to" || words[1] == "/") {
		words = []string{words[0], words[2]}
	}
	if len(words) != 2 {
		return Filter{}, unsupported("duotone takes two colours, shadows first, e.g. \"duotone navy gold\"")
	}
	dark, ok := colour.Parse(words[0])
	if !ok {
		return Filter{}, unsupported(fmt.Sprintf("%q is not a colour (a name such as navy, or #rrggbb)", words[0]))
	}
	light, ok := colour.Parse(words[1])
	if !ok {
		return Filter{}, unsupported(fmt.Sprintf("%q is not a colour (a name such as gold, or #rrggbb)", words[1]))
	}
	return Filter{Kind: FilterDuotone, Shadows: dark, Highlights: light}, nil
}

func parsePosterize(words []string) (Filter, error) {
	if len(words) > 0 && (words[0] == "to" || words[0] == "with") {
		words = words[1:]
	}
	if len(words) > 1 && (words[len(words)-1] == "levels" || words[len(words)-1] == "level") {
		words = words[:len(words)-1]
	}
	switch len(words) {
	case 0:
		return Filter{Kind: FilterPosterize, Levels: DefaultPosterizeLevels}, nil
	case 1:
		n, err := strconv.Atoi(words[0])
		if err != nil || n < MinPosterizeLevels || n > MaxPosterizeLevels {
			return Filter{}, unsupported(fmt.Sprintf("posterize takes a number of levels from %d to %d", MinPosterizeLevels, MaxPosterizeLevels))
		}
		return Filter{Kind: FilterPosterize, Levels: n}, nil
	}
	return Filter{}, unsupported(`posterize takes at most a number of levels, e.g. "posterize 4"`)
}
