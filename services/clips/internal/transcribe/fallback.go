package transcribe

import (
	"context"
	"errors"
	"log/slog"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/media/videosite"
)

// CheckModel asks the server whether the model exists
// (GET /v1/models/{model}). Errors: one wrapping ErrModelMissing when it
// answers that it does not; any other error (a server without the route,
// as whisper.cpp's) says nothing about the model.
func (o *OpenAI) CheckModel(ctx context.Context) error {
	base, err := vendorapi.Base(o.BaseURL, DefaultOpenAIBaseURL)
	if err != nil {
		return err
	}
	header := map[string][]string{}
	if o.APIKey != "" {
		header["Authorization"] = []string{"Bearer " + o.APIKey}
	}
	client := o.HTTP
	if client == nil {
		client = tracedClient
	}
	return vendorapi.OpenAI.LookupModel(ctx, client, base, o.model(), header)
}

// Fallback is the OpenAI-compatible engine with the local one standing
// in while the server does not know the model (a lookup's or a call's
// answer), so a retired model slows transcripts down instead of failing
// every preparation. Its ModelWatch reports it (/readyz, the
// hookline_provider_model_missing metric); the caller runs Watch.
type Fallback struct {
	*vendorapi.ModelWatch
	Remote *OpenAI
	Local  Engine
}

// NewFallback watches remote's model, with local standing in.
func NewFallback(remote *OpenAI, local Engine, log *slog.Logger) *Fallback {
	return &Fallback{ModelWatch: vendorapi.NewModelWatch("transcription", "openai", remote.model(), remote.CheckModel, log), Remote: remote, Local: local}
}

// Name is the remote engine's, or the local one's while it stands in.
func (f *Fallback) Name() string {
	if f.Missing() != "" {
		return f.Local.Name() + " (fallback: " + f.Remote.Name() + " is a model the server does not know)"
	}
	return f.Remote.Name()
}

// Transcribe transcribes with the remote engine, or the local one while
// the model is missing. Errors as the engine that ran.
func (f *Fallback) Transcribe(ctx context.Context, wavPath string, progress func(done float64)) ([]videosite.Segment, error) {
	if f.Missing() == "" {
		segs, err := f.Remote.Transcribe(ctx, wavPath, progress)
		if !errors.Is(err, ErrModelMissing) {
			return segs, err
		}
		f.MarkMissing(ctx, err)
	}
	return f.Local.Transcribe(ctx, wavPath, progress)
}
