package captions

import (
	"strings"
	"testing"

	"hookline.dev/pkg/media/fonts"
)

func TestFitCutsOnlyWhatDoesNotFit(t *testing.T) {
	f := newFitter(fonts.Heavy, 50, 1, 500, 10)
	if f.face == nil {
		t.Fatal("the embedded font did not load")
	}
	width := func(s string) float64 {
		w := 0.0
		for _, r := range s {
			w += f.advance(r)
		}
		return w
	}
	long := strings.Repeat("w", 300)
	for in, want := range map[string]func(string) bool{
		"short words stay": func(s string) bool { return s == "short words stay" },
		"  spaces\tkept ":  func(s string) bool { return s == "  spaces\tkept " },
		long: func(s string) bool {
			return strings.HasSuffix(s, ellipsis) && strings.HasPrefix(s, "www") && width(s) <= f.width
		},
		"see " + long + " and more": func(s string) bool { return strings.HasPrefix(s, "see www") && strings.HasSuffix(s, "… and more") },
		// A rune the font lacks counts an em: 20 of them (1000 px) do not fit.
		strings.Repeat("漢", 20): func(s string) bool { return strings.HasSuffix(s, ellipsis) && len([]rune(s)) < 20 },
	} {
		if got := f.fit(in); !want(got) {
			t.Errorf("fit(%.40q) = %.60q", in, got)
		}
	}
	// No room at all: only the ellipsis.
	if got := newFitter(fonts.Heavy, 50, 1, 10, 10).fit("word"); got != ellipsis {
		t.Errorf("no room: %q", got)
	}
}

// Every text of a script is cut to its style's room: the captions, the
// hook, the end card and a cutaway's keyword.
func TestASSCutsLongWords(t *testing.T) {
	long := strings.Repeat("x", 300)
	script := ASS(Spec{Width: 540, Height: 960, Style: Energetic, Words: []Word{{Start: 0, End: 1, Text: long}},
		Hook: long, HookSeconds: 1, EndCard: long, EndStart: 1, EndSeconds: 1, Cutaways: []Cutaway{{Start: 0, End: 1, Text: long}}})
	if strings.Contains(script, strings.Repeat("x", 100)) || strings.Contains(script, strings.Repeat("X", 100)) {
		t.Fatalf("a 300-letter word reached the script whole:\n%s", script)
	}
	if n := strings.Count(script, ellipsis); n < 4 {
		t.Errorf("%d cut words, want one in each of the caption, hook, end card and cutaway:\n%s", n, script)
	}
}
