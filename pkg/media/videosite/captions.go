package videosite

import (
	"encoding/json"
	"errors"
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Segment is a timed caption: seconds, text and, where the track has
// them, word timings.
type Segment struct {
	Start, End float64
	Text       string
	Words      []Word
}

// Word is a timed word.
type Word struct {
	Start, End float64
	Text       string
	// Confidence is how sure the speech recogniser that heard the word
	// is, 0..1 (pocketsphinx's posterior probability). Words a person or
	// the site wrote (captions) are certain: 1.
	Confidence float64
}

// Certain is the confidence of a word nobody had to guess: a caption.
const Certain = 1.0

// Chapter is a chapter marker of a video.
type Chapter struct {
	Start float64
	Title string
}

var errCaptionFormat = errors.New("videosite: not a caption file")

// parseJSON3 reads the site's json3 caption format: events with tStartMs,
// dDurationMs and segs of utf8 text with tOffsetMs (word timing on
// automatic tracks).
func parseJSON3(data []byte) ([]Segment, error) {
	var doc struct {
		Events []struct {
			TStartMs    float64 `json:"tStartMs"`
			DDurationMs float64 `json:"dDurationMs"`
			Segs        []struct {
				UTF8      string   `json:"utf8"`
				TOffsetMs *float64 `json:"tOffsetMs"`
			} `json:"segs"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Events == nil {
		return nil, errCaptionFormat
	}
	var out []Segment
	for _, e := range doc.Events {
		start, end := e.TStartMs/1000, (e.TStartMs+e.DDurationMs)/1000
		var text strings.Builder
		var words []Word
		for _, s := range e.Segs {
			if strings.TrimSpace(s.UTF8) == "" {
				continue
			}
			text.WriteString(s.UTF8)
			at := start
			if s.TOffsetMs != nil {
				at = start + *s.TOffsetMs/1000
			}
			if w := cleanText(s.UTF8); w != "" {
				words = append(words, Word{Start: at, Text: w, Confidence: Certain})
			}
		}
		t := cleanText(text.String())
		if t == "" {
			continue
		}
		for i := range words {
			words[i].End = end
			if i+1 < len(words) {
				words[i].End = words[i+1].Start
			}
		}
		if len(words) < 2 {
			words = nil // one chunk of text is not word timing
		}
		out = append(out, Segment{Start: start, End: end, Text: t, Words: words})
	}
	return out, nil
}

var (
	cueTime   = regexp.MustCompile(`^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})`)
	inlineTag = regexp.MustCompile(`<(\d+:)?\d{1,2}:\d{2}\.\d{3}>`)
	anyTag    = regexp.MustCompile(`<[^>]*>`)
)

// ParseVTT reads WebVTT (and, with comma decimals and cue numbers, SRT):
// cues with their text, tags removed; inline <00:00:01.000> timestamps
// become word timings.
func ParseVTT(data []byte) ([]Segment, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []Segment
	found := false
	for i := 0; i < len(lines); i++ {
		m := cueTime.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		found = true
		start, ok1 := clock(m[1])
		end, ok2 := clock(m[2])
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			body = append(body, lines[i])
		}
		if !ok1 || !ok2 || end < start {
			continue
		}
		raw := strings.Join(body, " ")
		words := inlineWords(raw, start, end)
		t := cleanText(anyTag.ReplaceAllString(raw, ""))
		if t == "" {
			continue
		}
		out = append(out, Segment{Start: start, End: end, Text: t, Words: words})
	}
	if !found {
		return nil, errCaptionFormat
	}
	return dedupeRolling(out), nil
}

// inlineWords reads "<00:00:01.000><c> word</c>" timings of automatic
// VTT tracks.
func inlineWords(raw string, start, end float64) []Word {
	idx := inlineTag.FindAllStringIndex(raw, -1)
	if len(idx) == 0 {
		return nil
	}
	var words []Word
	at, prev := start, 0
	flush := func(text string, from float64) {
		for _, w := range strings.Fields(anyTag.ReplaceAllString(text, "")) {
			if w = cleanText(w); w != "" {
				words = append(words, Word{Start: from, Text: w, Confidence: Certain})
			}
		}
	}
	for _, ix := range idx {
		flush(raw[prev:ix[0]], at)
		if t, ok := clock(strings.Trim(raw[ix[0]:ix[1]], "<>")); ok {
			at = t
		}
		prev = ix[1]
	}
	flush(raw[prev:], at)
	for i := range words {
		words[i].End = end
		if i+1 < len(words) {
			words[i].End = words[i+1].Start
		}
	}
	return words
}

// dedupeRolling drops a cue whose text only repeats the previous one
// (automatic tracks roll each line through two cues).
func dedupeRolling(segs []Segment) []Segment {
	out := segs[:0]
	for _, s := range segs {
		if n := len(out); n > 0 && out[n-1].Text == s.Text {
			out[n-1].End = s.End
			continue
		}
		out = append(out, s)
	}
	return out
}

// ParseSRT reads SubRip captions.
func ParseSRT(data []byte) ([]Segment, error) { return ParseVTT(data) }

func clock(s string) (float64, bool) {
	s = strings.ReplaceAll(s, ",", ".")
	parts := strings.Split(s, ":")
	total := 0.0
	for _, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 {
			return 0, false
		}
		total = total*60 + v
	}
	return total, true
}

// cleanText is caption text as one sanitised line, its HTML entities
// decoded first (an entity can spell a control character, "&#1;").
func cleanText(s string) string { return SanitizeLine(html.UnescapeString(s)) }

var chapterLine = regexp.MustCompile(`^\s*[\[(]?((?:\d{1,2}:)?\d{1,2}:\d{2})[\])]?\s*[-–—:|]?\s*(.+?)\s*$`)

// ParseChapters reads the chapters of a video description: lines
// starting with a timestamp ("0:00 Intro", "1:02:03 - Outro"). As on the
// site, they count only when the first is at 0:00 and there are at least
// three, in increasing order.
func ParseChapters(description string) []Chapter {
	var out []Chapter
	for _, line := range strings.Split(description, "\n") {
		m := chapterLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		t, ok := clock(m[1])
		if !ok {
			continue
		}
		out = append(out, Chapter{Start: t, Title: m[2]})
	}
	if len(out) < 3 || out[0].Start != 0 || !sort.SliceIsSorted(out, func(i, j int) bool { return out[i].Start < out[j].Start }) {
		return nil
	}
	for i := 1; i < len(out); i++ {
		if out[i].Start <= out[i-1].Start {
			return nil
		}
	}
	return out
}
