// Package transcribe turns speech into timed words for sources without
// captions. Moonshine is the local engine (Moonshine tiny, offline, on
// ONNX Runtime), its words timed by pocketsphinx's forced alignment;
// Sphinx (pocketsphinx's own recognition, about half the words of real
// speech) remains as a lighter engine to choose; OpenAI speaks the
// OpenAI-compatible /v1/audio/transcriptions API with verbose_json and
// word timestamps, which whisper.cpp servers speak too.
//
// All read the 16 kHz mono 16-bit WAV media.ExtractWAV writes and cut
// long audio into pieces (Moonshine at pauses in the speech, the others
// at the quietest moments), so no word is split and each request or
// recogniser run stays small.
package transcribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/media/videosite"
)

// ErrUnavailable is returned (wrapped) when the engine cannot be reached
// or reports a temporary failure: try again later.
var ErrUnavailable = errors.New("transcribe: engine unavailable")

// Engine transcribes a 16 kHz mono WAV file. progress, when not nil, is
// told the share of the audio done, 0 to 1, as it grows (one call at a
// time, from any goroutine).
type Engine interface {
	Transcribe(ctx context.Context, wavPath string, progress func(done float64)) ([]videosite.Segment, error)
	Name() string
}

// Local names what the offline engines run: the Moonshine model's
// directory, the ONNX Runtime library and pocketsphinx_continuous ("" for
// the one on PATH).
type Local struct {
	MoonshineDir, ONNXRuntimeLib, Pocketsphinx string
}

// New builds the engine of provider: "" or "local" is Moonshine with
// pocketsphinx as its aligner, "pocketsphinx" pocketsphinx alone; "openai"
// is an OpenAI-compatible server at baseURL ("" for api.openai.com),
// which needs apiKey unless baseURL is set (a whisper.cpp server needs
// none). A model whose answers carry no timestamps (gpt-4o-transcribe)
// is refused here, at start-up, with what to use instead. The OpenAI
// engine comes wrapped in a Fallback to pocketsphinx, whose ModelWatch the
// caller runs; log receives its reports (nil: discarded).
func New(provider, baseURL, apiKey, model string, timeout time.Duration, local Local, log *slog.Logger) (Engine, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch provider {
	case "", "local":
		return NewMoonshine(local.MoonshineDir, local.ONNXRuntimeLib, &SphinxAligner{Bin: local.Pocketsphinx})
	case "pocketsphinx":
		return &Sphinx{Bin: local.Pocketsphinx}, nil
	case "openai":
		if apiKey == "" && baseURL == "" {
			return nil, errors.New("transcribe: the openai provider needs an API key or a base URL")
		}
		if _, err := vendorapi.Base(baseURL, DefaultOpenAIBaseURL); err != nil {
			return nil, fmt.Errorf("transcribe: HOOKLINE_TRANSCRIBE_BASE_URL: %w", err)
		}
		if err := checkModel(model); err != nil {
			return nil, err
		}
		return NewFallback(&OpenAI{BaseURL: baseURL, APIKey: apiKey, Model: model, Timeout: timeout}, &Sphinx{Bin: local.Pocketsphinx}, log), nil
	}
	return nil, fmt.Errorf("transcribe: unknown provider %q (want local, pocketsphinx or openai)", provider)
}

// inChunks cuts the WAV at wavPath into chunks of about chunkSeconds,
// transcribes up to parallel of them at once with one, and joins the
// segments in time order, offset to the whole file's timeline; progress
// hears the share of chunks done.
func inChunks(ctx context.Context, wavPath string, chunkSeconds float64, parallel int, progress func(done float64),
	one func(ctx context.Context, path string) ([]videosite.Segment, error),
) ([]videosite.Segment, error) {
	dir, err := os.MkdirTemp("", "transcribe-")
	if err != nil {
		return nil, fmt.Errorf("transcribe: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	chunks, err := split(wavPath, dir, chunkSeconds)
	if err != nil {
		return nil, err
	}
	parts := make([][]videosite.Segment, len(chunks))
	done := tally{total: float64(len(chunks)), report: progress}
	errs := inParallel(ctx, len(chunks), parallel, func(ctx context.Context, i int) error {
		var err error
		if parts[i], err = one(ctx, chunks[i].path); err != nil {
			return err
		}
		shift(parts[i], chunks[i].offset)
		done.add(1)
		return nil
	})
	out := []videosite.Segment{}
	for i := range chunks {
		if errs[i] != nil {
			return nil, fmt.Errorf("transcribing %s at %.0f s: %w", wavPath, chunks[i].offset, errs[i])
		}
		out = append(out, parts[i]...)
	}
	return out, nil
}

// inParallel runs do(ctx, i) for i in 0..n-1 in order, up to parallel at
// once (that many goroutines, however long the list); the first failure
// cancels the context the others run with. It returns each call's error
// (ctx's for those never started).
func inParallel(ctx context.Context, n, parallel int, do func(ctx context.Context, i int) error) []error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(1, parallel), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if errs[i] = ctx.Err(); errs[i] != nil {
					continue
				}
				if errs[i] = do(ctx, i); errs[i] != nil {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// tally adds up the work done of a total known at the start and reports
// the share to report (nil: nobody listens), one call at a time.
type tally struct {
	mu     sync.Mutex
	done   float64
	total  float64
	report func(done float64)
}

func (t *tally) add(n float64) {
	if t.report == nil || t.total <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done += n
	t.report(min(1, t.done/t.total))
}

func shift(segs []videosite.Segment, by float64) {
	for i := range segs {
		segs[i].Start += by
		segs[i].End += by
		for j := range segs[i].Words {
			segs[i].Words[j].Start += by
			segs[i].Words[j].End += by
		}
	}
}
