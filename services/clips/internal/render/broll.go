package render

import (
	"strings"
	"time"
	"unicode/utf8"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/platform/apierr"
)

// Footage is a b-roll clip of the library.
type Footage struct {
	ID, Name  string
	Keywords  []string
	Key       string
	Duration  float64
	SourceURL string
	CreatedAt time.Time
}

// FootageInput is the body of POST /admin/v1/broll.
type FootageInput struct {
	Name     *string
	URL      *string
	Keywords []string
}

// MaxKeywords bounds a footage's keywords.
const MaxKeywords = 20

// ValidateFootage checks footage to add.
func ValidateFootage(in FootageInput) (name, url string, keywords []string, err error) {
	f := apierr.Fields{}
	name, url = nameAndURL(f, in.Name, in.URL, "a video file")
	for _, k := range in.Keywords {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" || utf8.RuneCountInString(k) > 50 {
			f.Add("keywords", "each 1 to 50 characters")
			break
		}
		keywords = append(keywords, k)
	}
	if len(keywords) == 0 || len(keywords) > MaxKeywords {
		f.Add("keywords", "1 to 20 keywords")
	}
	return name, url, keywords, f.Err()
}

// Match finds footage for a keyword phrase: one whose keyword shares a
// content word's stem with it, the most shared first.
func Match(library []Footage, phrase string) (Footage, bool) {
	want := map[string]bool{}
	for _, t := range nlp.Tokens(phrase) {
		if !nlp.IsStopword(t) {
			want[nlp.Stem(t)] = true
		}
	}
	best, score := Footage{}, 0
	for _, f := range library {
		n := 0
		for _, k := range f.Keywords {
			for _, t := range nlp.Tokens(k) {
				if want[nlp.Stem(t)] {
					n++
				}
			}
		}
		if n > score {
			best, score = f, n
		}
	}
	return best, score > 0
}
