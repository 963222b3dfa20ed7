package instruct

import (
	"image/color"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func TestParseAccepts(t *testing.T) {
	for prompt, want := range map[string]string{
		"brighter":                         "brighter",
		"Make it much darker.":             "much darker",
		"make the image a bit brighter":    "slightly brighter",
		"a little darker please":           "slightly darker",
		"Brighten":                         "brighter",
		"a lot more contrast":              "much more contrast",
		"increase the contrast":            "more contrast",
		"less contrast":                    "less contrast",
		"slightly reduce contrast":         "slightly less contrast",
		"saturate":                         "more saturated",
		"more vivid colours":               "more saturated",
		"MORE SATURATED":                   "more saturated",
		"desaturate a touch":               "slightly less saturated",
		"mute the colors":                  "less saturated",
		"crop to 16:9":                     "crop to 16:9",
		"crop it to 9:16 aspect ratio":     "crop to 9:16",
		"crop to portrait":                 "crop to 9:16",
		"16x9":                             "crop to 16:9",
		"mirror":                           "mirror",
		"flip horizontally":                "mirror",
		"flip the image left to right":     "mirror",
		`add text "NEW RECORD"`:            `add text "NEW RECORD"`,
		`add text "NEW RECORD" at the top`: `add text "NEW RECORD" top`,
		`Add the caption “Wait for it…” on the left`: `add text "Wait for it…" left`,
		`put "and, then; so" at the bottom`:          `add text "and, then; so" bottom`,
		`add text "  two   spaces " right`:           `add text "two spaces" right`,
		"add border gold":                            "add border gold",
		"add a thick red border":                     "add border red thick",
		"add a thin border in #FF8800":               "add border #ff8800 thin",
		"add border #0f0":                            "add border #0f0",
		"add a border":                               "add border",
		"add a very thick light blue border":         "add border light blue thick",
		// Several instructions, every separator.
		`brighter and add text "NEW RECORD" top and add border gold`: `brighter, add text "NEW RECORD" top, add border gold`,
		"saturate, crop to 9:16; mirror then darker":                 "more saturated, crop to 9:16, mirror, darker",
		"flip horizontally and then desaturate.":                     "mirror, less saturated",
	} {
		p, err := Parse(prompt)
		if err != nil {
			t.Errorf("%q: %v", prompt, err)
			continue
		}
		if p.String() != want {
			t.Errorf("%q: %q, want %q", prompt, p.String(), want)
		}
		again, err := Parse(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Errorf("%q → %q re-parses to %+v, %v", prompt, p.String(), again, err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, prompt := range []string{
		"", "   ", ", and ;", "turn him into a cat", "remove the background",
		`add text "` + strings.Repeat("x", 61) + `"`, `"hello"`, `make it "pop"`, `add text "🔥🔥"`,
		"crop to 4:3", "crop", "flip vertically", "flip it upside down", "contrast", "don't make it brighter",
		"brighter " + strings.Repeat("and darker ", MaxInstructions),
		"brighter \xff",
	} {
		_, err := Parse(prompt)
		if !apierr.Is(err, apierr.UnsupportedPrompt) {
			t.Errorf("%q: %v, want unsupported_prompt", prompt, err)
			continue
		}
		if !strings.Contains(err.Error(), "accepted instructions") {
			t.Errorf("%q: the refusal does not list the grammar: %v", prompt, err)
		}
	}
}

func TestParseValues(t *testing.T) {
	p, err := Parse(`much brighter, slightly less contrast, add text "Hi there" left, add a thick navy border, crop to 9:16`)
	if err != nil {
		t.Fatal(err)
	}
	want := []op{
		{kind: brightness, level: 3},
		{kind: contrast, level: -1},
		{kind: text, text: "Hi there", where: "left", size: normal},
		{kind: border, colour: color.RGBA{20, 35, 90, 255}, colourWord: "navy", width: 3},
		{kind: crop, aspect: "9:16"},
	}
	if !reflect.DeepEqual(p.ops, want) {
		t.Errorf("got %+v\nwant %+v", p.ops, want)
	}
}

func FuzzParseInstruction(f *testing.F) {
	for _, s := range []string{
		"brighter", `add text "x" top and mirror`, "add thick navy border", "much darker, crop to 16:9",
		`add the caption “Wait” left`, "a bit more vivid colours then flip", "add border #abc thin",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if !apierr.Is(err, apierr.UnsupportedPrompt) {
				t.Fatalf("%q: %v is not unsupported_prompt", s, err)
			}
			return
		}
		again, err := Parse(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("%q → %q re-parses to %+v, %v; was %+v", s, p.String(), again, err, p)
		}
	})
}
