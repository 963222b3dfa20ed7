package censor_test

import (
	"slices"
	"strings"
	"testing"

	"hookline.dev/services/clips/internal/censor"
)

func TestBuiltinListMatchesWordsAndPhrases(t *testing.T) {
	l := censor.Builtin()
	if l.Len() < 400 {
		t.Fatalf("the built-in list has %d entries, want the LDNOOBW list's 400 or so", l.Len())
	}
	words := strings.Fields("Well, Shit! that was a blow job of a bastard, said the assassin")
	got := l.Match(words)
	want := []bool{false, true, false, false, false, true, true, false, false, true, false, false, false}
	if !slices.Equal(got, want) {
		t.Errorf("Match(%q) = %v, want %v (single words with punctuation and case, a two-word phrase, no match inside a longer word)", words, got, want)
	}
}

func TestOrganizationWordsExtendTheList(t *testing.T) {
	l := censor.Builtin().With([]string{"zorbly", "gloop snarf"})
	got := l.Match(strings.Fields("the zorbly gloop snarf gloop"))
	if want := []bool{false, true, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("Match = %v, want %v", got, want)
	}
	if censor.Builtin().Match([]string{"zorbly"})[0] {
		t.Error("With changed the built-in list")
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{"Fuck,": "F***,", "shit": "s***", "\"ass\"": "\"a**\"", "g-spot": "g-****"} {
		if got := censor.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordsValidation(t *testing.T) {
	got, err := censor.Words([]string{"  Zorbly ", "zorbly", "gloop   snarf"})
	if err != nil || !slices.Equal(got, []string{"zorbly", "gloop snarf"}) {
		t.Errorf("Words = %v, %v", got, err)
	}
	for _, bad := range [][]string{{""}, {"!!!"}, {strings.Repeat("a", 61)}, {"a b c d e f"}, make([]string, 501)} {
		if _, err := censor.Words(bad); err == nil || !strings.Contains(err.Error(), "words") {
			t.Errorf("Words(%.40q) = %v, want an error naming words", bad, err)
		}
	}
	if m, ok := censor.ParseMode("bleep"); !ok || m != censor.Bleep {
		t.Error("bleep is a mode")
	}
	if _, ok := censor.ParseMode("beep"); ok {
		t.Error("beep is not a mode")
	}
}

func TestMaskText(t *testing.T) {
	got := censor.Builtin().MaskText("  Holy shit, a  blow job! ")
	if want := "  Holy s***, a  b*** j**! "; got != want {
		t.Errorf("MaskText = %q, want %q", got, want)
	}
}
