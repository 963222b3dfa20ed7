package textai

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"hookline.dev/pkg/ai/nlp"
)

// Tags and hashtags.
const (
	maxTags       = 30
	maxHashtagLen = 30
)

func (l *Local) description(in DescriptionInput) Description {
	src := in.Source
	if src.Title == "" {
		src.Title = in.Title
	}
	d := measure(src)
	out := Description{Engine: l.Name()}
	out.Chapters, out.ChaptersEstimated = chapters(src)
	out.Tags = tags(d, in.Keywords)
	out.Hashtags = hashtags(d, in.Keywords)
	out.Description = composeDescription(hookLine(d, in.Title), summaryText(d, 700), out.Chapters, in.Links, out.Hashtags)
	return out
}

// hookLine is the description's first line: the source's strongest hook
// sentence, else the title with the summary's first sentence.
func hookLine(d digest, title string) string {
	if d.hook != "" {
		return clip(d.hook, MaxHookLine)
	}
	line := strings.TrimSpace(title)
	if len(d.summary) > 0 {
		line += " — " + strings.TrimSpace(d.summary[0].Text)
	}
	return clip(line, MaxHookLine)
}

// composeDescription lays the parts out the way the site shows them: the
// first line is what search results and the collapsed view display.
func composeDescription(hook, summary string, chs []Chapter, links []Link, hashtags []string) string {
	var b strings.Builder
	b.WriteString(hook)
	if summary != "" && summary != hook {
		b.WriteString("\n\n")
		b.WriteString(summary)
	}
	if len(chs) > 0 {
		b.WriteString("\n\nChapters:\n")
		for _, c := range chs {
			fmt.Fprintf(&b, "%s %s\n", Timestamp(c.Start), c.Title)
		}
	}
	if len(links) > 0 {
		b.WriteString("\n\nLinks:\n")
		for _, l := range links {
			if l.Title != "" {
				fmt.Fprintf(&b, "%s: %s\n", l.Title, l.URL)
			} else {
				fmt.Fprintf(&b, "%s\n", l.URL)
			}
		}
	}
	if len(hashtags) > 0 {
		b.WriteString("\n\n")
		b.WriteString(strings.Join(hashtags, " "))
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "\n\n\n", "\n\n"))
}

// Timestamp formats seconds as the site's chapter stamps: m:ss, or h:mm:ss.
func Timestamp(sec float64) string {
	s := int(math.Floor(sec))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// chapters are the video's own chapters when it has them; else topic
// sections of the timed captions; else sections of a plain transcript
// dated at WordsPerMinute (estimated).
func chapters(src Source) ([]Chapter, bool) {
	if len(src.Chapters) > 0 {
		return src.Chapters, false
	}
	segs, estimated := src.Segments, false
	if len(segs) == 0 {
		segs, estimated = paceTranscript(src.Text), true
	}
	if len(segs) < 2 {
		return nil, estimated
	}
	secs := nlp.Segment(segs, MinChapterGap)
	if len(secs) < 2 {
		return nil, estimated
	}
	out := make([]Chapter, 0, len(secs))
	var used []string
	for i, s := range secs {
		start := s.Start
		if i == 0 {
			start = 0
		}
		if len(out) > 0 && start-out[len(out)-1].Start < MinChapterGap {
			continue
		}
		title := chapterTitle(s, used)
		used = append(used, title)
		out = append(out, Chapter{Start: math.Floor(start), Title: title})
	}
	if len(out) < 2 {
		return nil, estimated
	}
	return out, estimated
}

// chapterTitle is the section's strongest key phrase not already a
// chapter's title, title-cased.
func chapterTitle(s nlp.Section, used []string) string {
	for _, p := range s.Phrases {
		if !overlaps(p.Text, used...) {
			return titleCase(p.Text)
		}
	}
	if len(s.Phrases) > 0 {
		return titleCase(s.Phrases[0].Text)
	}
	return titleCase(firstWords(s.Text, 4))
}

// paceTranscript dates a plain transcript's sentences at WordsPerMinute.
func paceTranscript(text string) []nlp.Timed {
	var out []nlp.Timed
	words := 0
	for _, s := range nlp.Sentences(text) {
		n := len(strings.Fields(s.Text))
		start := float64(words) * 60 / WordsPerMinute
		words += n
		out = append(out, nlp.Timed{Start: start, End: float64(words) * 60 / WordsPerMinute, Text: s.Text})
	}
	return out
}

// tags: the caller's keywords, then key phrases and keywords, lower-case,
// without repeats, within MaxTagsTotal characters joined with commas.
func tags(d digest, keywords []string) []string {
	var out []string
	seen := map[string]bool{}
	total := 0
	add := func(t string) {
		t = strings.ToLower(strings.Join(strings.Fields(t), " "))
		t = strings.Map(func(r rune) rune {
			if r == ',' || r == '<' || r == '>' {
				return -1
			}
			return r
		}, t)
		if t == "" || seen[t] || len(out) >= maxTags {
			return
		}
		n := CodePoints(t)
		if len(out) > 0 {
			n++ // the comma
		}
		if total+n > MaxTagsTotal {
			return
		}
		seen[t] = true
		total += n
		out = append(out, t)
	}
	for _, k := range keywords {
		add(k)
	}
	for _, p := range d.phrases {
		add(p.Text)
	}
	for _, k := range d.keywords {
		add(k.Text)
	}
	return out
}

// hashtags: 3–5 CamelCase tags from the keywords and key phrases.
func hashtags(d digest, keywords []string) []string {
	var cands []string
	cands = append(cands, keywords...)
	for _, p := range d.phrases {
		cands = append(cands, p.Text)
	}
	for _, k := range d.keywords {
		cands = append(cands, k.Text)
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		h := hashtag(c)
		if h == "" || seen[strings.ToLower(h)] {
			continue
		}
		seen[strings.ToLower(h)] = true
		out = append(out, h)
		if len(out) == MaxHashtags {
			break
		}
	}
	return out
}

func hashtag(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		rs := []rune(strings.ToLower(w))
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	if b.Len() == 0 || CodePoints(b.String()) > maxHashtagLen {
		return ""
	}
	return "#" + b.String()
}
