package edits

import (
	"errors"
	"fmt"
	"image/color"
	"strings"
	"testing"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/phrase"
)

// A prompt's field by op.
var promptFields = map[string]string{
	"filter": "filterPrompt", "edit": "prompt", "combine": "prompt", "background-replace": "backgroundPrompt",
}

// parsePrompt runs op's Parse on a body with prompt, without a provider.
func parsePrompt(op, prompt string) (*Request, error) {
	body := values{"imageUrl": "http://x/a.jpg", promptFields[op]: prompt}
	if op == "combine" {
		body = values{"imageUrl1": "http://x/a.jpg", "imageUrl2": "http://x/b.jpg", "prompt": prompt}
	}
	for _, o := range All() {
		if string(o.Name()) == op {
			return parse(o, body, false)
		}
	}
	panic("no op " + op)
}

func hex(name string) string { return phrase.Hex(colour.Names[name]) }

// Prompts as people write them, each with exactly what it must apply.
// A row whose want is empty is one this service cannot do: it counts
// against the share that must apply something.
var naturalPrompts = []struct {
	op, prompt string
	want       []string
}{
	// The filter endpoint.
	{"filter", "vintage film look with grain", []string{"vintage", "film grain"}},
	{"filter", "Make it black and white please", []string{"grayscale"}},
	{"filter", "can you give this a sepia tone?", []string{"sepia"}},
	{"filter", "B&W with a vignette", []string{"grayscale", "vignette"}},
	{"filter", "I want it to look like an old film, grainy and faded", []string{"vintage", "film grain"}},
	{"filter", "warmer tones, like golden hour", []string{"warm"}},
	{"filter", "Make the colours a bit cooler", []string{"cool"}},
	{"filter", "blur the background so I stand out", []string{"blur background"}},
	{"filter", "monochrome but no grain", []string{"grayscale"}},
	{"filter", "retro vibe without the vignette", []string{"vintage"}},
	{"filter", "sharpen it up a little", []string{"sharpen"}},
	{"filter", "Invert the colours for a creepy look", []string{"invert"}},
	{"filter", "duotone in navy and gold", []string{"duotone " + hex("navy") + " " + hex("gold")}},
	{"filter", "posterize it with 6 levels", []string{"posterize 6"}},
	{"filter", "pop art style please", []string{"posterize 4"}},
	{"filter", "add some film grain and a vignette", []string{"film grain", "vignette"}},
	{"filter", "Cool vintage look for my cooking channel", []string{"vintage"}},
	{"filter", "Greyscale, high contrast", []string{"grayscale"}},
	{"filter", "give it that bokeh effect behind me", []string{"blur background"}},
	{"filter", "NOIR", []string{"grayscale"}},
	{"filter", "a cold, icy feel", []string{"cool"}},
	{"filter", "don't make it black and white, just add grain", []string{"film grain"}},
	{"filter", "make it look cinematic", nil},
	{"filter", "like an oil painting", nil},

	// The edit endpoint.
	{"edit", "add the text HOUSTON WE HAVE A PROBLEM in big yellow letters", []string{`add text "HOUSTON WE HAVE A PROBLEM" yellow big`}},
	{"edit", "put 'SALE' at the top in red", []string{`add text "SALE" top red`}},
	{"edit", "Make it a bit brighter and boost the contrast", []string{"slightly brighter", "more contrast"}},
	{"edit", "can you make it way darker?", []string{"much darker"}},
	{"edit", "More vivid colours please!", []string{"more saturated"}},
	{"edit", "crop it to 9:16 for shorts", []string{"crop to 9:16"}},
	{"edit", "flip it horizontally and add a thin white border", []string{"mirror", "add border white thin"}},
	{"edit", "write Subscribe now at the bottom", []string{`add text "Subscribe now" bottom`}},
	{"edit", "add a caption saying 'Best day ever' on the left", []string{`add text "Best day ever" left`}},
	{"edit", "make it black and white and add the title THE END", []string{"grayscale", `add text "THE END"`}},
	{"edit", "brighter, but don't flip it", []string{"brighter"}},
	{"edit", "mirror the image", []string{"mirror"}},
	{"edit", "desaturate slightly and add a vignette", []string{"slightly less saturated", "vignette"}},
	{"edit", "Add a thick gold frame", []string{"add border gold thick"}},
	{"edit", "add text “NEW VIDEO” in white at the top, make it huge", []string{`add text "NEW VIDEO" top white big`}},
	{"edit", "blur the background and write 'coming soon' at the top", []string{"blur background", `add text "coming soon" top`}},
	{"edit", "turn up the brightness a lot", []string{"much brighter"}},
	{"edit", "lower the contrast a touch", []string{"slightly less contrast"}},
	{"edit", "make it look warmer and more vibrant", []string{"warm", "more saturated"}},
	{"edit", "reframe to landscape 16:9", []string{"crop to 16:9"}},
	{"edit", "add small text 'link in bio' bottom right", []string{`add text "link in bio" bottom small`}},
	{"edit", "slightly darker with a dark blue border", []string{"slightly darker", "add border dark blue"}},
	{"edit", "add a red border, no text", []string{"add border red"}},
	{"edit", "make it grainy and add the words GAME OVER", []string{"film grain", `add text "GAME OVER"`}},
	{"edit", "Sharpen and crop to 9:16", []string{"sharpen", "crop to 9:16"}},
	{"edit", "add text saying hello world", []string{`add text "hello world"`}},
	{"edit", "give it a sepia look, then flip it", []string{"sepia", "mirror"}},
	{"edit", "remove the guy in the background", nil},
	{"edit", "make my smile bigger", nil},

	// The combine endpoint.
	{"combine", "put them side by side please", []string{"side by side"}},
	{"combine", "before and after, stacked on top of each other", []string{"before and after", "stacked"}},
	{"combine", "Me vs my brother", []string{"Me vs my brother"}},
	{"combine", "compare the two photos next to each other", []string{"versus"}},
	{"combine", "picture in picture with the second one in the top left corner", []string{"picture-in-picture top-left"}},
	{"combine", "show a before/after split", []string{"before and after"}},
	{"combine", "small in the corner, bottom right", []string{"picture-in-picture bottom-right"}},
	{"combine", "iPhone 15 versus Pixel 8, one above the other", []string{"iPhone 15 vs Pixel 8", "stacked"}},
	{"combine", "then and now", []string{"before and after"}},
	{"combine", "put my facecam in the corner", []string{"picture-in-picture bottom-right"}},
	{"combine", "not side by side, stack them vertically", []string{"side by side", "stacked"}},
	{"combine", "make a collage", nil},

	// The background-replace endpoint.
	{"background-replace", "a sunset beach behind me", []string{"sunset", "beach"}},
	{"background-replace", "Put me in front of a city skyline at night", []string{"city", "night"}},
	{"background-replace", "dark blue gradient", []string{phrase.Hex(colour.Mix(colour.Names["blue"], color.RGBA{0, 0, 0, 255}, 0.45))}},
	{"background-replace", "outer space with lots of stars", []string{"space"}},
	{"background-replace", "a snowy mountain, no clouds", []string{"snow", "mountains"}},
	{"background-replace", "neon cyberpunk street", []string{"neon", "city"}},
	{"background-replace", "professional studio backdrop in grey", []string{"studio", hex("grey")}},
	{"background-replace", "somewhere tropical with palm trees", []string{"beach"}},
	{"background-replace", "a forest in autumn, warm orange light", []string{"forest", hex("orange")}},
	{"background-replace", "just a plain white background", []string{hex("white")}},
	{"background-replace", "fire and flames, but not red", []string{"fire"}},
	{"background-replace", "my living room", nil},
}

// Every natural prompt applies exactly what its row says, none applies
// an operation its row does not name, and at least 90% of them apply
// something.
func TestNaturalPrompts(t *testing.T) {
	if len(naturalPrompts) < 60 {
		t.Fatalf("%d prompts, want at least 60", len(naturalPrompts))
	}
	applied := 0
	for _, tc := range naturalPrompts {
		r, err := parsePrompt(tc.op, tc.prompt)
		var got []string
		switch {
		case err == nil:
			got = r.Applied
		case apierr.Is(err, apierr.UnsupportedPrompt):
		default:
			t.Errorf("%s %q: %v", tc.op, tc.prompt, err)
			continue
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("%s %q applied %q, want %q", tc.op, tc.prompt, got, tc.want)
		}
		if len(tc.want) > 0 {
			applied++
		}
		if (err == nil) != (len(tc.want) > 0) {
			t.Errorf("%s %q: error %v with applied %q", tc.op, tc.prompt, err, got)
		}
	}
	if share := float64(applied) / float64(len(naturalPrompts)); share < 0.9 {
		t.Errorf("%d of %d prompts apply something (%.0f%%), want at least 90%%", applied, len(naturalPrompts), 100*share)
	}
	t.Logf("%d of %d prompts apply something", applied, len(naturalPrompts))
}

// A prompt with nothing recognisable is the 400 unsupported_prompt of
// its field, whatever the grammar.
func TestUnrecognisablePrompts(t *testing.T) {
	for _, prompt := range []string{"make the picture pop", "asdf qwerty", "🔥🔥🔥", "!!!", "make it go viral", "no grain, no vignette"} {
		for op, field := range promptFields {
			_, err := parsePrompt(op, prompt)
			var e *apierr.Error
			if !apierr.Is(err, apierr.UnsupportedPrompt) || !errors.As(err, &e) || !strings.Contains(e.Error(), field) {
				t.Errorf("%s %q: %v, want unsupported_prompt naming %s", op, prompt, err, field)
			}
		}
	}
}

// Prompts are untrusted: through every grammar, any text is either
// applied, with something to say it applied, or refused with a 400; it
// never panics. The fuzzer runs each input against all four.
func FuzzPrompts(f *testing.F) {
	for _, tc := range naturalPrompts {
		f.Add(tc.prompt)
	}
	f.Add(strings.Repeat(`add text "x" and `, 40))
	f.Add(strings.Repeat("no ", 500))
	f.Fuzz(func(t *testing.T, prompt string) {
		for op := range promptFields {
			r, err := parsePrompt(op, prompt)
			switch {
			case err == nil && len(r.Applied) == 0:
				t.Fatalf("%s %q: accepted with nothing applied", op, prompt)
			case err != nil && !apierr.Is(err, apierr.UnsupportedPrompt) && !apierr.Is(err, apierr.InvalidRequest):
				t.Fatalf("%s %q: %v", op, prompt, err)
			}
		}
	})
}

// BenchmarkLongPrompt reads a prompt of the longest length accepted
// (thumbnail.MaxPrompt) through the four grammars: the bound on what one
// untrusted prompt costs to read.
func BenchmarkLongPrompt(b *testing.B) {
	words := strings.Fields(`make it black and white with no grain but a thick red border, then add the text HELLO at the
		top in big yellow letters; side by side vs picture in picture a sunset beach #ff8800 dark blue`)
	var sb strings.Builder
	for i := 0; sb.Len() < 2000-20; i++ {
		sb.WriteString(words[i%len(words)] + " ")
	}
	prompt := sb.String()
	for b.Loop() {
		for op := range promptFields {
			_, _ = parsePrompt(op, prompt)
		}
	}
}
