// Package translate puts a clip's captions (and its hook) into another
// language: the clip's words grouped into sentences, each sentence
// translated whole by an Engine, its numbers and names kept, and the
// translated words re-timed over the sentence's span in proportion to
// their length, so the captions still follow the speech a sentence at a
// time. The engines are the offline Apertium (adapter
// internal/apertium; draft quality, the pairs installed) and the text
// provider (Provider, fluent, every language it is asked for).
package translate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/services/clips/internal/captions"
)

// Spoken is the language the clips are spoken in: the recognisers
// (Moonshine, pocketsphinx) and the sidecar captions read are English.
const Spoken = "en"

// The qualities a translation is marked with.
const (
	Draft  = "draft"
	Fluent = "fluent"
)

// Translation says how a render's captions were translated: the engine
// ("apertium", "provider"), its quality and the language.
type Translation struct {
	Engine, Quality, Language string
}

// Sentence is a sentence of the source: its text, the words of it that
// must come back unchanged (numbers and names), and the span of its
// words [First, Last] and their time.
type Sentence struct {
	Text        string
	Keep        []string
	First, Last int
	Start, End  float64
}

// Engine translates sentences. Translate returns one text per sentence,
// in order; Targets are the languages it translates from into.
type Engine interface {
	Name() string
	Quality() string
	Targets(from string) []string
	Translate(ctx context.Context, from, to string, sentences []Sentence) ([]string, error)
}

// ErrUnsupported: no engine translates the pair.
var ErrUnsupported = errors.New("translate: unsupported language pair")

// Translators are the engines in order of preference: the first that
// translates a pair does.
type Translators []Engine

// Supported lists the languages from translates into, sorted, with from
// itself (captions in the spoken language need no engine).
func (ts Translators) Supported(from string) []string {
	out := []string{from}
	for _, e := range ts {
		for _, l := range e.Targets(from) {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Engines are the engines that translate from into to, preferred first.
func (ts Translators) Engines(from, to string) []Engine {
	var out []Engine
	for _, e := range ts {
		if slices.Contains(e.Targets(from), to) {
			out = append(out, e)
		}
	}
	return out
}

// Result is a clip's translated text.
type Result struct {
	Words []captions.Word
	Hook  string
	Translation
	// Fallback, when not "", is why a preferred engine was not used.
	Fallback string
}

// Captions translates a clip's words (and hook, when not "") from into
// to with the first engine that can; an engine that fails hands over to
// the next. Captions in from itself come back as they are.
func (ts Translators) Captions(ctx context.Context, from, to string, words []captions.Word, hook string) (Result, error) {
	if to == from {
		return Result{Words: words, Hook: hook}, nil
	}
	engines := ts.Engines(from, to)
	if len(engines) == 0 {
		return Result{}, fmt.Errorf("%w: %s→%s", ErrUnsupported, from, to)
	}
	sents := Sentences(words)
	if hook != "" {
		sents = append(sents, Sentence{Text: hook, Keep: Protected(strings.Fields(hook)), First: -1})
	}
	var failed []string
	for _, e := range engines {
		out, err := e.Translate(ctx, from, to, sents)
		if err == nil && len(out) != len(sents) {
			err = fmt.Errorf("%d translations of %d sentences", len(out), len(sents))
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", e.Name(), err))
			continue
		}
		res := Result{Translation: Translation{Engine: e.Name(), Quality: e.Quality(), Language: to}, Fallback: strings.Join(failed, "; ")}
		for i, s := range sents {
			if s.First < 0 {
				res.Hook = strings.TrimSpace(out[i])
				continue
			}
			res.Words = append(res.Words, Retime(s, out[i])...)
		}
		return res, nil
	}
	return Result{}, fmt.Errorf("translate: every engine failed: %s", strings.Join(failed, "; "))
}

// Sentence breaks: a word ending in one of these ends its sentence; so
// does a pause of PauseSeconds or more before the next word (transcripts
// without punctuation), and MaxWords words.
const (
	enders       = ".!?…"
	PauseSeconds = 0.35
	MaxWords     = 24
)

// Sentences groups timed words into sentences.
func Sentences(words []captions.Word) []Sentence {
	var out []Sentence
	first := 0
	for i, w := range words {
		last := i == len(words)-1
		end := last || Ends(w.Text) || words[i+1].Start-w.End >= PauseSeconds || i-first+1 >= MaxWords
		if !end {
			continue
		}
		ws := words[first : i+1]
		texts := make([]string, len(ws))
		for k, x := range ws {
			texts[k] = strings.TrimSpace(x.Text)
		}
		out = append(out, Sentence{Text: strings.Join(texts, " "), Keep: Protected(texts), First: first, Last: i, Start: ws[0].Start, End: ws[len(ws)-1].End})
		first = i + 1
	}
	return out
}

// Ends reports whether text ends a sentence: a stop, question or
// exclamation mark, or an ellipsis, quotes and brackets after it aside.
func Ends(text string) bool {
	return strings.ContainsAny(lastRune(core0(strings.TrimSpace(text))), enders)
}

func lastRune(s string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError {
		return ""
	}
	return string(r)
}

// Protected are the words of a sentence that must come back as they are,
// without their punctuation: numbers (any word with a digit) and names
// (a capitalised word that does not start the sentence, other than "I").
func Protected(words []string) []string {
	var out []string
	for i, w := range words {
		c := core(w)
		if c == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(c)
		number := strings.ContainsFunc(c, unicode.IsDigit)
		name := i > 0 && unicode.IsUpper(r) && c != "I" && !Ends(words[i-1])
		if (number || name) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// core is a word without the punctuation around it.
func core(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// core0 is a word without the quotes and brackets after it.
func core0(w string) string {
	return strings.TrimRightFunc(w, func(r rune) bool { return strings.ContainsRune(`"')]»”’`, r) })
}

// Retime spreads a sentence's translation over the sentence's span: each
// word gets a share of it in proportion to its length (plus one for the
// space after it), in order, so the captions of a sentence start and end
// with the sentence, and a caption line ends with it (Break).
func Retime(s Sentence, text string) []captions.Word {
	ws := strings.Fields(text)
	if len(ws) == 0 {
		return nil
	}
	total := 0
	for _, w := range ws {
		total += utf8.RuneCountInString(w) + 1
	}
	span := s.End - s.Start
	out := make([]captions.Word, len(ws))
	at := 0
	for i, w := range ws {
		from := s.Start + span*float64(at)/float64(total)
		at += utf8.RuneCountInString(w) + 1
		to := s.Start + span*float64(at)/float64(total)
		if i == len(ws)-1 {
			to = s.End
		}
		out[i] = captions.Word{Start: from, End: to, Text: w}
	}
	out[len(out)-1].Break = true // a caption line never spans two sentences
	return out
}
