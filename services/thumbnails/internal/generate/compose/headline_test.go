package compose

import (
	"math/rand/v2"
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
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

// titles are real-looking video titles, each with the headline it gives
// (seed 1, upper-cased as the layouts draw it): tech reviews, vlogs,
// cooking, finance, gaming, fitness, science, news, tutorials, podcasts,
// listicles, questions, quotes, emoji, hashtags and letters beyond ASCII.
var titles = []struct{ title, want string }{
	{"iPhone 17 Pro vs Galaxy S26 Ultra camera test", "IPHONE 17 VS S26"},
	{"What NASA never told you about the shuttle program", "NASA NEVER TOLD"},
	{"I tested the 5 cheapest gaming laptops so you don't have to", "5 CHEAPEST GAMING LAPTOPS"},
	{"M4 MacBook Air review: is it still worth it in 2026?", "M4 MACBOOK AIR 2026"},
	{"GPT-5 just changed everything", "GPT-5 CHANGED EVERYTHING"},
	{"RTX 5090 vs RX 9070 XT: which GPU should you buy?", "RTX 5090 VS RX 9070"},
	{"Pixel 10 Pro long-term review after 6 months", "PIXEL 10 PRO LONG-TERM"},
	{"Top 10 Games of 2025 You Need to Play", "TOP 10 GAMES 2025"},
	{"Top 10 budget smartphones under $300", "10 BUDGET SMARTPHONES $300"},
	{"The Truth About Intermittent Fasting", "TRUTH INTERMITTENT FASTING"},
	{"How I paid off $30,000 of debt in one year", "PAID $30,000 DEBT"},
	{"Why Tesla stock crashed 40 percent this week", "TESLA CRASHED 40 PERCENT"},
	{"My morning routine as a busy mom of 3", "MORNING ROUTINE BUSY MOM"},
	{"A day in my life living in Tokyo", "DAY LIFE LIVING TOKYO"},
	{"Perfect Neapolitan pizza at home (no special oven)", "PERFECT NEAPOLITAN NO SPECIAL OVEN"},
	{"Gordon Ramsay's 10 minute pasta", "GORDON RAMSAY'S 10 MINUTE PASTA"},
	{"The easiest sourdough bread recipe for beginners", "EASIEST SOURDOUGH BREAD RECIPE"},
	{"Crème brûlée in 15 minutes", "CRÈME BRÛLÉE 15 MINUTES"},
	{"How to invest $1,000 in 2026", "INVEST $1,000 2026"},
	{"Warren Buffett's secret to getting rich slowly", "WARREN BUFFETT'S SECRET RICH SLOWLY"},
	{"Is the housing market about to crash?", "HOUSING MARKET CRASH"},
	{"Minecraft 1.21 update: everything new", "MINECRAFT 1.21 UPDATE NEW"},
	{"Elden Ring boss fight with only a fishing rod", "ELDEN RING BOSS FIGHT"},
	{"I played Fortnite for 24 hours straight", "FORTNITE 24 HOURS STRAIGHT"},
	{"Beating Dark Souls 3 without taking damage", "BEATING DARK SOULS 3"},
	{"Full body workout in 20 minutes (no equipment)", "20 MINUTES NO EQUIPMENT"},
	{"How I lost 20 pounds in 30 days", "20 POUNDS 30 DAYS"},
	{"Build muscle after 40: what actually works", "BUILD MUSCLE AFTER 40"},
	{"Black holes explained in 10 minutes", "HOLES EXPLAINED 10 MINUTES"},
	{"Why the James Webb telescope changes everything", "JAMES WEBB TELESCOPE CHANGES"},
	{"The science of sleep: what happens to your brain", "SCIENCE SLEEP BRAIN"},
	{"BREAKING: SpaceX Starship launch explodes", "BREAKING SPACEX STARSHIP LAUNCH"},
	{"Election results live: what happens next?", "ELECTION RESULTS LIVE"},
	{"Excel pivot tables tutorial for beginners", "PIVOT TABLES TUTORIAL BEGINNERS"},
	{"Learn Python in 1 hour", "LEARN PYTHON 1 HOUR"},
	{"How to use ChatGPT to write better emails", "CHATGPT WRITE BETTER EMAILS"},
	{"Ep. 142 – Naval Ravikant on wealth and happiness", "NAVAL RAVIKANT WEALTH HAPPINESS"},
	{"Joe Rogan Experience #2045 - Elon Musk", "JOE ROGAN EXPERIENCE #2045"},
	{"Lex Fridman Podcast with Sam Altman", "FRIDMAN PODCAST SAM ALTMAN"},
	{"Would you survive a zombie apocalypse?", "SURVIVE ZOMBIE APOCALYPSE"},
	{"What happens if you drink coffee every day? ☕", "DRINK COFFEE EVERY DAY"},
	{"\"I Quit My Job\" — one year later", "I QUIT MY JOB"},
	{"Best budget mic for streaming 🎙️ #shorts #tech", "BEST BUDGET MIC STREAMING"},
	{"10 Python tricks you didn't know 🔥 #coding", "10 PYTHON TRICKS"},
	{"Pokémon Scarlet tier list: every starter ranked", "POKÉMON SCARLET TIER LIST"},
	{"Visiting São Paulo for the first time", "VISITING SÃO PAULO FIRST TIME"},
	{"Comment faire un croissant parfait à la maison", "CROISSANT PARFAIT MAISON"},
	{"München travel guide: Oktoberfest tips", "MÜNCHEN GUIDE OKTOBERFEST TIPS"},
	{"the best and worst budget phones of the year ranked honestly", "BEST WORST BUDGET PHONES"},
	{"New York City on a $50 budget", "NEW YORK CITY $50 BUDGET"},
	{"Galaxy Z Fold 7 unboxing", "GALAXY Z FOLD 7"},
	{"Don't buy the iPhone 17 until you watch this", "DON'T BUY IPHONE 17"},
	{"Why you should not learn Python in 2026", "NOT LEARN PYTHON 2026"},
	{"Brand new Tesla Model Y: first drive", "NEW TESLA MODEL Y"},
	{"iPhone 17 vs Galaxy S26", "IPHONE 17 VS S26"},
	{"Dark Souls 3 without taking damage", "DARK SOULS 3"},
	{"Fortnite LIVE - ranked grind with viewers", "FORTNITE LIVE VIEWERS"},
	{"50% off Black Friday tech deals", "50% BLACK FRIDAY TECH"},
}

// TestHeadlineTable: the headline each title gives, as drawn.
func TestHeadlineTable(t *testing.T) {
	for _, c := range titles {
		h := headlineFor(engine.Request{Prompt: c.title}, layout.Text{Name: layout.SlotHeadline}, rand.New(rand.NewPCG(1, 1)), "")
		if got := strings.ToUpper(strings.Join(h.words, " ")); got != c.want {
			t.Errorf("%q → %q, want %q", c.title, got, c.want)
		}
	}
}

// TestHeadlinesKeepTheirNames: on every seed, a headline has one to five
// words of the title, none of them a stop word, and a bare count never
// stands without the word it counts or names beside it as in the title.
func TestHeadlinesKeepTheirNames(t *testing.T) {
	for _, c := range titles {
		words := tokens(c.title)
		for seed := uint64(0); seed < 20; seed++ {
			h := deriveHeadline(c.title, "", seed, 0)
			if len(h.words) == 0 || len(h.words) > 5 {
				t.Fatalf("%q seed %d: %v", c.title, seed, h.words)
			}
			for i, w := range h.words {
				if stopword(strings.ToLower(w)) {
					t.Errorf("%q seed %d: stop word %q in %v", c.title, seed, w, h.words)
				}
				if kindOf(w, 1, casing{}) != count {
					continue
				}
				// Its neighbour in the title is its neighbour here.
				ok := false
				for j, tw := range words {
					if tw != w {
						continue
					}
					ok = ok || i > 0 && j > 0 && words[j-1] == h.words[i-1] ||
						i+1 < len(h.words) && j+1 < len(words) && words[j+1] == h.words[i+1]
				}
				if !ok {
					t.Errorf("%q seed %d: bare number %q in %v", c.title, seed, w, h.words)
				}
			}
		}
	}
}

// The two titles keep their subjects whatever the seed.
func TestHeadlineKeepsTheSubject(t *testing.T) {
	for seed := uint64(0); seed < 30; seed++ {
		got := strings.Join(deriveHeadline("iPhone 17 Pro vs Galaxy S26 Ultra camera test", "", seed, 0).words, " ")
		if !strings.HasPrefix(got, "iPhone 17") || !strings.Contains(got, "vs") || !strings.Contains(got, "S26") {
			t.Errorf("seed %d: %q", seed, got)
		}
		got = strings.Join(deriveHeadline("What NASA never told you about the shuttle program", "", seed, 0).words, " ")
		if !strings.HasPrefix(got, "NASA never told") {
			t.Errorf("seed %d: %q", seed, got)
		}
	}
}
