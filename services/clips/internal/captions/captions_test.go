package captions

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// literal reports whether an escaped string can only render as text: every
// backslash is followed by a word joiner or escapes a brace, and no brace
// stands alone.
func literal(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			rest := s[i+1:]
			switch {
			case strings.HasPrefix(rest, "\u2060"):
				i += len("\u2060")
			case strings.HasPrefix(rest, "{"), strings.HasPrefix(rest, "}"):
				i++
			default:
				return false
			}
		case '{', '}', '\n', '\r':
			return false
		}
	}
	return true
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		`{\an8}`:             `\{\` + "\u2060" + `an8\}`,
		`a\Nb`:               `a\` + "\u2060" + `Nb`,
		"two\nline":          "two line",
		`50% [x];'y' %{pts}`: `50% [x];'y' %\{pts\}`,
	} {
		if got := Escape(in); got != want || !literal(got) {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add(`{\an8}\N;[x]'y'%{pts}`)
	f.Add("\\\\{{}}\x00\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !literal(e) {
			t.Fatalf("Escape(%q) = %q can start an override or a break", s, e)
		}
		if utf8.ValidString(s) && strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(e, "\u2060", ""), `\{`, "{"), `\}`, "}") != strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
				return ' '
			}
			return r
		}, s) {
			t.Fatalf("Escape(%q) = %q changes the text", s, e)
		}
	})
}

func words(text string) []Word {
	var ws []Word
	for i, w := range strings.Fields(text) {
		ws = append(ws, Word{Start: float64(i) * 0.4, End: float64(i)*0.4 + 0.35, Text: w})
	}
	return ws
}

func TestLinesAndStyles(t *testing.T) {
	ws := words("one two three four five. six seven eight nine ten eleven twelve")
	for _, max := range []int{3, 6} {
		for _, l := range Lines(ws, max) {
			if len(l) > max {
				t.Errorf("a line of %d words, max %d", len(l), max)
			}
		}
	}
	if ls := Lines(ws, 6); len(ls[0]) != 5 {
		t.Errorf("a line does not end at a sentence's end: %v", ls[0])
	}
	seen := map[string]bool{}
	for _, st := range Styles {
		ass := ASS(Spec{Width: 1080, Height: 1920, Style: st, Words: ws, Keywords: []string{"seven"}, Emphasis: true})
		style := ass[strings.Index(ass, "Style: Caption"):]
		style = style[:strings.IndexByte(style, '\n')]
		if seen[style] {
			t.Errorf("style %s looks like another", st)
		}
		seen[style] = true
		if !strings.Contains(ass, `\c&H`) {
			t.Errorf("style %s: the keyword is not coloured", st)
		}
	}
	if e := ASS(Spec{Width: 1080, Height: 1920, Style: Energetic, Words: ws}); strings.Count(e, "Dialogue:") != len(ws) {
		t.Errorf("energetic highlights each word as it is spoken: %d events for %d words", strings.Count(e, "Dialogue:"), len(ws))
	}
	if srt := SRT(ws, 3); !strings.HasPrefix(srt, "1\n00:00:00,000 --> 00:00:01,150\none two three\n") {
		t.Errorf("srt %q", srt)
	}
}

// TestEmphasisSkipsShortAndStopWords: a keyword's stem shared with a stop
// word or a word under three letters never colours it ("IS" of
// "isolation", "go" of "go-kart"), while the keyword itself is coloured.
func TestEmphasisSkipsShortAndStopWords(t *testing.T) {
	keys := KeywordKeys([]string{"is", "go", "it's", "the isolation", "solar panels"})
	for word, want := range map[string]bool{"IS": false, "is": false, "go": false, "it": false, "IT": false, "Go!": false, "the": false,
		"isolation": true, "Solar": true, "panels,": true, "panel": true, "orbit": false} {
		if got := keys.Emphasises(word); got != want {
			t.Errorf("Emphasises(%q) = %v, want %v", word, got, want)
		}
	}
	ws := []Word{{Start: 0, End: 0.3, Text: "it"}, {Start: 0.3, End: 0.6, Text: "is"}, {Start: 0.6, End: 1, Text: "solar"}}
	for _, st := range Styles {
		ass := ASS(Spec{Width: 1080, Height: 1920, Style: st, Words: ws, Keywords: []string{"is", "it", "solar"}, Emphasis: true})
		lk := looks[st]
		emph := `{\c` + lk.emphasis + `}`
		if strings.Contains(ass, emph+"IS") || strings.Contains(ass, emph+"is") || strings.Contains(ass, emph+"IT") || strings.Contains(ass, emph+"it") {
			t.Errorf("style %s colours a stop word: %s", st, ass[strings.Index(ass, "Dialogue:"):])
		}
		if !strings.Contains(strings.ToLower(ass), strings.ToLower(emph+"solar")) {
			t.Errorf("style %s does not colour the keyword", st)
		}
	}
}

func TestVTTHasTheSRTCuesEscaped(t *testing.T) {
	words := []Word{{Start: 0.5, End: 0.9, Text: "Fish"}, {Start: 0.9, End: 1.4, Text: "&"}, {Start: 1.4, End: 2.0, Text: "<chips>."},
		{Start: 3.1, End: 3.5, Text: "Next"}}
	got := VTT(words, 6)
	want := "WEBVTT\n\n1\n00:00:00.500 --> 00:00:02.000\nFish &amp; &lt;chips&gt;.\n\n2\n00:00:03.100 --> 00:00:03.500\nNext\n\n"
	if got != want {
		t.Errorf("VTT =\n%q\nwant\n%q", got, want)
	}
	if srt := SRT(words, 6); !strings.Contains(srt, "00:00:00,500 --> 00:00:02,000\nFish & <chips>.") {
		t.Errorf("SRT =\n%s", srt)
	}
}
