package mediatest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Phrase is a stretch of a talk spoken in one breath, followed by Pause
// seconds of silence.
type Phrase struct {
	Text  string
	Pause float64
}

// Word is a spoken word of a talk and when it is spoken, in seconds.
type Word struct {
	Start, End float64
	Text       string
	// First says the word opens its phrase (speech starts after silence).
	First bool
}

// quiet is the sample level (16-bit) under which espeak-ng's output is
// silence: its phrases are cut to the speech between.
const quiet = 300

// Talk speaks phrases one after another with espeak-ng into one WAV in
// dir, each cut to its speech (espeak's own lead-in and tail of silence
// removed) and followed by exactly its pause, and returns the WAV and every
// word's timing. A phrase's words share its length in proportion to how
// long each takes spoken alone, so the first word of a phrase starts
// exactly where its speech does and the others are close.
func Talk(t testing.TB, dir string, phrases []Phrase, voice string, wpm int) (string, []Word) {
	t.Helper()
	var pcm []byte
	var words []Word
	// espeak-ng says a text the same way each time: a word or phrase
	// that comes back ("um", "the") is spoken once.
	said := map[string][]byte{}
	speak := func(name, text string) []byte {
		if data, ok := said[text]; ok {
			return data
		}
		part := filepath.Join(dir, name+".wav")
		run(t, "espeak-ng", "-v", voice, "-s", fmt.Sprint(wpm), "-w", part, text)
		said[text] = trimQuiet(wavData(t, part))
		return said[text]
	}
	for i, p := range phrases {
		data := speak(fmt.Sprintf("phrase-%03d", i), p.Text)
		start := float64(len(pcm)) / 2 / speechRate
		length := float64(len(data)) / 2 / speechRate
		fields := strings.Fields(p.Text)
		alone := make([]float64, len(fields))
		sum := 0.0
		for k, f := range fields {
			alone[k] = float64(len(speak(fmt.Sprintf("phrase-%03d-word-%03d", i, k), f)))
			sum += alone[k]
		}
		at := start
		for k, f := range fields {
			d := length * alone[k] / sum
			words = append(words, Word{Start: at, End: at + d, Text: f, First: k == 0})
			at += d
		}
		pcm = append(pcm, data...)
		pcm = append(pcm, make([]byte, 2*int(p.Pause*speechRate))...)
	}
	out := filepath.Join(dir, "talk.wav")
	writeWAV(t, out, pcm, speechRate)
	return out, words
}

// trimQuiet cuts 16-bit PCM to the samples from the first to the last
// that is not quiet.
func trimQuiet(pcm []byte) []byte {
	loud := func(i int) bool {
		v := int16(uint16(pcm[i]) | uint16(pcm[i+1])<<8) //nolint:gosec // G115: a sample's bits
		return v > quiet || v < -quiet
	}
	from, to := 0, len(pcm)/2*2
	for from < to && !loud(from) {
		from += 2
	}
	for to > from && !loud(to-2) {
		to -= 2
	}
	return pcm[from:to]
}
