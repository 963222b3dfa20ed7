package critique

import (
	"bytes"
	"context"
	"image/jpeg"
	"strings"
	"sync"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/generate/compose"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// composer draws the renders the OCR is measured on: it is safe for
// concurrent use.
var composer = sync.OnceValues(func() (*compose.Engine, error) { return compose.New(compose.Options{}) })

// Least word recall over the composed headlines, at full size and at
// mobile size (the headlines are set 0.24–0.32 of the short side: they
// are legible on a phone).
const (
	minFullRecall   = 0.8
	minMobileRecall = 0.8
)

// TestReadsComposedHeadlines reads headlines the compositor sets (its
// built-in layouts, picked by the seed: Bebas Neue capitals with a dark
// outline and shadow, one word highlighted) over the evaluation photos,
// and counts the words of the known text read as words: a word read
// joined to its neighbour ("WEHAVE") or without a letter ("THS") is
// missed.
func TestReadsComposedHeadlines(t *testing.T) {
	if testing.Short() {
		t.Skip("composes and OCRs headlines over every evaluation photo: make test runs it")
	}
	e, err := composer()
	if err != nil {
		t.Fatal(err)
	}
	headlines := []string{"HOUSTON WE HAVE A PROBLEM", "I TRIED IT FOR 30 DAYS", "BEST ESPRESSO EVER",
		"THIS CHANGES EVERYTHING", "WE WENT TO SPACE", "DO NOT BUY THIS"}
	photos := []string{"astronaut.png", "rocket.jpg", "coffee.png", "camera.png", "chelsea.png", "plant.jpg"}
	var words, full, mobile int
	for i, photo := range photos {
		for j, text := range headlines {
			if (i+j)%2 == 1 {
				continue // half the pairs: every photo and every headline three times
			}
			res, err := e.Generate(context.Background(), engine.Request{Headline: text, Aspect: thumbnail.Landscape,
				Seed: uint64(i*7 + j), References: []engine.Picture{{Data: testkit.EvalPhotoBytes(t, photo)}}}) //nolint:gosec // G115: small indices
			if err != nil {
				t.Fatal(err)
			}
			img, err := jpeg.Decode(bytes.NewReader(res.Data))
			if err != nil {
				t.Fatal(err)
			}
			rd, err := read(context.Background(), reader(t), img)
			if err != nil {
				t.Fatal(err)
			}
			f, m := found(text, rd.Words), found(text, rd.MobileWords)
			words, full, mobile = words+len(strings.Fields(text)), full+f, mobile+m
			t.Logf("%s %q: read %q, at mobile size %q", photo, text, rd.Words, rd.MobileWords)
		}
	}
	fr, mr := float64(full)/float64(words), float64(mobile)/float64(words)
	t.Logf("word recall: %.2f at full size, %.2f at mobile size (%d words)", fr, mr, words)
	if fr < minFullRecall || mr < minMobileRecall {
		t.Errorf("word recall %.2f at full size, %.2f at mobile size; want at least %.2f and %.2f",
			fr, mr, minFullRecall, minMobileRecall)
	}
}

// found is how many words of text are among read (each read word counts
// once).
func found(text string, read []string) int {
	left := map[string]int{}
	for _, w := range read {
		left[strings.ToUpper(w)]++
	}
	n := 0
	for _, w := range strings.Fields(text) {
		if left[w] > 0 {
			left[w]--
			n++
		}
	}
	return n
}
