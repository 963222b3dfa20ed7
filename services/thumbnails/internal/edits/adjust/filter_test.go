package adjust

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/platform/apierr"
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
		"navy and gold duotone":              {Kind: FilterDuotone, Shadows: navy, Highlights: gold},
		"duotone in navy":                    {Kind: FilterDuotone, Shadows: navy, Highlights: defaultDuotoneHighlights},
		"posterize 1":                        {Kind: FilterPosterize, Levels: MinPosterizeLevels},
		"posterize to 40 levels":             {Kind: FilterPosterize, Levels: MaxPosterizeLevels},
		"sepia sepia":                        {Kind: FilterSepia},
		"make it look cool":                  {Kind: FilterCool},
		"old film look":                      {Kind: FilterVintage},
		"duotone":                            {Kind: FilterDuotone, Shadows: defaultDuotoneShadows, Highlights: defaultDuotoneHighlights},
		"  please   apply the sepia effect ": {Kind: FilterSepia},
	} {
		got, err := ParseFilter(prompt)
		if err != nil {
			t.Errorf("%q: %v", prompt, err)
			continue
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q = %+v, want %+v", prompt, got, want)
		}
	}
}

// Several filters in one sentence are applied in the order named; a
// denied one is left out, and a weak word ("cool" as praise) gives way to
// a filter named plainly.
func TestParseFilterChains(t *testing.T) {
	for prompt, want := range map[string]string{
		"vintage film look with grain":                    "vintage|film grain",
		"black and white with a vignette":                 "grayscale|vignette",
		"vintage, no grain":                               "vintage",
		"sepia without the vignette":                      "sepia",
		"a cool vintage look":                             "vintage",
		"grainy and cooler":                               "film grain|cool",
		"don't add grain or vignette, just make it retro": "vintage",
		"invert, then posterise 6":                        "invert|posterize 6",
	} {
		fs, err := ParseFilter(prompt)
		if err != nil {
			t.Errorf("%q: %v", prompt, err)
			continue
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.String())
		}
		if strings.Join(got, "|") != want {
			t.Errorf("%q = %q, want %q", prompt, got, want)
		}
	}
}

func TestParseFilterRejects(t *testing.T) {
	for _, prompt := range []string{
		"", "   ", "!!!", "apply a filter", "make it pop", "cartoon", "oil painting",
		"blur", "background", "#ff0000", "make it look like a movie poster", "no grain", "without sepia or vignette",
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
		fs, err := ParseFilter(prompt)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseFilter(fs[0].String())
		if err != nil || !slices.Equal(again, fs) {
			t.Errorf("%q → %q → %+v, %v", prompt, fs[0].String(), again, err)
		}
	}
	fs, _ := ParseFilter("duotone navy gold")
	if got := fs[0].String(); got != "duotone #14235a #d4af37" {
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
		if len(got) == 0 || len(got) > MaxFilters {
			t.Fatalf("%q: %d filters", prompt, len(got))
		}
		for _, f := range got {
			again, err := ParseFilter(f.String())
			if err != nil || len(again) != 1 || again[0] != f {
				t.Fatalf("%q parsed as %+v, whose description %q parses as %+v, %v", prompt, f, f.String(), again, err)
			}
			if f.Kind == FilterPosterize && (f.Levels < MinPosterizeLevels || f.Levels > MaxPosterizeLevels) {
				t.Fatalf("%q: %d levels", prompt, f.Levels)
			}
		}
	})
}
