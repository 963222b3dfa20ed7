package transcript

import (
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// The operations of an edit.
const (
	OpReplace    = "replace"    // a word's text
	OpDelete     = "delete"     // a range of words
	OpRestore    = "restore"    // a range of deleted words
	OpVocabulary = "vocabulary" // the project's terms, all of them
)

// Limits of an edit.
const (
	MaxOps      = 500
	MaxWordText = 100
)

// OpIn is an operation as sent.
type OpIn struct {
	Op       *string
	WordID   *int
	Text     *string
	From, To *int
	Terms    *[]string
}

// Apply checks ops against t, in order, and returns t's edits after all
// of them, at the next version. Every problem is a 400 naming its field
// (operations[i].wordId, operations[i].to, …); none applies unless all
// do.
func (t Transcript) Apply(ops []OpIn) (Edits, error) {
	f := apierr.Fields{}
	switch {
	case len(ops) == 0:
		f.Add("operations", "at least one operation")
	case len(ops) > MaxOps:
		f.Add("operations", fmt.Sprintf("at most %d operations", MaxOps))
	}
	if err := f.Err(); err != nil {
		return Edits{}, err
	}
	n := len(t.Words)
	e := t.edits
	e.Text = maps.Clone(e.Text)
	if e.Text == nil {
		e.Text = map[int]string{}
	}
	deleted := make([]bool, n)
	for _, w := range t.Words {
		deleted[w.ID] = w.Deleted
	}
	cur := t // rebuilt when the vocabulary changes which words are merged
	for i, op := range ops {
		at := fmt.Sprintf("operations[%d].", i)
		name := ""
		if op.Op != nil {
			name = *op.Op
		}
		switch name {
		case OpReplace:
			id, ok := wordID(f, at+"wordId", op.WordID, n)
			text := ""
			if op.Text == nil {
				f.Add(at+"text", "required")
			} else {
				text = strings.Join(strings.Fields(*op.Text), " ")
				switch {
				case text == "":
					f.Add(at+"text", "must not be empty (delete the word instead)")
				case utf8.RuneCountInString(text) > MaxWordText:
					f.Add(at+"text", fmt.Sprintf("at most %d characters", MaxWordText))
				case textcheck.Reason(text, false) != "":
					f.Add(at+"text", textcheck.Reason(text, false))
				}
			}
			if ok && cur.Words[id].MergedInto >= 0 {
				f.Add(at+"wordId", fmt.Sprintf("word %d is part of the vocabulary term at word %d; replace that word", id, cur.Words[id].MergedInto))
			}
			if ok && text != "" {
				if text == t.original[id].Text {
					delete(e.Text, id)
				} else {
					e.Text[id] = text
				}
			}
		case OpDelete, OpRestore:
			from, okFrom := wordID(f, at+"from", op.From, n)
			to, okTo := wordID(f, at+"to", op.To, n)
			if okFrom && okTo && to < from {
				f.Add(at+"to", "must not be before from")
				okTo = false
			}
			if okFrom && okTo {
				for id := from; id <= to; id++ {
					deleted[id] = name == OpDelete
				}
			}
		case OpVocabulary:
			if op.Terms == nil {
				f.Add(at+"terms", "required")
				continue
			}
			before := len(f)
			terms := CheckVocabulary(f, at+"terms", *op.Terms)
			if len(f) > before {
				continue
			}
			e.Vocabulary = terms
			cur.apply(Edits{Version: e.Version, Vocabulary: terms})
		case "":
			f.Add(at+"op", "required: replace, delete, restore or vocabulary")
		default:
			f.Add(at+"op", "must be replace, delete, restore or vocabulary")
		}
	}
	if err := f.Err(); err != nil {
		return Edits{}, err
	}
	e.Deleted = ranges(deleted)
	e.Version = t.Version + 1
	return e, nil
}

// wordID checks a word id field against n words.
func wordID(f apierr.Fields, field string, id *int, n int) (int, bool) {
	switch {
	case id == nil:
		f.Add(field, "required")
	case *id < 0:
		f.Add(field, "must be a word id ≥ 0")
	case *id >= n:
		f.Add(field, fmt.Sprintf("past the end: the transcript's word ids run from 0 to %d", n-1))
	default:
		return *id, true
	}
	return 0, false
}

// ranges are the runs of true in set.
func ranges(set []bool) []Range {
	var out []Range
	for i := 0; i < len(set); i++ {
		if !set[i] {
			continue
		}
		j := i
		for j+1 < len(set) && set[j+1] {
			j++
		}
		out = append(out, Range{From: i, To: j})
		i = j
	}
	return out
}
