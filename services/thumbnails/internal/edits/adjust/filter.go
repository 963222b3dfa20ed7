package adjust

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/phrase"
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
		return fmt.Sprintf("duotone %s %s", phrase.Hex(f.Shadows), phrase.Hex(f.Highlights))
	case FilterPosterize:
		return fmt.Sprintf("posterize %d", f.Levels)
	}
	return string(f.Kind)
}

// Vocabulary is the filters' phrasings, each meaning its kind: the
// filter grammar's, which the edit grammar shares. The words that ask
// for a filter a person would use map onto the filter they mean ("old
// film" is vintage, "grainy" film grain, "b&w" grayscale).
func Vocabulary() *phrase.Vocab[FilterKind] { return &vocabulary }

var vocabulary = func() phrase.Vocab[FilterKind] {
	var v phrase.Vocab[FilterKind]
	v.Add(FilterGrayscale, `grayscale, greyscale, gray scale, grey scale, black and white, black & white, black-and-white,
		b&w, b & w, b/w, bw, b and w, monochrome, monochromatic, mono, noir, colourless, colorless, gray-scale, grey-scale`)
	v.Add(FilterSepia, `sepia, sepia tone, sepia toned, sepia-toned, sepia tones, antique, brown tint, brownish`)
	v.Add(FilterVintage, `vintage, retro, old film, old-film, film look, film style, old photo, old photograph, old school,
		old-school, old-timey, nostalgic, faded, analog, analogue, analog film, analogue film, polaroid, 70s, 1970s, seventies,
		throwback, aged`)
	v.Add(FilterWarm, `warm, warmer, warm tone, warm tones, warm it up, warmth, more warmth, golden hour, warm colours,
		warm colors, warmer colours, warmer colors, warmer tones, cozy`)
	v.AddWeak(FilterCool, `cool`)
	v.Add(FilterCool, `cooler, cool tone, cool tones, cool colours, cool colors, cool it down, cool down, cold, colder,
		cold tones, icy, cool blue, bluish, blue tint, cool filter, cool effect`)
	v.Add(FilterVignette, `vignette, vignetting, vignetted, dark corners, darker corners, darken the corners,
		dark edges, darker edges, darken the edges, darkened edges, shadowed edges`)
	v.Add(FilterBlurBackground, `blur background, blur the background, background blur, blurred background,
		blurry background, bokeh, blur behind, depth of field, shallow depth of field, portrait mode,
		out of focus background, out-of-focus background, defocus background, defocused background, soft background,
		background blurred, background blurry, background out of focus, blur out the background, blur out background`)
	v.Add(FilterSharpen, `sharpen, sharper, sharpened, sharpness, more sharpness, crisp, crisper, crisp up, more detail,
		more details, clearer, enhance details, sharpen up`)
	v.Add(FilterFilmGrain, `film grain, grain, grainy, graininess, noise, noisy, film noise, gritty, grit`)
	v.Add(FilterDuotone, `duotone, duo-tone, duo tone, two-tone, two tone, two-colour, two-color`)
	v.Add(FilterPosterize, `posterize, posterise, posterized, posterised, posterization, posterisation, pop art,
		poster effect, poster look`)
	v.Add(FilterInvert, `invert, inverted, inverse, negative, invert colors, invert colours, reverse the colours,
		reverse the colors, reversed colours, reversed colors`)
	return v
}()

// unsupported is the 400 for a prompt that names no filter.
func unsupported(why string) error {
	return apierr.New(apierr.UnsupportedPrompt, "filterPrompt: "+why+
		`; accepted filters: grayscale (or "black and white", "b&w", "monochrome"), sepia, vintage (or "retro", "old film"), `+
		`warm, cool, vignette, blur background (or "bokeh"), sharpen, film grain (or "grainy"), `+
		`duotone <colour> <colour> (shadows first; names such as navy or gold, or #rrggbb), posterize [2-16 levels], invert; `+
		`several may be named in one sentence, and "no grain" leaves grain out`).
		With("field", "filterPrompt")
}

// MaxFilters bounds the filters of one prompt: each is a pass over the
// picture.
const MaxFilters = 8

// ParseFilter reads a filterPrompt written as a person writes it: every
// filter the prompt names anywhere (see Vocabulary) is applied, in the
// order it names them, each once; words that name no filter are ignored,
// and a filter after "no", "not", "without" or "don't" is left out
// ("vintage, no grain"). Parameters follow their filter in the same
// clause: duotone takes the first two colours of its clause (shadows
// first; a colour word of pkg/media/colour, "dark"/"light"/"pastel" and one,
// or #rrggbb; navy to gold without), posterize a number of levels
// (2 to 16, nearer taken; 4 without). A prompt that names no filter, or
// only denied ones, is a 400 unsupported_prompt listing the filters.
func ParseFilter(prompt string) ([]Filter, error) {
	toks := phrase.Split(prompt)
	hits := vocabulary.Scan(toks)
	var out []Filter
	for _, h := range phrase.Strong(hits) {
		f := FilterAt(toks, h)
		if slices.ContainsFunc(out, func(g Filter) bool { return g.Kind == f.Kind }) {
			continue
		}
		out = append(out, f)
	}
	switch {
	case len(out) == 0 && len(hits) > 0:
		return nil, unsupported("every filter named is denied")
	case len(out) == 0:
		return nil, unsupported("no filter named")
	case len(out) > MaxFilters:
		return nil, unsupported(fmt.Sprintf("at most %d filters at once", MaxFilters))
	}
	return out, nil
}

// FilterAt is the filter of a hit of Vocabulary in toks, with the
// parameters its clause gives (see ParseFilter).
func FilterAt(toks []phrase.Token, h phrase.Hit[FilterKind]) Filter {
	f := Filter{Kind: h.Value}
	switch f.Kind {
	case FilterDuotone:
		f.Shadows, f.Highlights = defaultDuotoneShadows, defaultDuotoneHighlights
		var cs []color.RGBA
		lo, hi := clause(toks, h.Start, h.End)
		for i := lo; i < hi && len(cs) < 2; i++ {
			c, n := phrase.Colour(toks, i)
			switch {
			case n > 0:
				cs = append(cs, c)
				i += n - 1
			case strings.Count(toks[i].Key, "/") == 1:
				// "navy/gold"
				pair := phrase.Split(strings.ReplaceAll(toks[i].Key, "/", " "))
				a, n1 := phrase.Colour(pair, 0)
				b, n2 := phrase.Colour(pair, n1)
				if n1 > 0 && n2 > 0 && n1+n2 == len(pair) {
					cs = append(cs, a, b)
				}
			}
		}
		// "duotone #f0a, white": a colour right after the clause.
		if c, n := phrase.Colour(toks, hi); len(cs) == 1 && n > 0 {
			cs = append(cs, c)
		}
		switch len(cs) {
		case 2:
			f.Shadows, f.Highlights = cs[0], cs[1]
		case 1:
			f.Shadows = cs[0]
		}
	case FilterPosterize:
		f.Levels = DefaultPosterizeLevels
		lo, hi := clause(toks, h.Start, h.End)
		for i := lo; i < hi; i++ {
			if n, err := strconv.Atoi(toks[i].Key); err == nil && !toks[i].Quoted {
				f.Levels = min(max(n, MinPosterizeLevels), MaxPosterizeLevels)
				break
			}
		}
	}
	return f
}

// clause is the span of tokens around [start, end) up to the clause
// breaks either side.
func clause(toks []phrase.Token, start, end int) (lo, hi int) {
	lo, hi = start, end
	for lo > 0 && !toks[lo-1].Break {
		lo--
	}
	for hi < len(toks) && !toks[hi-1].Break {
		hi++
	}
	return lo, hi
}
