package transcribe

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"hookline.dev/pkg/media/videosite"
)

// Moonshine is the default offline engine: Moonshine tiny (English) run
// with ONNX Runtime on the audio's speech segments, side by side up to
// Parallel at once, each word then timed against the audio by Aligner.
// The model loads on the first Transcribe and stays for the process.
type Moonshine struct {
	// Dir holds encoder_model.onnx, decoder_model_merged.onnx and
	// tokens.txt (scripts/deps.sh speech); Library is libonnxruntime.
	Dir, Library string
	// Parallel is how many segments are recognised at once; 0 is
	// GOMAXPROCS, the process's share of the machine's cores.
	Parallel int
	// Aligner times the recognised words; nil spreads each segment's
	// words over its voiced audio by their length.
	Aligner Aligner

	model moonshineCache
	// split finds the speech segments; nil is speechSpans (the energy
	// detector). BenchmarkRecognisers sets Silero VAD here to compare.
	split func(w *wavFile) ([]span, error)
}

// Aligner gives recognised words their place in the audio.
type Aligner interface {
	// Align returns a start and end for each of words, in seconds from
	// the start of the 16 kHz mono 16-bit PCM audio pcm.
	Align(ctx context.Context, pcm []byte, words []string) ([]Timing, error)
}

// Timing is where a word is in its audio, in seconds.
type Timing struct{ Start, End float64 }

// moonshineRate is the only sample rate the model takes.
const moonshineRate = 16000

// NewMoonshine checks that dir holds a Moonshine model and library exists,
// without loading either (a process that never recognises speech, such as
// the API, never pays for them).
func NewMoonshine(dir, library string, aligner Aligner) (*Moonshine, error) {
	for _, p := range []string{filepath.Join(dir, moonshineEncoder), filepath.Join(dir, moonshineDecoder), filepath.Join(dir, moonshineTokens), library} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("transcribe: the Moonshine engine needs %s (scripts/deps.sh speech installs it): %w", p, err)
		}
	}
	return &Moonshine{Dir: dir, Library: library, Aligner: aligner}, nil
}

// Name names the engine.
func (m *Moonshine) Name() string { return "moonshine" }

// Transcribe recognises the 16 kHz mono WAV at wavPath: its speech
// segments, each split into sentences at the model's full stops, question
// and exclamation marks. The file is read as it is needed: once through
// for the voice-activity split, then each segment's samples when its turn
// comes, so memory follows the segments recognised at once, not the
// length of the recording. progress hears the share of the speech
// recognised as segments complete.
func (m *Moonshine) Transcribe(ctx context.Context, wavPath string, progress func(done float64)) ([]videosite.Segment, error) {
	model, err := m.model.get(m.Dir, m.Library)
	if err != nil {
		return nil, err
	}
	w, err := openWAV(wavPath)
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Close() }()
	if w.rate != moonshineRate {
		return nil, fmt.Errorf("transcribe: %s is at %d Hz, Moonshine wants %d", wavPath, w.rate, moonshineRate)
	}
	split := m.split
	if split == nil {
		split = wavSpeechSpans
	}
	spans, err := split(w)
	if err != nil {
		return nil, err
	}
	parallel := m.Parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	done := tally{report: progress}
	for _, s := range spans {
		done.total += float64(s.end - s.start)
	}
	parts := make([][]videosite.Word, len(spans))
	errs := inParallel(ctx, len(spans), parallel, func(ctx context.Context, i int) error {
		s := spans[i]
		pcm, err := w.pcm(s.start, s.end)
		if err != nil {
			return err
		}
		if parts[i], err = m.segment(ctx, model, pcm); err != nil {
			return err
		}
		offset := float64(s.start) / moonshineRate
		for j := range parts[i] {
			parts[i][j].Start += offset
			parts[i][j].End += offset
		}
		done.add(float64(s.end - s.start))
		return nil
	})
	out := []videosite.Segment{}
	for i := range spans {
		if errs[i] != nil {
			return nil, fmt.Errorf("transcribing %s at %.1f s: %w", wavPath, float64(spans[i].start)/moonshineRate, errs[i])
		}
		out = append(out, sentences(parts[i])...)
	}
	return out, nil
}

// segment recognises one stretch of speech and times its words.
func (m *Moonshine) segment(ctx context.Context, model *moonshineModel, pcm []byte) ([]videosite.Word, error) {
	toks, err := model.recognise(ctx, floats(pcm))
	if err != nil {
		return nil, err
	}
	spoken := model.words(toks)
	if len(spoken) == 0 {
		return nil, nil
	}
	texts := make([]string, len(spoken))
	for i, w := range spoken {
		texts[i] = w.text
	}
	var times []Timing
	if m.Aligner != nil {
		if times, err = m.Aligner.Align(ctx, pcm, texts); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, ErrUnavailable) {
				return nil, err
			}
			times = nil // the aligner found no path through the words: spread them
		}
	}
	if times == nil {
		times = spread(pcm, texts)
	}
	words := make([]videosite.Word, len(spoken))
	for i, w := range spoken {
		words[i] = videosite.Word{Start: times[i].Start, End: times[i].End, Text: w.text, Confidence: w.prob}
	}
	return words, nil
}

// floats converts 16-bit PCM to the -1..1 samples the model takes.
func floats(pcm []byte) []float32 {
	out := make([]float32, len(pcm)/2)
	for i := range out {
		out[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768 //nolint:gosec // G115: reinterpreting s16le bits
	}
	return out
}

// spread times words over the voiced part of pcm in proportion to their
// letters: the fallback when no aligner placed them.
func spread(pcm []byte, words []string) []Timing {
	from, to := 0.0, float64(len(pcm)/2)/moonshineRate
	if s := speechSpans(pcm, moonshineRate); len(s) > 0 {
		from = float64(s[0].start)/moonshineRate + vadPad
		to = float64(s[len(s)-1].end)/moonshineRate - vadPad
		if to <= from {
			from, to = float64(s[0].start)/moonshineRate, float64(s[len(s)-1].end)/moonshineRate
		}
	}
	total := 0
	for _, w := range words {
		total += len(w) + 1
	}
	out := make([]Timing, len(words))
	at := from
	for i, w := range words {
		d := (to - from) * float64(len(w)+1) / float64(total)
		out[i] = Timing{Start: at, End: at + d}
		at += d
	}
	return out
}

// sentences groups timed words into segments that end at a sentence's
// final punctuation.
func sentences(words []videosite.Word) []videosite.Segment {
	var out []videosite.Segment
	start := 0
	for i, w := range words {
		if i < len(words)-1 && !strings.ContainsAny(w.Text[len(w.Text)-1:], ".!?") {
			continue
		}
		cur := words[start : i+1]
		texts := make([]string, len(cur))
		for j, c := range cur {
			texts[j] = c.Text
		}
		out = append(out, videosite.Segment{Start: cur[0].Start, End: w.End, Text: strings.Join(texts, " "), Words: cur})
		start = i + 1
	}
	return out
}

// Close releases the model, when it was loaded.
func (m *Moonshine) Close() {
	if model, err := m.model.loaded(); err == nil && model != nil {
		model.close()
	}
}
