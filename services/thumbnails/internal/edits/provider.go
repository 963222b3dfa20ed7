package edits

import (
	"context"
	"slices"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// providerRun asks the configured image provider for an edit a grammar
// does not cover: the first source as the parent of a variation steered
// by the prompt, the other source (combine) and the references as
// references.
type providerRun struct {
	prompt string
	aspect thumbnail.Aspect
}

func (r providerRun) render(ctx context.Context, provider engine.Varier, in *Inputs) (engine.Result, error) {
	aspect := r.aspect
	if aspect == "" {
		aspect = thumbnail.Landscape
	}
	req := engine.Request{Prompt: r.prompt, Tweak: r.prompt, Aspect: aspect,
		Parent: &engine.Picture{Data: in.Sources[0].Data, Img: in.Sources[0].Img}}
	for _, p := range slices.Concat(in.Sources[1:], in.References) {
		req.References = append(req.References, engine.Picture{Data: p.Data, Img: p.Img})
	}
	return provider.Vary(ctx, req)
}
