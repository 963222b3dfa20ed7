// Package transcribe turns speech into timed words for sources without
// captions. Sphinx is the local engine (Debian's pocketsphinx, offline);
// OpenAI speaks the OpenAI-compatible /v1/audio/transcriptions API with
// verbose_json and word timestamps, which whisper.cpp servers speak too.
//
// Both read the 16 kHz mono 16-bit WAV media.ExtractWAV writes and cut
// long audio into chunks at its quietest moments, so no word is split
// and each request or recogniser run stays small.
package transcribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"hookline.dev/pkg/vendorapi"
	"hookline.dev/pkg/videosite"
)

// ErrUnavailable is returned (wrapped) when the engine cannot be reached
// or reports a temporary failure: try again later.
var ErrUnavailable = errors.New("transcribe: engine unavailable")

// Engine transcribes a 16 kHz mono WAV file.
type Engine interface {
	Transcribe(ctx context.Context, wavPath string) ([]videosite.Segment, error)
	Name() string
}

// New builds the engine of provider: "" or "local" is Sphinx (sphinxBin,
// "" for pocketsphinx_continuous on PATH); "openai" is an
// OpenAI-compatible server at baseURL ("" for api.openai.com), which
// needs apiKey unless baseURL is set (a whisper.cpp server needs none).
// A model whose answers carry no timestamps (gpt-4o-transcribe) is
// refused here, at start-up, with what to use instead.
// The OpenAI engine comes wrapped in a Fallback to Sphinx, whose
// ModelWatch the caller runs; log receives its reports (nil: discarded).
func New(provider, baseURL, apiKey, model string, timeout time.Duration, sphinxBin string, log *slog.Logger) (Engine, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch provider {
	case "", "local":
		return &Sphinx{Bin: sphinxBin}, nil
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
		return NewFallback(&OpenAI{BaseURL: baseURL, APIKey: apiKey, Model: model, Timeout: timeout}, &Sphinx{Bin: sphinxBin}, log), nil
	}
	return nil, fmt.Errorf("transcribe: unknown provider %q (want local or openai)", provider)
}

// inChunks cuts the WAV at wavPath into chunks of about chunkSeconds,
// transcribes up to parallel of them at once with one, and joins the
// segments in time order, offset to the whole file's timeline.
func inChunks(ctx context.Context, wavPath string, chunkSeconds float64, parallel int,
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parts := make([][]videosite.Segment, len(chunks))
	errs := make([]error, len(chunks))
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-slots }()
			if parts[i], errs[i] = one(ctx, c.path); errs[i] != nil {
				cancel()
			}
			shift(parts[i], c.offset)
		})
	}
	wg.Wait()
	out := []videosite.Segment{}
	for i := range chunks {
		if errs[i] != nil {
			return nil, fmt.Errorf("transcribing %s at %.0f s: %w", wavPath, chunks[i].offset, errs[i])
		}
		out = append(out, parts[i]...)
	}
	return out, nil
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
