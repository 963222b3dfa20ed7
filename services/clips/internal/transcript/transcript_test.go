package transcript

import (
	"math"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/apierr"
)

// talk is two sentences: words of 0.3 s with 0.1 s between, and 0.5 s
// between the sentences.
func talk() []videosite.Segment {
	seg := func(at float64, text string) videosite.Segment {
		s := videosite.Segment{Start: at, Text: text}
		for _, f := range strings.Fields(text) {
			s.Words = append(s.Words, videosite.Word{Start: at, End: at + 0.3, Text: f, Confidence: 0.9})
			at += 0.4
		}
		s.End = at - 0.1
		return s
	}
	a := seg(0, "we tried zorb lacks today.")
	b := seg(a.End+0.5, "it was the best cheese ever.")
	c := seg(b.End+0.5, "then we went home.")
	return []videosite.Segment{a, b, c}
}

func ptr[T any](v T) *T { return &v }

func TestVocabularyReplacesCloseWordsAndNGrams(t *testing.T) {
	tr := Build(talk(), Edits{Vocabulary: []string{"Zorblax", "Hookline"}})
	var texts []string
	for _, w := range tr.Listed() {
		texts = append(texts, w.Text)
	}
	if got := strings.Join(texts, " "); !strings.HasPrefix(got, "we tried Zorblax today.") || strings.Contains(got, "Hookline") {
		t.Fatalf("words: %q", got)
	}
	if w := tr.Words[2]; w.End != tr.Words[3].End || tr.Words[3].MergedInto != 2 {
		t.Fatalf("merged word %+v %+v", w, tr.Words[3])
	}
	for _, c := range []struct {
		heard, term string
		want        bool
	}{
		{"zorblacks", "Zorblax", true}, {"bricksly", "Brixley", true}, {"mormlax", "Zorblax", false}, {"hukline", "Hookline", true}, {"cotton", "Kotlin", false},
		{"the", "Zorblax", false}, {"api", "API", true}, {"ape", "API", false}, {"fonetik", "Phonetic", true},
	} {
		term := newSpelling(letters(c.term))
		term.phonetic()
		_, ok := closeness(newSpelling(letters(c.heard)), term)
		if ok != c.want {
			t.Errorf("%s ~ %s: %v (keys %s %s)", c.heard, c.term, ok, phoneticKey(letters(c.heard)), phoneticKey(letters(c.term)))
		}
	}
}

func TestApplyEditsAndCuts(t *testing.T) {
	tr := Build(talk(), Edits{})
	n := len(tr.Words)
	e, err := tr.Apply([]OpIn{
		{Op: ptr(OpReplace), WordID: ptr(8), Text: ptr("chess")},
		{Op: ptr(OpDelete), From: ptr(5), To: ptr(10)},
		{Op: ptr(OpRestore), From: ptr(10), To: ptr(10)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.Version != 2 || e.Text[8] != "chess" || len(e.Deleted) != 1 || e.Deleted[0] != (Range{5, 9}) {
		t.Fatalf("edits %+v", e)
	}
	tr = Build(talk(), e)
	if tr.Segments[1].Text != "ever." {
		t.Fatalf("segment %+v", tr.Segments[1])
	}
	kept, cuts := tr.Clip(0, 100)
	if len(kept) != n-5 || len(cuts) != 1 {
		t.Fatalf("kept %d cuts %v", len(kept), cuts)
	}
	// From inside the pause before "it" to as far before "ever.":
	// the cut's length is the deleted words' start to the next's.
	want := tr.Words[10].Start - tr.Words[5].Start
	if c := cuts[0]; math.Abs(c.To-c.From-want) > 1e-9 || c.From >= tr.Words[5].Start || c.From <= tr.Words[4].End {
		t.Fatalf("cut %+v, want %.2f s inside the pause", c, want)
	}

	_, err = tr.Apply([]OpIn{
		{Op: ptr(OpDelete), From: ptr(3), To: ptr(n)},
		{Op: ptr(OpReplace), WordID: ptr(-1), Text: ptr("x")},
		{Op: ptr("split")},
		{Op: ptr(OpVocabulary), Terms: ptr([]string{"ok", strings.Repeat("a", 51)})},
		{Op: ptr(OpReplace), WordID: ptr(1), Text: ptr(" ")},
	})
	var ae *apierr.Error
	if !asErr(err, &ae) {
		t.Fatalf("err %v", err)
	}
	fields := ae.Details["fields"].(map[string]string)
	for _, f := range []string{"operations[0].to", "operations[1].wordId", "operations[2].op", "operations[3].terms[1]", "operations[4].text"} {
		if fields[f] == "" {
			t.Errorf("%s not named: %v", f, fields)
		}
	}
	if f := (apierr.Fields{}); CheckVocabulary(f, "vocabulary", make([]string, 101)) != nil || f["vocabulary"] == "" {
		t.Error("101 terms accepted")
	}
}

func asErr(err error, target **apierr.Error) bool {
	e, ok := err.(*apierr.Error) //nolint:errorlint // Apply returns it unwrapped
	*target = e
	return ok
}

// Unedited segments reach the ranking as the source has them; edited ones
// carry their kept words.
func TestEditedKeepsUntouchedSegments(t *testing.T) {
	segs := talk()
	segs[0].Text = "We tried  zorb lacks today."
	segs = append(segs, videosite.Segment{Start: 20, End: 21, Text: " "})
	tr := Build(segs, Edits{Deleted: []Range{{From: 6, To: 7}}})
	got := tr.Edited()
	if len(got) != 3 || got[0].Text != segs[0].Text || got[2].Text != segs[2].Text || got[1].Text != "it best cheese ever." || len(got[1].Words) != 4 {
		t.Fatalf("edited %+v", got)
	}
}
