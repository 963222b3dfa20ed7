package scene

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// Case is a row of testdata/prompts.json: a natural thumbnail prompt
// (a description, not a title) and what a person reading it expects.
// Fields left empty expect nothing (no background colour, no
// comparison...); objects lists the nouns that must be found (others may
// be).
type Case struct {
	Prompt     string   `json:"prompt"`
	Headline   string   `json:"headline"`
	Background string   `json:"background"`
	Accent     string   `json:"accent"`
	Text       string   `json:"text"`
	Mood       string   `json:"mood"`
	Objects    []string `json:"objects"`
	Compare    string   `json:"compare"`
	Number     string   `json:"number"`
	TextAt     string   `json:"textAt"`
	SubjectAt  string   `json:"subjectAt"`
	CloseUp    bool     `json:"closeUp"`
	PointAt    string   `json:"pointAt"`
}

func readCases(t *testing.T) []Case {
	t.Helper()
	raw, err := os.ReadFile("testdata/prompts.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []Case
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// mismatches lists where s differs from what c expects.
func mismatches(c Case, s Scene) []string {
	var bad []string
	colourIs := func(role string, got *Colour, want string) {
		switch {
		case want == "" && got != nil:
			bad = append(bad, fmt.Sprintf("%s %q, want none", role, got.Name))
		case want != "" && (got == nil || !strings.Contains(got.Name, want)):
			bad = append(bad, fmt.Sprintf("%s %v, want %s", role, got, want))
		}
	}
	colourIs("background", s.Background, c.Background)
	colourIs("accent", s.Accent, c.Accent)
	colourIs("text", s.Text, c.Text)
	if c.Mood != "" && s.Mood != c.Mood {
		bad = append(bad, fmt.Sprintf("mood %q, want %q", s.Mood, c.Mood))
	}
	for _, o := range c.Objects {
		if !slices.Contains(s.Objects, o) {
			bad = append(bad, fmt.Sprintf("objects %v lack %s", s.Objects, o))
		}
	}
	got := ""
	if s.Compare != nil {
		got = s.Compare.Kind
	}
	if got != c.Compare {
		bad = append(bad, fmt.Sprintf("comparison %+v, want %q", s.Compare, c.Compare))
	}
	if c.Number != "" && s.Number != c.Number {
		bad = append(bad, fmt.Sprintf("number %q, want %q", s.Number, c.Number))
	}
	if s.TextAt != c.TextAt {
		bad = append(bad, fmt.Sprintf("text at %q, want %q", s.TextAt, c.TextAt))
	}
	if c.SubjectAt != "" && s.SubjectAt != c.SubjectAt {
		bad = append(bad, fmt.Sprintf("subject at %q, want %q", s.SubjectAt, c.SubjectAt))
	}
	if s.CloseUp != c.CloseUp {
		bad = append(bad, fmt.Sprintf("close-up %v, want %v", s.CloseUp, c.CloseUp))
	}
	if c.PointAt != "" && s.PointAt != c.PointAt {
		bad = append(bad, fmt.Sprintf("points at %q, want %q", s.PointAt, c.PointAt))
	}
	return bad
}

// TestPrompts reads the table's natural prompts: at least 90 % must
// give what a person expects, and no topic may keep a word of art
// direction (compose's TestSceneHeadlines checks the headlines).
func TestPrompts(t *testing.T) {
	cs := readCases(t)
	if len(cs) < 60 {
		t.Fatalf("%d prompts, want at least 60", len(cs))
	}
	pass := 0
	for _, c := range cs {
		s := Parse(c.Prompt, Options{})
		if bad := mismatches(c, s); len(bad) > 0 {
			t.Logf("%q: %s", c.Prompt, strings.Join(bad, "; "))
		} else {
			pass++
		}
		if art := ArtWords(s.Topic); len(art) > 0 {
			t.Errorf("%q: topic %q keeps the art words %q", c.Prompt, s.Topic, art)
		}
	}
	t.Logf("%d of %d prompts as expected", pass, len(cs))
	if pass*10 < len(cs)*9 {
		t.Errorf("%d of %d prompts as expected, want 90 %%", pass, len(cs))
	}
}

// TestTitlesKeepTheirWords: a title used as a prompt has no art
// direction, and its topic is the title whole.
func TestTitlesKeepTheirWords(t *testing.T) {
	for _, title := range []string{
		"I tried living on $1 a day in Tokyo",
		"Black Friday deals on gaming laptops",
		"Dark Souls 3 boss fight without taking damage",
		"Red Dead Redemption 2 secrets you missed",
		"Green energy is cheaper than you think",
		"I left my job to travel the world",
	} {
		s := Parse(title, Options{})
		if s.Topic != title {
			t.Errorf("%q: topic %q", title, s.Topic)
		}
		if s.Background != nil || s.Accent != nil || s.TextAt != "" {
			t.Errorf("%q: art direction found: %+v", title, s)
		}
	}
	for prompt, want := range map[string][]string{
		"Beating Elden Ring with only a fishing rod": nil,
		"What it takes to fly the Space Shuttle":     nil,
		"I Tested 5 Gaming Laptops Under $1000":      {"laptop"},
	} {
		if s := Parse(prompt, Options{}); !slices.Equal(s.Objects, want) {
			t.Errorf("%q: objects %q, want %q", prompt, s.Objects, want)
		}
	}
	if s := Parse("I tried living on $1 a day in Tokyo", Options{}); s.Number != "$1" || !s.Money {
		t.Errorf("number %q money %v", s.Number, s.Money)
	}
}

func TestQuotedWins(t *testing.T) {
	s := Parse(`Close-up of a face, red background, headline "IT BROKE?!" at the top-right`, Options{})
	if s.Quoted != "IT BROKE?!" || s.TextAt != "top-right" || s.Background == nil || !s.CloseUp {
		t.Errorf("%+v", s)
	}
}

// TestLibraryNouns: a noun only an art library knows is an object after
// a determiner or a preposition, not after "to" (a verb).
func TestLibraryNouns(t *testing.T) {
	o := Options{Object: func(n string) bool { return n == "fly" || n == "lightning" }}
	for prompt, want := range map[string][]string{
		"What it takes to fly the Space Shuttle":                  nil,
		"A fly on a birthday cake, blue background":               {"fly", "cake"},
		"A brain made of lightning bolts, dark purple background": {"brain", "lightning"},
	} {
		if s := Parse(prompt, o); !slices.Equal(s.Objects, want) {
			t.Errorf("%q: objects %q, want %q", prompt, s.Objects, want)
		}
	}
}
