package fluentemoji

import (
	"errors"
	"os"
	"testing"

	"hookline.dev/pkg/testkit"
)

func TestOpenMissing(t *testing.T) {
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrMissing) {
		t.Fatalf("Open of an empty directory: %v, want ErrMissing", err)
	}
}

// TestFind: nouns name the emoji a designer would pick, by alias, label
// or tag; a noun with none finds nothing.
func TestFind(t *testing.T) {
	dir := os.Getenv("HOOKLINE_EMOJI_DIR")
	if dir == "" {
		testkit.Missing(t, "the object art is not installed: scripts/deps.sh emoji, then HOOKLINE_EMOJI_DIR")
	}
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for noun, want := range map[string]string{
		"laptop": "1f4bb.webp", "rocket": "1f680.webp", "money": "1f4b0.webp", "cat": "1f408.webp",
		"pizza": "1f355.webp", "trophy": "1f3c6.webp", "credit-card": "1f4b3.webp", "coffee": "2615.webp",
	} {
		name, data, ok, err := l.Find(noun)
		if err != nil || !ok || name != want || len(data) == 0 {
			t.Errorf("Find(%q) = %q, %d bytes, %v, %v; want %s", noun, name, len(data), ok, err, want)
		}
	}
	for _, noun := range []string{"tokyo", "living", "card", "zorblax"} {
		if l.Names(noun) {
			t.Errorf("Names(%q): want no emoji named so", noun)
		}
	}
	if _, _, ok, _ := l.Find("zorblax"); ok {
		t.Error("Find(zorblax) found art")
	}
}
