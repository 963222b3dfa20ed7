package transcribe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// SphinxAligner times words by forced alignment with pocketsphinx: the
// words, as a JSGF grammar that admits exactly their sequence (pauses and
// breaths between any two), are searched against the audio with the US
// English acoustic model, so each word gets the frames it was spoken in.
// Words the pronouncing dictionary lacks (names, numbers in digits) are
// left out of the grammar and placed in the gap between their neighbours.
// The dictionary is read once; each alignment hands pocketsphinx only the
// entries of its own words (loading all 135,000 entries took 40 % of the
// processor time of aligning a 10 s segment).
type SphinxAligner struct {
	Bin  string // "" is pocketsphinx_continuous on PATH
	Dict string // "" is the en-us model's cmudict-en-us.dict

	once  sync.Once
	prons map[string]string // word → its dictionary lines, variants included
	err   error
}

// defaultDict is where Debian's pocketsphinx-en-us puts the dictionary
// pocketsphinx_continuous uses by default.
const defaultDict = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

// errNoAlignment is returned when the search found no path through the
// words: the caller times them another way.
var errNoAlignment = errors.New("transcribe: no alignment of the words with the audio")

// dictionary reads the pronouncing dictionary once: word → its lines,
// variants ("word(2) …") included. The file is kept as one string and a
// word's lines are a slice of it (a copy only for the few variants listed
// apart from their word, as a(2) after a's): 13.1 MiB of heap for the
// 126,000 words of cmudict-en-us, where a string per word took 16.8.
func (a *SphinxAligner) dictionary() (map[string]string, error) {
	a.once.Do(func() {
		path := a.Dict
		if path == "" {
			path = defaultDict
		}
		b, err := os.ReadFile(path) //nolint:gosec // G304: the configured dictionary
		if err != nil {
			a.err = fmt.Errorf("%w: pronouncing dictionary: %w", ErrUnavailable, err)
			return
		}
		data := string(b)
		if !strings.HasSuffix(data, "\n") {
			data += "\n"
		}
		a.prons = map[string]string{}
		// run is the word whose adjacent lines start at from; += of a
		// slice to a word not seen yet stores the slice itself.
		run, from := "", 0
		for at := 0; at < len(data); {
			end := at + strings.IndexByte(data[at:], '\n') + 1
			w, _, _ := strings.Cut(data[at:end-1], " ")
			if i := strings.IndexByte(w, '('); i > 0 {
				w = w[:i]
			}
			if w != run {
				if run != "" {
					a.prons[run] += data[from:at]
				}
				run, from = w, at
			}
			at = end
		}
		if run != "" {
			a.prons[run] += data[from:]
		}
	})
	return a.prons, a.err
}

// dictWords are the dictionary's spellings of a written word: lower case,
// outer punctuation gone, a hyphenated word as its parts; nil when a part
// is not in the dictionary.
func dictWords(prons map[string]string, word string) []string {
	w := strings.ToLower(strings.TrimFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
	var out []string
	for p := range strings.SplitSeq(w, "-") {
		if p == "" || prons[p] == "" || strings.ContainsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			return nil
		}
		out = append(out, p)
	}
	return out
}

// Align implements Aligner.
func (a *SphinxAligner) Align(ctx context.Context, pcm []byte, words []string) ([]Timing, error) {
	prons, err := a.dictionary()
	if err != nil {
		return nil, err
	}
	var grammar []string
	owner := []int{} // owner[k] is the word grammar[k] spells
	var dict strings.Builder
	inDict := map[string]bool{}
	for i, w := range words {
		for _, p := range dictWords(prons, w) {
			grammar = append(grammar, p)
			owner = append(owner, i)
			if !inDict[p] {
				inDict[p] = true
				dict.WriteString(prons[p])
			}
		}
	}
	if len(grammar) == 0 {
		return nil, errNoAlignment
	}
	dir, err := os.MkdirTemp("", "align-")
	if err != nil {
		return nil, fmt.Errorf("transcribe: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	wav, gram, dictFile := filepath.Join(dir, "a.wav"), filepath.Join(dir, "a.gram"), filepath.Join(dir, "a.dict")
	if err := writeWAV(wav, moonshineRate, pcm); err != nil {
		return nil, err
	}
	if err := os.WriteFile(gram, []byte("#JSGF V1.0;\ngrammar align;\npublic <s> = "+strings.Join(grammar, " ")+" ;\n"), 0o600); err != nil {
		return nil, fmt.Errorf("transcribe: writing the grammar: %w", err)
	}
	if err := os.WriteFile(dictFile, []byte(dict.String()), 0o600); err != nil {
		return nil, fmt.Errorf("transcribe: writing the dictionary: %w", err)
	}
	args := []string{"-infile", wav, "-jsgf", gram, "-time", "yes", "-logfn", os.DevNull,
		// One utterance for the whole segment: the grammar spans it, so
		// pocketsphinx's voice-activity split must not end it at a pause
		// (frames of 10 ms; segments are at most maxSegment long).
		"-vad_postspeech", strconv.Itoa(int(maxSegment*100) + 100), "-dict", dictFile}
	out, err := runSphinx(ctx, a.Bin, args...)
	if err != nil {
		return nil, err
	}
	segs, err := parseSphinx(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	var aligned []Timing
	for _, s := range segs {
		for _, w := range s.Words {
			aligned = append(aligned, Timing{w.Start, w.End})
		}
	}
	if len(aligned) != len(grammar) {
		return nil, errNoAlignment
	}
	times := make([]Timing, len(words))
	placed := make([]bool, len(words))
	for k, t := range aligned {
		i := owner[k]
		if !placed[i] {
			times[i], placed[i] = t, true
		}
		times[i].End = t.End
	}
	fillGaps(times, placed, words, float64(len(pcm)/2)/moonshineRate)
	return times, nil
}

// fillGaps places the words not aligned between the aligned ones around
// them (the audio's start and end at the edges), in proportion to their
// letters.
func fillGaps(times []Timing, placed []bool, words []string, length float64) {
	for i := 0; i < len(times); {
		if placed[i] {
			i++
			continue
		}
		j := i
		for j < len(times) && !placed[j] {
			j++
		}
		from, to := 0.0, length
		if i > 0 {
			from = times[i-1].End
		}
		if j < len(times) {
			to = times[j].Start
		}
		letters := 0
		for _, w := range words[i:j] {
			letters += len(w)
		}
		at := from
		for k := i; k < j; k++ {
			d := (to - from) * float64(len(words[k])) / float64(max(1, letters))
			times[k] = Timing{at, at + d}
			at += d
		}
		i = j
	}
}
