package textai

import (
	"fmt"
	"strings"

	"hookline.dev/pkg/ai/nlp"
)

// DefaultTitles and MaxTitles bound a titles request's count.
const (
	DefaultTitles = 10
	MaxTitles     = 20
)

// titleFill is what a title pattern is written from.
type titleFill struct {
	k      string // the main keyword, title-cased
	s      []string
	verb   string // the verb the source uses with the keyword, "" if none
	number string
	minute string // "12 Minutes" when the duration is known
	kind   nlp.ContentType
}

// A form is one wording of a pattern. Forms put the keyword in the first
// half wherever the pattern's grammar allows it.
type form func(f titleFill, s string) string

var forms = map[Pattern][]form{
	HowTo: {
		func(f titleFill, s string) string {
			if f.verb == "" {
				return ""
			}
			return "How to " + titleCase(f.verb) + " " + f.k + ": " + s
		},
		func(f titleFill, s string) string { return f.k + ": How " + s + " Really Works" },
		func(f titleFill, _ string) string { return "How to Get " + f.k + " Right" },
	},
	Number: {
		func(f titleFill, s string) string {
			return f.number + " " + f.k + " " + numberNoun(f.kind) + " (" + s + ")"
		},
		func(f titleFill, s string) string {
			return f.k + ": " + f.number + " " + numberNoun(f.kind) + " About " + s
		},
		func(f titleFill, _ string) string { return f.number + " " + f.k + " " + numberNoun(f.kind) },
	},
	Question: {
		func(f titleFill, s string) string {
			if f.kind == "review" {
				return "Is " + f.k + " Worth It? " + s + " Tested"
			}
			return "Is " + f.k + " Really About " + s + "?"
		},
		func(f titleFill, s string) string { return "Why Does " + f.k + " Need " + s + "?" },
		func(f titleFill, _ string) string { return "What Is " + f.k + ", Really?" },
	},
	Curiosity: {
		func(f titleFill, s string) string { return f.k + ": The " + s + " Detail Everyone Misses" },
		func(f titleFill, s string) string { return "I Tried " + f.k + " — Then " + s + " Happened" },
		func(f titleFill, _ string) string { return f.k + ": Nobody Talks About This" },
	},
	Outcome: {
		func(f titleFill, s string) string {
			if f.minute == "" {
				return ""
			}
			return f.k + " in " + f.minute + ": " + s
		},
		func(f titleFill, s string) string { return "Better " + f.k + " With " + s },
		func(f titleFill, _ string) string { return f.k + " Done Right" },
	},
	Contrarian: {
		func(f titleFill, s string) string { return f.k + " Is Not About " + s },
		func(f titleFill, s string) string { return "Stop Overthinking " + f.k + " (" + s + ")" },
		func(f titleFill, _ string) string { return "You're Doing " + f.k + " Wrong" },
	},
}

var patternWhy = map[Pattern]string{
	HowTo:      "how-to titles match search queries word for word",
	Number:     "a number sets a concrete expectation",
	Question:   "a question invites the viewer to answer it by watching",
	Curiosity:  "a curiosity gap names a payoff without giving it away",
	Outcome:    "an outcome title sells the result, not the process",
	Contrarian: "a contrarian angle stands out among look-alike results",
}

func numberNoun(t nlp.ContentType) string {
	switch t {
	case "tutorial":
		return "Steps"
	case "review":
		return "Reasons"
	case "list":
		return "Picks"
	case "news":
		return "Facts"
	case "story":
		return "Moments"
	case "gaming":
		return "Tricks"
	case "interview":
		return "Lessons"
	}
	return "Ideas"
}

func (l *Local) titles(in TitlesInput) Titles {
	d := measure(in.Source)
	count := in.Count
	if count <= 0 {
		count = DefaultTitles
	}
	k := d.mainKeyword(in.Keywords)
	if k == "" {
		k = "This Video"
	}
	f := titleFill{k: titleCase(k), verb: verbBefore(d.text, k), number: d.number, kind: d.contentType()}
	if f.number == "" {
		f.number = fmt.Sprint(max(3, min(10, countPhrases(d))))
	}
	if d.duration >= 60 {
		f.minute = fmt.Sprintf("%d Minutes", int(d.duration/60+0.5))
	}
	// Secondary phrases: the caller's other keywords first, then the
	// source's phrases that do not repeat the main keyword.
	for _, kw := range in.Keywords[min(1, len(in.Keywords)):] {
		if kw = strings.TrimSpace(kw); kw != "" && !overlaps(kw, k) {
			f.s = append(f.s, titleCase(kw))
		}
	}
	for i := 0; len(f.s) < count+patternsLen; i++ {
		p := d.phrase(i, k)
		if p == "" {
			break
		}
		f.s = append(f.s, titleCase(p))
	}
	out := Titles{Engine: l.Name()}
	seen := map[string]bool{}
	patterns := Patterns()
	// Round r of pattern p uses form r (the best-fitting one first) and
	// the next unused secondary phrase.
	next := 0
	for round := 0; len(out.Titles) < count && round < 3*len(f.s)+3; round++ {
		for _, p := range patterns {
			if len(out.Titles) == count {
				break
			}
			t, ok := writeTitle(f, p, round, &next, seen)
			if !ok {
				continue
			}
			seen[strings.ToLower(t)] = true
			out.Titles = append(out.Titles, Title{Title: t, Pattern: p, Reason: titleReason(d, p, f, k, t)})
		}
	}
	return out
}

// writeTitle writes pattern p for round: the first of its forms, starting
// at form round%len, that fits MaxTitle with some secondary phrase and is
// new.
func writeTitle(f titleFill, p Pattern, round int, next *int, seen map[string]bool) (string, bool) {
	fs := forms[p]
	for i := range fs {
		fm := fs[(round+i)%len(fs)]
		for j := 0; j <= len(f.s); j++ {
			s := ""
			if len(f.s) > 0 {
				s = f.s[(*next+j)%len(f.s)]
			}
			t := strings.Join(strings.Fields(fm(f, s)), " ")
			if t == "" || (s == "" && strings.Contains(t, "  ")) || CodePoints(t) > MaxTitle || seen[strings.ToLower(t)] {
				continue
			}
			if s != "" && strings.Contains(t, s) {
				*next = (*next + j + 1) % max(1, len(f.s))
			}
			return t, true
		}
	}
	return "", false
}

func titleReason(d digest, p Pattern, f titleFill, k, t string) string {
	where := "leads with"
	if i := strings.Index(strings.ToLower(t), strings.ToLower(f.k)); i > len(t)/2 {
		where = "ends on"
	}
	return fmt.Sprintf("%s: %s; %s “%s” (%s), %d characters.", capitalise(string(p)), patternWhy[p], where, k, evidence(d, k), CodePoints(t))
}

// verbBefore is the word the source most often says right before the
// keyword when it is not a function word ("feed" in "feed your starter"
// is found as the word before "your starter" is skipped): the verb of a
// how-to title. "" when the source never does.
func verbBefore(text, keyword string) string {
	kw := nlp.Tokens(keyword)
	if len(kw) == 0 {
		return ""
	}
	toks := nlp.Tokens(text)
	counts := map[string]int{}
	for i := 1; i+len(kw) <= len(toks); i++ {
		match := true
		for j, w := range kw {
			if toks[i+j] != w {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		// The verb comes before a determiner or possessive ("replace the
		// chain"); a word right before the keyword is usually part of the
		// noun ("bicycle chain").
		b := i - 1
		if b == 0 || !determiners[toks[b]] {
			continue
		}
		b--
		if w := toks[b]; !nlp.IsStopword(w) && len(w) > 2 && !strings.HasSuffix(w, "ly") && !determiners[w] {
			counts[w]++
		}
	}
	best, n := "", 1
	for w, c := range counts {
		if c > n || (c == n && best != "" && w < best) {
			best, n = w, c
		}
	}
	return best
}

var determiners = map[string]bool{"a": true, "an": true, "the": true, "your": true, "my": true, "our": true, "their": true, "this": true, "that": true, "his": true, "her": true}
