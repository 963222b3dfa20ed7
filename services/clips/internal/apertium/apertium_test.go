package apertium

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/translate"
)

// installed is the Apertium of this machine (scripts/deps.sh translation).
func installed(t *testing.T) *Apertium {
	t.Helper()
	if _, err := exec.LookPath("apertium"); err != nil {
		testkit.Missing(t, "apertium is not installed (scripts/deps.sh translation)")
	}
	a, err := New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPairsAreTheInstalledOnes(t *testing.T) {
	a := installed(t)
	got := a.Targets("en")
	if !slices.Contains(got, "es") {
		t.Fatalf("English targets %v lack Spanish (apertium-eng-spa)", got)
	}
	for _, l := range got {
		if len(l) != 2 {
			t.Errorf("target %q is not ISO 639-1", l)
		}
	}
	if _, err := New(context.Background(), "/nonexistent/apertium"); err == nil {
		t.Error("a missing apertium gave an engine")
	}
}

func TestTranslateKeepsUnknownWordsNumbersAndNames(t *testing.T) {
	a := installed(t)
	ws := []string{"Pay yourself first and move ten percent to savings on payday.", "The render takes 25 minutes, says Apple."}
	var ss []translate.Sentence
	for _, s := range ws {
		ss = append(ss, translate.Sentence{Text: s, Keep: translate.Protected(strings.Fields(s))})
	}
	got, err := a.Translate(context.Background(), "en", "es", ss)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%q", got)
	if len(got) != 2 || !strings.Contains(got[0], "diez por ciento") {
		t.Fatalf("translation %q", got)
	}
	// "render" is unknown to the pair (it comes back "*render"): the
	// spoken word stands; the number and the name ("Apple" would be
	// "Manzana") come back as they are.
	for _, w := range []string{"render", "25", "Apple"} {
		if !strings.Contains(got[1], w) {
			t.Errorf("%q lacks %q", got[1], w)
		}
	}
	if strings.ContainsAny(got[1], "*#@") || strings.Contains(got[1], "Manzana") || strings.Contains(got[1], "Hlq") {
		t.Errorf("%q has a mark, a translated name or a placeholder", got[1])
	}
	// Sentences without punctuation (a sidecar's captions) stay apart:
	// Apertium moves words across a bare line break.
	bare := []string{"the secret is to never touch that account", "start today and thank yourself next year"}
	got, err = a.Translate(context.Background(), "en", "es", []translate.Sentence{{Text: bare[0]}, {Text: bare[1]}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%q", got)
	if !strings.HasSuffix(got[0], "cuenta") || strings.Contains(got[1], "cuenta") || strings.HasSuffix(got[0], ".") || got[0][0] != 'e' {
		t.Errorf("unpunctuated sentences %q", got)
	}
	if _, err := a.Translate(context.Background(), "en", "xx", ss); err == nil {
		t.Error("en→xx translated")
	}
}
