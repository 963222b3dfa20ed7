package wordnet_test

import (
	"os"
	"slices"
	"testing"

	"hookline.dev/services/clips/internal/wordnet"
)

func open(t *testing.T) *wordnet.DB {
	t.Helper()
	dir := os.Getenv("HOOKLINE_WORDNET_DIR")
	if dir == "" {
		dir = wordnet.DefaultDir
	}
	db, err := wordnet.Open(dir)
	if err != nil {
		t.Fatalf("%v (scripts/deps.sh unit-tools installs wordnet-base)", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// The database read directly: synonyms from a word's synsets, base forms
// through the exception lists and detachment rules, relations one
// pointer away; an unknown word has none.
func TestWords(t *testing.T) {
	db := open(t)
	for _, c := range []struct {
		word         string
		syn, related []string
	}{
		{"automobiles", []string{"car", "auto", "automobile", "motorcar"}, []string{"convertible", "cab"}},
		{"pricing", []string{"price"}, nil},
		{"funny", []string{"amusing", "comic"}, []string{"joke", "laugh"}},
		{"children", []string{"child", "kid"}, nil},
		{"ran", []string{"run"}, nil},
	} {
		w, err := db.Words(c.word)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.syn {
			if !slices.Contains(w.Synonyms, s) {
				t.Errorf("%s: synonyms %v lack %s", c.word, w.Synonyms, s)
			}
		}
		for _, s := range c.related {
			if !slices.Contains(w.Related, s) {
				t.Errorf("%s: related %v lack %s", c.word, w.Related, s)
			}
		}
		if slices.Contains(w.Synonyms, c.word) || slices.ContainsFunc(append(w.Synonyms, w.Related...), func(s string) bool { return s == "" }) {
			t.Errorf("%s: %+v", c.word, w)
		}
	}
	if w, err := db.Words("iphone"); err != nil || len(w.Synonyms)+len(w.Related) != 0 {
		t.Errorf("iphone: %+v %v", w, err)
	}
	if _, err := wordnet.Open(t.TempDir()); err == nil {
		t.Error("an empty directory opened")
	}
}
