package compose

import (
	"strings"
	"testing"
)

func TestDeriveHeadline(t *testing.T) {
	cases := []struct {
		name, prompt, tweak string
		maxWords            int
		must                []string // words the headline keeps
		mustNot             []string // words it drops
		highlight           string   // the highlighted word, "" to skip
	}{
		{name: "numbers and superlatives first", prompt: "I tested the 5 cheapest gaming laptops so you don't have to",
			must: []string{"5", "cheapest"}, mustNot: []string{"the", "so", "you", "have"}, highlight: "5"},
		{name: "meta words dropped", prompt: "a bold youtube thumbnail showing my new electric car",
			must: []string{"electric"}, mustNot: []string{"youtube", "thumbnail", "bold", "showing", "a", "my"}},
		{name: "names kept", prompt: "travelling across Japan on a tiny budget", must: []string{"Japan"}},
		{name: "tweak takes priority", prompt: "my morning routine as a student", tweak: "insane",
			must: []string{"insane"}, highlight: "insane"},
		{name: "money", prompt: "how I turned $100 into a business", must: []string{"$100"}, highlight: "$100"},
		{name: "cap", prompt: "ultimate guide to baking sourdough bread at home without any special equipment", maxWords: 2},
		{name: "only stop words", prompt: "the of and", must: []string{"the"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(0); seed < 20; seed++ {
				h := deriveHeadline(c.prompt, c.tweak, seed, c.maxWords)
				limit := 5
				if c.maxWords > 0 {
					limit = c.maxWords
				}
				if len(h.words) == 0 || len(h.words) > limit {
					t.Fatalf("seed %d: %d words %v", seed, len(h.words), h.words)
				}
				got := " " + strings.ToLower(strings.Join(h.words, " ")) + " "
				for _, w := range c.must {
					if !strings.Contains(got, " "+strings.ToLower(w)+" ") {
						t.Errorf("seed %d: %v lacks %q", seed, h.words, w)
					}
				}
				for _, w := range c.mustNot {
					if strings.Contains(got, " "+w+" ") {
						t.Errorf("seed %d: %v keeps %q", seed, h.words, w)
					}
				}
				if c.highlight != "" && (h.highlight < 0 || h.words[h.highlight] != c.highlight) {
					t.Errorf("seed %d: highlight %d in %v, want %q", seed, h.highlight, h.words, c.highlight)
				}
			}
		})
	}
}

// TestDeriveHeadlineKeepsOrder: the words read in the prompt's order.
func TestDeriveHeadlineKeepsOrder(t *testing.T) {
	prompt := "Why Tesla stock crashed 40 percent this week"
	for seed := uint64(0); seed < 20; seed++ {
		h := deriveHeadline(prompt, "", seed, 0)
		last := -1
		for _, w := range h.words {
			i := strings.Index(prompt, w)
			if i < last {
				t.Fatalf("seed %d: %v out of order", seed, h.words)
			}
			last = i
		}
		if len(h.words) < 3 {
			t.Fatalf("seed %d: %v, want at least 3 words from a prompt with 5 keywords", seed, h.words)
		}
	}
}

func TestSeedsVaryWording(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 10; seed++ {
		seen[strings.Join(deriveHeadline("the best and worst budget phones of the year ranked honestly", "", seed, 0).words, " ")] = true
	}
	if len(seen) < 3 {
		t.Fatalf("ten seeds gave %d wordings: %v", len(seen), seen)
	}
}

func TestFirstNumber(t *testing.T) {
	for in, want := range map[string]string{"top 10 games": "10", "$500 budget": "$500", "no digits": "", "24h challenge": "24h"} {
		if got := firstNumber(in); got != want {
			t.Errorf("firstNumber(%q) = %q, want %q", in, got, want)
		}
	}
}
