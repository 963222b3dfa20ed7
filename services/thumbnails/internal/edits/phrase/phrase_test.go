package phrase

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func keys(toks []Token) string {
	var out []string
	for _, t := range toks {
		s := t.Key
		if t.Quoted {
			s = "«" + t.Text + "»"
		}
		if t.Break {
			s += "|"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestSplit(t *testing.T) {
	for prompt, want := range map[string]string{
		"Vintage film look, with GRAIN!":       "vintage film look| with grain|",
		`add text "HELLO  there" top`:          "add text «HELLO there» top|",
		"put 'SALE' at the top, don't flip it": "put «SALE» at the top| don't flip it|",
		"it’s the kids' room":                  "it's the kids room|",
		"b&w 16:9 #FF8800 1.5x":                "b&w 16:9 #ff8800 1.5x|",
		"Batman vs. Superman":                  "batman vs superman|",
		`an "unclosed quote`:                   "an unclosed quote|",
		"“curly” and ‘single’":                 "«curly» and «single»|",
		"a\nb;c":                               "a| b| c|",
		"":                                     "",
	} {
		if got := keys(Split(prompt)); got != want {
			t.Errorf("%q: %q, want %q", prompt, got, want)
		}
	}
}

func scan(v *Vocab[string], prompt string) string {
	var out []string
	for _, h := range v.Scan(Split(prompt)) {
		s := h.Value
		if h.Negated {
			s = "!" + s
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestScan(t *testing.T) {
	var v Vocab[string]
	v.Add("grain", "grain, film grain, grainy")
	v.Add("bw", "black and white, b&w")
	v.Add("blur", "blur background")
	v.AddModifier("slightly", "slightly, a bit")
	v.AddFunc(true, func(toks []Token, i int) (string, int) {
		if _, n := Colour(toks, i); n > 0 {
			return "colour", n
		}
		return "", 0
	})
	for prompt, want := range map[string]string{
		"black and white with film grain":          "bw grain",
		"Blur the background":                      "blur",
		"blur, background":                         "",
		"no grain":                                 "!grain",
		"black and white but no grain":             "bw !grain",
		"don't add any film grain, b&w":            "!grain bw",
		"without grain or black and white":         "!grain !bw",
		"no idea what I want but grainy":           "grain",
		"not slightly grainy":                      "slightly !grain",
		"dark blue and black and white":            "colour bw",
		"black":                                    "colour",
		"no grain and then black and white please": "!grain bw",
	} {
		if got := scan(&v, prompt); got != want {
			t.Errorf("%q: %q, want %q", prompt, got, want)
		}
	}
}

func TestStrong(t *testing.T) {
	var v Vocab[string]
	v.AddWeak("cool", "cool")
	v.Add("vintage", "vintage")
	for prompt, want := range map[string]int{"cool": 1, "a cool vintage look": 1, "no vintage, cool": 1, "no cool": 0} {
		if got := len(Strong(v.Scan(Split(prompt)))); got != want {
			t.Errorf("%q: %d hits, want %d", prompt, got, want)
		}
	}
}

// Prompts are untrusted: any text splits and scans without a panic, into
// tokens that are never empty and hits in order that do not overlap, and
// the work is bounded by the prompt's length (each token is visited once
// per phrasing that starts with it).
func FuzzSplitScan(f *testing.F) {
	for _, s := range []string{"vintage film look with grain", `add text "HI" top`, "put 'SALE'", "no grain or b&w",
		"'", `"`, "‘’", "vs.", "1.5.5", "\xff\xfe", strings.Repeat("black and ", 50)} {
		f.Add(s)
	}
	var v Vocab[string]
	v.Add("bw", "black and white, b & w")
	v.Add("grain", "grain, film grain")
	v.AddFunc(false, func(toks []Token, i int) (string, int) {
		if _, n := Colour(toks, i); n > 0 {
			return "colour", n
		}
		return "", 0
	})
	f.Fuzz(func(t *testing.T, prompt string) {
		toks := Split(prompt)
		if len(toks) > utf8.RuneCountInString(prompt) {
			t.Fatalf("%d tokens from %d runes", len(toks), utf8.RuneCountInString(prompt))
		}
		for _, tok := range toks {
			if tok.Text == "" || !tok.Quoted && tok.Key == "" {
				t.Fatalf("empty token in %q: %+v", prompt, toks)
			}
		}
		end := 0
		for _, h := range v.Scan(toks) {
			if h.Start < end || h.End <= h.Start || h.End > len(toks) {
				t.Fatalf("hit %+v after %d of %d tokens", h, end, len(toks))
			}
			end = h.End
		}
	})
}
