package nlp

import "unicode"

// Class is what a rune that is neither letter nor digit is to Split.
type Class int

// The classes: Sep ends the word being read; Join belongs to it (or
// starts one); Break ends the word and the clause.
const (
	Sep Class = iota
	Join
	Break
)

// Rules are a caller's tokenizing rules. The zero value splits at every
// rune that is neither letter nor digit and knows no clauses or quotes.
type Rules struct {
	// Class classes rs[i], which is neither letter nor digit; word holds
	// the runes of the word being read (empty between words). nil: Sep.
	Class func(rs []rune, i int, word []rune) Class
	// Quote, when set, returns the index of the mark that closes a
	// quoted text opening at rs[i], or -1 when none opens there; atStart
	// says no word is being read. It is asked before Class.
	Quote func(rs []rune, i int, atStart bool) int
}

// Piece is what Split finds: a word as written, a quoted text (without
// its marks, as written), or a clause break.
type Piece struct {
	Text   string
	Quoted bool
	// Break marks a clause break (Text is ""); two never follow each
	// other.
	Break bool
}

// Split is Hookline's one tokenizer: Tokens reads a transcript with it,
// the thumbnail edit grammars a prompt (edits/phrase) and the derived
// headline a title (generate/compose), each under its own Rules. Letters
// and digits always make words; the rules say what else a word holds,
// what ends a clause and what opens a quoted text, so that a caller
// states its rules instead of writing another loop over runes.
//
// It cuts text into pieces under r, in order.
func Split(text string, r Rules) []Piece {
	rs := []rune(text)
	var out []Piece
	var word []rune
	flush := func() {
		if len(word) > 0 {
			out = append(out, Piece{Text: string(word)})
			word = word[:0]
		}
	}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			word = append(word, c)
			continue
		}
		if r.Quote != nil {
			if end := r.Quote(rs, i, len(word) == 0); end > i {
				flush()
				out = append(out, Piece{Text: string(rs[i+1 : end]), Quoted: true})
				i = end
				continue
			}
		}
		class := Sep
		if r.Class != nil {
			class = r.Class(rs, i, word)
		}
		switch class {
		case Join:
			word = append(word, c)
		case Break:
			flush()
			if len(out) == 0 || !out[len(out)-1].Break {
				out = append(out, Piece{Break: true})
			}
		default:
			flush()
		}
	}
	flush()
	return out
}
