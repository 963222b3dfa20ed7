package compose

import (
	"context"
	"image"
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func TestBadgeWord(t *testing.T) {
	cases := []struct {
		prompt string
		head   []string
		want   string
	}{
		{"my morning routine as a student", nil, ""},
		{"I tested the 5 cheapest gaming laptops", nil, ""},
		{"How I paid off $30,000 of debt", nil, ""},
		{"New York City on a $50 budget", nil, ""},
		{"New Year's resolutions that stick", nil, ""},
		{"How I live on $1 a day", nil, ""},
		{"my new electric car", nil, "NEW"},
		{"Brand New Tesla Model Y", []string{"TESLA", "MODEL", "Y"}, "NEW"},
		{"iPhone vs Galaxy", []string{"WHICH", "ONE?"}, "VS"},
		{"iPhone versus Galaxy", nil, "VS"},
		// The headline says VS already: no badge repeats it.
		{"iPhone vs Galaxy", []string{"iPhone", "vs", "Galaxy"}, ""},
		{"Minecraft 1.21 update: everything new", []string{"MINECRAFT", "1.21"}, "UPDATE"},
		{"Minecraft 1.21 update: everything new", []string{"MINECRAFT", "1.21", "UPDATE"}, "NEW"},
		{"Pokémon tier list", nil, "TIER LIST"},
		{"going live with viewers", nil, "LIVE"},
		{"Fortnite LIVE ranked", nil, "LIVE"},
		{"FORTNITE LIVE RANKED", nil, ""},
		{"free Photoshop alternatives", nil, "FREE"},
		{"Black Friday sale on laptops", nil, "SALE"},
		{"50% off every course", nil, "50% OFF"},
		{"the #1 mistake beginners make", nil, "#1"},
		{"the number one mistake", nil, "#1"},
		{"best phones of 2026", nil, "2026"},
		{"Part 2 of the build", nil, "PART 2"},
		{"Episode 14: the finale", nil, "EP 14"},
		{"top 10 budget phones", nil, "TOP 10"},
		{"top 10 budget phones", []string{"TOP", "10", "PHONES"}, ""},
	}
	for _, c := range cases {
		if got := badgeWord(c.prompt, c.head); got != c.want {
			t.Errorf("badgeWord(%q, %v) = %q, want %q", c.prompt, c.head, got, c.want)
		}
	}
}

// TestBadgeOnlyWhenAsked draws each built-in layout with a badge twice
// from the same seed and prompt, once as it is and once without its
// accents: when nothing asks for a badge, the badge's box holds the same
// pixels in both (the background, no badge); when the prompt says "new",
// it does not.
func TestBadgeOnlyWhenAsked(t *testing.T) {
	base := newEngine(t)
	n := 0
	for _, b := range base.builtins {
		var box layout.Box
		found := false
		for _, a := range b.l.Accents {
			if a.WhenAsked {
				box, found = a.Box, true
			}
		}
		if !found {
			continue
		}
		n++
		t.Run(b.name, func(t *testing.T) {
			with, without := *base, *base
			with.builtins = []builtin{b}
			bare := cloneLayout(b.l)
			bare.Accents = nil
			without.builtins = []builtin{{name: b.name, l: bare}}
			draw := func(e *Engine, prompt string) image.Image {
				res, err := e.Generate(context.Background(), engine.Request{Prompt: prompt, Aspect: thumbnail.Aspect(b.l.Aspect), Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				return decode(t, res)
			}
			for _, c := range []struct {
				prompt string
				badge  bool
			}{{"my morning routine as a student", false}, {"my new morning routine as a student", true}} {
				got, ref := draw(&with, c.prompt), draw(&without, c.prompt)
				r := boxPx(box, got.Bounds().Dx(), got.Bounds().Dy())
				d := boxDiff(got, ref, r)
				if c.badge && d < 20 {
					t.Errorf("%q: the badge box differs from the background by %.1f: no badge drawn", c.prompt, d)
				}
				if !c.badge && d > 1 {
					t.Errorf("%q: the badge box differs from the background by %.1f: a badge nobody asked for", c.prompt, d)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no built-in layout has a badge drawn when asked")
	}
}

// boxDiff is the mean absolute difference of 8-bit channels of a and b
// inside r.
func boxDiff(a, b image.Image, r image.Rectangle) float64 {
	sum, cnt := 0.0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			for _, d := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8)} {
				sum += float64(max(d, -d))
			}
			cnt += 3
		}
	}
	return sum / float64(cnt)
}

// A badge's word moves out of the derived headline, but a "vs" stays: it
// joins the two names.
func TestHeadlineLeavesTheBadgeWord(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		h := deriveHeadline("Brand new Tesla Model Y: first drive", "", seed, 0, "new")
		for _, w := range h.words {
			if w == "new" {
				t.Errorf("seed %d: %v keeps the badge's word", seed, h.words)
			}
		}
		h = deriveHeadline("iPhone 17 vs Galaxy S26", "", seed, 0, "vs")
		if got := strings.Join(h.words, " "); !strings.Contains(got, " vs ") {
			t.Errorf("seed %d: %q lost its vs", seed, got)
		}
	}
}
