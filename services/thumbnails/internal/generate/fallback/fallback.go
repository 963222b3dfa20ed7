// Package fallback keeps the thumbnails service drawing on the day a
// provider retires the configured model. It wraps the provider engine
// with a vendorapi.ModelWatch: while the provider does not know the model
// (a lookup's or a call's answer), the local engine draws instead, each
// result marked engine "local" with a warning, until a lookup finds the
// model again.
package fallback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/services/thumbnails/internal/generate/engine"
)

// Provider is a provider engine that can look its model up.
type Provider interface {
	engine.Engine
	engine.ModelChecker
}

// Engine is the provider with the local engine standing in.
type Engine struct {
	*vendorapi.ModelWatch
	provider Provider
	local    engine.Engine
}

var _ engine.Engine = (*Engine)(nil)

// New wraps provider; local draws while its model is missing. The caller
// runs Watch.
func New(provider Provider, local engine.Engine, log *slog.Logger) *Engine {
	return &Engine{
		ModelWatch: vendorapi.NewModelWatch("image", provider.Name(), provider.Model(), provider.CheckModel, log),
		provider:   provider, local: local,
	}
}

// Name is the provider's: the engine the operator configured.
func (e *Engine) Name() string { return e.provider.Name() }

// Generate draws req with the provider, or with the local engine while
// the model is missing. Errors as engine.Generator, never ErrModelMissing.
func (e *Engine) Generate(ctx context.Context, req engine.Request) (engine.Result, error) {
	return e.draw(ctx, req, e.provider.Generate, e.local.Generate)
}

// Vary is Generate for variations.
func (e *Engine) Vary(ctx context.Context, req engine.Request) (engine.Result, error) {
	return e.draw(ctx, req, e.provider.Vary, e.local.Vary)
}

func (e *Engine) draw(ctx context.Context, req engine.Request, provider, local func(context.Context, engine.Request) (engine.Result, error)) (engine.Result, error) {
	if e.Missing() == "" {
		res, err := provider(ctx, req)
		if !errors.Is(err, engine.ErrModelMissing) {
			return res, err
		}
		// The provider retired the model between two lookups.
		e.MarkMissing(ctx, err)
	}
	res, err := local(ctx, req)
	if err != nil {
		return res, err
	}
	res.Engine = e.local.Name()
	res.Warning = fmt.Sprintf("drawn by the local engine: %s no longer serves the model %q; the operator must configure a current model",
		e.provider.Name(), e.provider.Model())
	return res, nil
}
