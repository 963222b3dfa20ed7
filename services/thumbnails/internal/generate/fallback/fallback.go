// Package fallback keeps the thumbnails service drawing on the day a
// provider retires the configured model. It wraps the provider engine:
// the model is looked up at start-up and then periodically, and a model
// the provider does not know (the lookup's 404, or a call's) makes the
// local engine draw instead, each result marked engine "local" with a
// warning, until a lookup finds the model again. A lookup that fails for
// any other reason (5xx, a timeout) changes nothing: it says nothing
// about the model.
package fallback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"hookline.dev/pkg/telemetry"
	"hookline.dev/services/thumbnails/internal/generate/engine"
)

// Provider is a provider engine that can look its model up.
type Provider interface {
	engine.Engine
	engine.ModelChecker
}

// missingGauge is 1 while a provider's configured model is missing.
var missingGauge = telemetry.NewGauge("hookline.dev/services/thumbnails", "hookline.provider.model.missing",
	"1 while the configured model of an AI provider is unknown to the provider (retired, misspelt); requests then use the local engine.")

// Engine is the provider with the local engine standing in.
type Engine struct {
	provider Provider
	local    engine.Engine
	log      *slog.Logger
	gauge    telemetry.Gauge

	mu     sync.Mutex
	reason string // why the model is missing; "" while it is there
}

var _ engine.Engine = (*Engine)(nil)

// New wraps provider; local draws while its model is missing.
func New(provider Provider, local engine.Engine, log *slog.Logger) *Engine {
	g := missingGauge.With("provider", provider.Name()).With("model", provider.Model())
	g.Record(0)
	return &Engine{provider: provider, local: local, log: log, gauge: g}
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
		e.markMissing(ctx, err)
	}
	res, err := local(ctx, req)
	if err != nil {
		return res, err
	}
	res.Engine = e.local.Name()
	res.Warning = fmt.Sprintf("drawn by the local engine: the %s model %q is not available at %s (%s); an operator must configure a current model",
		e.provider.Name(), e.provider.Model(), e.provider.Name(), e.Missing())
	return res, nil
}

// Missing says why the model is missing; "" while it is there.
func (e *Engine) Missing() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reason
}

// Status is what /readyz reports of the provider.
type Status struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Status is "ok" or "degraded" (the model is missing; the local
	// engine draws).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Status reports the provider's state.
func (e *Engine) Status() Status {
	s := Status{Provider: e.provider.Name(), Model: e.provider.Model(), Status: "ok"}
	if r := e.Missing(); r != "" {
		s.Status, s.Reason = "degraded", r
	}
	return s
}

// Degraded implements httpx.Component: the Status while the model is
// missing, nil otherwise.
func (e *Engine) Degraded() any {
	if s := e.Status(); s.Status != "ok" {
		return s
	}
	return nil
}

// Check looks the model up once: found clears a missing model, missing
// marks it, anything else changes nothing.
func (e *Engine) Check(ctx context.Context) {
	err := e.provider.CheckModel(ctx)
	switch {
	case err == nil:
		e.mu.Lock()
		was := e.reason
		e.reason = ""
		e.mu.Unlock()
		if was != "" {
			e.gauge.Record(0)
			e.log.InfoContext(ctx, "image provider model available again", "provider", e.provider.Name(), "model", e.provider.Model())
		}
	case errors.Is(err, engine.ErrModelMissing):
		e.markMissing(ctx, err)
	case ctx.Err() == nil:
		e.log.WarnContext(ctx, "image provider model lookup failed; state unchanged", "provider", e.provider.Name(), "model", e.provider.Model(), "err", err)
	}
}

// markMissing records why the model is missing, logging the change once.
func (e *Engine) markMissing(ctx context.Context, err error) {
	e.mu.Lock()
	was := e.reason
	e.reason = "the provider does not know the model"
	e.mu.Unlock()
	if was == "" {
		e.gauge.Record(1)
		e.log.ErrorContext(ctx, "image provider model missing: generations use the local engine until it is back or reconfigured",
			"provider", e.provider.Name(), "model", e.provider.Model(), "err", err)
	}
}

// Watch checks the model now and then every interval until ctx ends.
func (e *Engine) Watch(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		e.Check(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
