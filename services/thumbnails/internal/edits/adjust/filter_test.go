package adjust

import (
	"image/color"
	"strings"
	"testing"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/colour"
)

func TestParseFilterAccepts(t *testing.T) {
	navy, gold := colour.Names["navy"], colour.Names["gold"]
	for prompt, want := range map[string]Filter{
		"grayscale":                          {Kind: FilterGrayscale},
		"Greyscale":                          {Kind: FilterGrayscale},
		"make it black and white":            {Kind: FilterGrayscale},
		"Black & White":                      {Kind: FilterGrayscale},
		"b&w":                                {Kind: FilterGrayscale},
		"B/W filter":                         {Kind: FilterGrayscale},
		"convert to monochrome.":             {Kind: FilterGrayscale},
		"apply a sepia filter":               {Kind: FilterSepia},
		"Sepia tone, please!":                {Kind: FilterSepia},
		"give it a vintage look":             {Kind: FilterVintage},
		"retro effect":                       {Kind: FilterVintage},
		"make it warmer":                     {Kind: FilterWarm},
		"warm tones":                         {Kind: FilterWarm},
		"cool":                               {Kind: FilterCool},
		"add a cool tone filter":             {Kind: FilterCool},
		"add a vignette":                     {Kind: FilterVignette},
		"vignette effect":                    {Kind: FilterVignette},
		"blur the background":                {Kind: FilterBlurBackground},
		"Blur background":                    {Kind: FilterBlurBackground},
		"background blur effect":             {Kind: FilterBlurBackground},
		"bokeh":                              {Kind: FilterBlurBackground},
		"sharpen":                            {Kind: FilterSharpen},
		"sharpen the image":                  {Kind: FilterSharpen},
		"make it sharper":                    {Kind: FilterSharpen},
		"add film grain":                     {Kind: FilterFilmGrain},
		"grainy":                             {Kind: FilterFilmGrain},
		"invert":                             {Kind: FilterInvert},
		"invert the colours":                 {Kind: FilterInvert},
		"negative":                           {Kind: FilterInvert},
		"posterize":                          {Kind: FilterPosterize, Levels: DefaultPosterizeLevels},
		"posterise 6":                        {Kind: FilterPosterize, Levels: 6},
		"posterize with 3 levels":            {Kind: FilterPosterize, Levels: 3},
		"posterize to 16 levels":             {Kind: FilterPosterize, Levels: 16},
		"duotone navy gold":                  {Kind: FilterDuotone, Shadows: navy, Highlights: gold},
		"Duotone Navy and Gold":              {Kind: FilterDuotone, Shadows: navy, Highlights: gold},
		"apply a duotone in navy to gold":    {Kind: FilterDuotone, Shadows: navy, Highlights: gold},
		"duotone navy/gold":                  {Kind: FilterDuotone, Shadows: navy, Highlights: gold},
		"duotone #1a1a40 #FFCC00":            {Kind: FilterDuotone, Shadows: color.RGBA{0x1a, 0x1a, 0x40, 0xff}, Highlights: color.RGBA{0xff, 0xcc, 0x00, 0xff}},
		"duotone #f0a, white":                {Kind: FilterDuotone, Shadows: color.RGBA{0xff, 0x00, 0xaa, 0xff}, Highlights: color.RGBA{0xff, 0xff, 0xff, 0xff}},
		"duotone gold navy":                  {Kind: FilterDuotone, Shadows: gold, Highlights: navy},
		"duotone":                            {Kind: FilterDuotone, Shadows: defaultDuotoneShadows, Highlights: defaultDuotoneHighlights},
		"  please   apply the sepia effect ": {Kind: FilterSepia},
	} {
		got, err := ParseFilter(prompt)
		if err != nil {
			t.Errorf("%q: %v", prompt, err)
			continue
		}
		if got != want {
			t.Errorf("%q = %+v, want %+v", prompt, got, want)
		}
	}
}

func TestParseFilterRejects(t *testing.T) {
	for _, prompt := range []string{
		"", "   ", "!!!", "apply a filter", "make it pop", "cartoon", "oil painting",
		"blur", "background", "sepia sepia", "grayscale and sepia", "sepia vignette",
		"duotone navy", "duotone navy gold red", "duotone navy and", "duotone sparkly gold",
		"duotone #12345 gold", "duotone #gggggg gold", "duotone 0x000080 gold",
		"posterize 1", "posterize 17", "posterize -4", "posterize many", "posterize 4 5",
		"invert sepia", "warm sepia", "#ff0000", "make it look like a movie poster",
	} {
		_, err := ParseFilter(prompt)
		if !apierr.Is(err, apierr.UnsupportedPrompt) {
			t.Errorf("%q: %v, want unsupported_prompt", prompt, err)
			continue
		}
		if !strings.Contains(err.Error(), "accepted filters: grayscale") {
			t.Errorf("%q: the error does not list the accepted filters: %v", prompt, err)
		}
	}
}

// String is what the service records for a filter: it reads back as the
// same filter.
func TestFilterStringParsesBack(t *testing.T) {
	for _, prompt := range []string{"b&w", "sepia tone", "add a vignette", "blurry background", "grain", "posterise 7", "duotone teal pink", "negative"} {
		f, err := ParseFilter(prompt)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseFilter(f.String())
		if err != nil || again != f {
			t.Errorf("%q → %q → %+v, %v", prompt, f.String(), again, err)
		}
	}
	f, _ := ParseFilter("duotone navy gold")
	if got := f.String(); got != "duotone #14235a #d4af37" {
		t.Errorf("duotone described as %q", got)
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, seed := range []string{
		"sepia", "make it black and white", "duotone navy gold", "duotone #1a1a40 #ffcc00", "posterize 5",
		"apply a vintage filter.", "blur the background", "duotone navy/gold", "posterize to 16 levels", "b & w", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		got, err := ParseFilter(prompt)
		if err != nil {
			if !apierr.Is(err, apierr.UnsupportedPrompt) {
				t.Fatalf("%q: error %v is not unsupported_prompt", prompt, err)
			}
			return
		}
		again, err := ParseFilter(got.String())
		if err != nil || again != got {
			t.Fatalf("%q parsed as %+v, whose description %q parses as %+v, %v", prompt, got, got.String(), again, err)
		}
		if got.Kind == FilterPosterize && (got.Levels < MinPosterizeLevels || got.Levels > MaxPosterizeLevels) {
			t.Fatalf("%q: %d levels", prompt, got.Levels)
		}
	})
}
