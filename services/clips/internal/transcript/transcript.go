// Package transcript is a project's transcript as a resource: the words
// of its prepared source, each with an id that is its index in the
// original recognition (or captions) and so stable across every edit; the
// creator's edits over them (a word's text replaced, ranges of words
// deleted and restored), versioned for optimistic concurrency; and the
// custom vocabulary whose terms replace the recognised words that sound or
// are spelled close to them. Renders caption the edited words and cut the
// deleted ones out of the picture and the sound (Clip).
package transcript

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/media/videosite"
)

// ErrStale: the transcript changed since the version the edit was based
// on (If-Match names an older ETag).
var ErrStale = errors.New("transcript: stale version")

// Word is a word of the transcript.
type Word struct {
	// ID is the word's index in the original recognition.
	ID         int
	Start, End float64
	Text       string
	Confidence float64
	// Deleted words are left out of captions and cut from renders.
	Deleted bool
	// MergedInto is the id of the word a multi-word vocabulary match
	// folded this one into, -1 when none: such a word is not listed.
	MergedInto int
}

// Segment is a stretch of the transcript (a caption cue or a recognised
// sentence) over the words FirstWord..LastWord (ids, inclusive); its
// text and times are those of its words that are not deleted.
type Segment struct {
	Start, End          float64
	Text                string
	FirstWord, LastWord int
}

// Range is a run of word ids, both ends included.
type Range struct{ From, To int }

// Edits are a creator's changes to a transcript, at a version (1 before
// any edit).
type Edits struct {
	Version int
	// Text replaces a word's text, by id.
	Text map[int]string
	// Deleted are the deleted ranges, sorted, disjoint and apart.
	Deleted []Range
	// Vocabulary are the project's custom terms.
	Vocabulary []string
}

// Transcript is a source's words with a project's edits applied.
type Transcript struct {
	Version    int
	Vocabulary []string
	// Words are every word by id (Words[i].ID == i), merged ones included.
	Words    []Word
	Segments []Segment
	// original are the words as recognised; source the segments that hold
	// any, spans their id ranges.
	original []Word
	source   []videosite.Segment
	spans    []Range
	edits    Edits
}

// Build applies e to the source's segments: the words are numbered in
// order (a segment without word timings has its text's words spread
// evenly over it), the vocabulary replaces close words, then the edits'
// texts and deletions apply.
func Build(segs []videosite.Segment, e Edits) Transcript {
	var t Transcript
	for _, s := range segs {
		words := s.Words
		if len(words) == 0 {
			fields := strings.Fields(s.Text)
			per := (s.End - s.Start) / float64(max(1, len(fields)))
			for i, f := range fields {
				words = append(words, videosite.Word{Start: s.Start + float64(i)*per, End: s.Start + float64(i+1)*per, Text: f, Confidence: videosite.Certain})
			}
		}
		if len(words) == 0 {
			continue // nothing said: nothing to caption, edit or rank
		}
		first := len(t.original)
		for _, w := range words {
			t.original = append(t.original, Word{ID: len(t.original), Start: w.Start, End: w.End, Text: w.Text, Confidence: w.Confidence, MergedInto: -1})
		}
		t.source = append(t.source, s)
		t.spans = append(t.spans, Range{From: first, To: len(t.original) - 1})
	}
	t.apply(e)
	return t
}

// apply rebuilds t's words and segments from the original words and e.
func (t *Transcript) apply(e Edits) {
	if e.Version <= 0 {
		e.Version = 1
	}
	t.edits, t.Version, t.Vocabulary = e, e.Version, e.Vocabulary
	t.Words = slices.Clone(t.original)
	for _, m := range matchVocabulary(t.original, e.Vocabulary) {
		first, last := &t.Words[m.from], t.original[m.to-1]
		lead, _ := punctuation(first.Text)
		_, trail := punctuation(last.Text)
		first.Text, first.End = lead+m.term+trail, last.End
		for k := m.from + 1; k < m.to; k++ {
			t.Words[k].MergedInto = m.from
			first.Confidence = min(first.Confidence, t.Words[k].Confidence)
		}
	}
	for id, text := range e.Text {
		if id >= 0 && id < len(t.Words) {
			t.Words[id].Text = text
		}
	}
	for _, r := range e.Deleted {
		for id := max(0, r.From); id <= min(r.To, len(t.Words)-1); id++ {
			t.Words[id].Deleted = true
		}
	}
	t.Segments = make([]Segment, 0, len(t.spans))
	for _, sp := range t.spans {
		s := Segment{FirstWord: sp.From, LastWord: sp.To, Start: t.Words[sp.From].Start, End: t.Words[sp.To].End}
		var text []string
		kept := false
		for _, w := range t.Words[sp.From : sp.To+1] {
			if w.MergedInto >= 0 || w.Deleted {
				continue
			}
			if !kept {
				s.Start, kept = w.Start, true
			}
			s.End = w.End
			text = append(text, w.Text)
		}
		s.Text = strings.Join(text, " ")
		t.Segments = append(t.Segments, s)
	}
}

// punctuation is the punctuation before and after a word's letters.
func punctuation(s string) (lead, trail string) {
	i := strings.IndexFunc(s, isWordRune)
	if i < 0 {
		return "", ""
	}
	j := strings.LastIndexFunc(s, isWordRune)
	_, size := utf8.DecodeRuneInString(s[j:])
	return s[:i], s[j+size:]
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Edits are the edits t was built with.
func (t Transcript) Edits() Edits { return t.edits }

// Listed are the words a client sees: all but those merged into a
// vocabulary term.
func (t Transcript) Listed() []Word {
	out := make([]Word, 0, len(t.Words))
	for _, w := range t.Words {
		if w.MergedInto < 0 {
			out = append(out, w)
		}
	}
	return out
}

// Kept are the words captions show: listed and not deleted.
func (t Transcript) Kept() []Word {
	out := make([]Word, 0, len(t.Words))
	for _, w := range t.Words {
		if w.MergedInto < 0 && !w.Deleted {
			out = append(out, w)
		}
	}
	return out
}

// Edited is the transcript as segments of its kept words, for ranking
// moments on what is now said: a segment none of whose words changed is
// the source's as it was.
func (t Transcript) Edited() []videosite.Segment {
	out := make([]videosite.Segment, 0, len(t.Segments))
	for i, s := range t.Segments {
		if !t.changed(s) {
			out = append(out, t.source[i])
			continue
		}
		var words []videosite.Word
		for _, w := range t.Words[s.FirstWord : s.LastWord+1] {
			if w.MergedInto < 0 && !w.Deleted {
				words = append(words, videosite.Word{Start: w.Start, End: w.End, Text: w.Text, Confidence: w.Confidence})
			}
		}
		if len(words) > 0 {
			out = append(out, videosite.Segment{Start: s.Start, End: s.End, Text: s.Text, Words: words})
		}
	}
	return out
}

// changed reports whether any word of s differs from its recognition.
func (t Transcript) changed(s Segment) bool {
	for id := s.FirstWord; id <= s.LastWord; id++ {
		w, o := t.Words[id], t.original[id]
		if w.Deleted || w.MergedInto >= 0 || w.Text != o.Text || w.End != o.End {
			return true
		}
	}
	return false
}

// Span is a stretch of time, seconds.
type Span struct{ From, To float64 }

// maxCutLead is the most of the pause before a deleted run a cut starts
// inside (and so the most of the pause before the next kept word it
// leaves): the cut falls in silence on both sides, and the deleted words
// go with the pause that followed them.
const maxCutLead = 0.15

// clipSlack is how far past a clip's end a word may run and still be
// captioned in it (a recogniser's end times run late).
const clipSlack = 0.25

// Clip is what a render of [start, end] (seconds of the source) shows:
// the kept words inside it, and the stretches to cut for the deleted ones
// (seconds of the source, in order). A run of deleted words is cut from
// inside the pause before it to the same distance into the pause before
// the next kept word: the cut removes the words and the pause after them,
// its length is the time from the first deleted word's start to the next
// kept word's start, and both sides of it are silence. A run at the
// clip's start is cut from the start, one at its end to the end.
func (t Transcript) Clip(start, end float64) (kept []Word, cuts []Span) {
	var in []Word
	for _, w := range t.Words {
		if w.MergedInto < 0 && w.Start >= start && w.End <= end+clipSlack {
			in = append(in, w)
		}
	}
	for i := 0; i < len(in); {
		if !in[i].Deleted {
			kept = append(kept, in[i])
			i++
			continue
		}
		j := i
		for j < len(in) && in[j].Deleted {
			j++
		}
		from, to := start, end
		lead := maxCutLead
		if i > 0 {
			lead = min(lead, (in[i].Start-in[i-1].End)/2)
		}
		if j < len(in) {
			lead = min(lead, (in[j].Start-in[j-1].End)/2)
		}
		lead = max(0, lead)
		if i > 0 {
			from = in[i].Start - lead
		}
		if j < len(in) {
			to = in[j].Start - lead
		}
		if from, to = max(from, start), min(to, end); to > from {
			cuts = append(cuts, Span{From: from, To: to})
		}
		i = j
	}
	return kept, cuts
}
