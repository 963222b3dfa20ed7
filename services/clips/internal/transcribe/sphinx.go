package transcribe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"hookline.dev/pkg/media/videosite"
)

// Sphinx is the offline engine: pocketsphinx_continuous with its US
// English model. One process uses one core, so audio is recognised in
// chunks of about a minute, two at a time.
type Sphinx struct {
	Bin string // "" is pocketsphinx_continuous on PATH
}

const (
	sphinxChunk    = 60.0 // seconds
	sphinxParallel = 2
)

// Name names the engine.
func (s *Sphinx) Name() string { return "pocketsphinx" }

// Transcribe recognises the 16 kHz mono WAV at wavPath: a segment per
// utterance (a stretch of speech between pauses), with its words.
func (s *Sphinx) Transcribe(ctx context.Context, wavPath string, progress func(done float64)) ([]videosite.Segment, error) {
	return inChunks(ctx, wavPath, sphinxChunk, sphinxParallel, progress, s.recognise)
}

func (s *Sphinx) recognise(ctx context.Context, wav string) ([]videosite.Segment, error) {
	// The log (configuration and decoder statistics) goes to /dev/null;
	// what stderr remains is bounded by exec for the error message.
	out, err := runSphinx(ctx, s.Bin, "-infile", wav, "-time", "yes", "-logfn", os.DevNull)
	if err != nil {
		return nil, err
	}
	return parseSphinx(bytes.NewReader(out))
}

// runSphinx runs pocketsphinx_continuous (bin, "" for the one on PATH)
// with args and returns its output: ErrUnavailable when it cannot be run,
// ctx's error when cancelled, its stderr with a failure.
func runSphinx(ctx context.Context, bin string, args ...string) ([]byte, error) {
	if bin == "" {
		bin = "pocketsphinx_continuous"
	}
	out, err := exec.CommandContext(ctx, bin, args...).Output() //nolint:gosec // G204: fixed flags, files the callers wrote or chose
	if err != nil {
		var exit *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.As(err, &exit):
			return nil, fmt.Errorf("%s: %w: %s", bin, err, bytes.TrimSpace(exit.Stderr))
		default: // not installed or not runnable
			return nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, bin, err)
		}
	}
	return out, nil
}

// parseSphinx reads pocketsphinx_continuous -time yes output: per
// utterance a text line, then "word start end confidence" lines from <s>
// to </s>; the confidence is the word's posterior probability. Markers (<s>, </s>, <sil>) and fillers ([NOISE], [SPEECH],
// ++BREATH++) are dropped and alternate pronunciations ("your(2)") named
// by their word. An utterance becomes a segment whose text is its words,
// capitalised and ended with a full stop: a pause ends a sentence.
func parseSphinx(r io.Reader) ([]videosite.Segment, error) {
	var out []videosite.Segment
	var words []videosite.Word
	flush := func() {
		if len(words) == 0 {
			return
		}
		texts := make([]string, len(words))
		for i, w := range words {
			texts[i] = w.Text
		}
		text := strings.Join(texts, " ")
		out = append(out, videosite.Segment{
			Start: words[0].Start, End: words[len(words)-1].End,
			Text: strings.ToUpper(text[:1]) + text[1:] + ".", Words: words,
		})
		words = nil
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue // an utterance's text line
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		conf, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue // a four-word text line
		}
		word := f[0]
		switch {
		case word == "<s>" || word == "</s>":
			flush()
			continue
		case strings.HasPrefix(word, "<") || strings.HasPrefix(word, "[") || strings.HasPrefix(word, "++"):
			continue
		}
		if i := strings.IndexByte(word, '('); i > 0 {
			word = word[:i]
		}
		words = append(words, videosite.Word{Start: start, End: end, Text: word, Confidence: min(1, max(0, conf))})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading pocketsphinx output: %w", err)
	}
	flush()
	return out, nil
}
