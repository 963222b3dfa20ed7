// Package compose is the local image engine: a layered compositor on
// libvips that draws a real thumbnail offline, deterministic for a seed.
package compose

import (
	"context"
	"errors"

	"hookline.dev/services/thumbnails/internal/engine"
	"hookline.dev/services/thumbnails/internal/layout"
)

// Options configures the compositor.
type Options struct{}

// Engine is the local compositor; it implements engine.Engine.
type Engine struct{}

// New starts the compositor (libvips is started once per process).
func New(Options) (*Engine, error) { return nil, errors.New("compose: not built yet") }

// Name is "local".
func (*Engine) Name() string { return "local" }

// Generate draws req.
func (*Engine) Generate(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, errors.New("compose: not built yet")
}

// Vary draws a variation.
func (*Engine) Vary(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, errors.New("compose: not built yet")
}

// Preview draws the preview image of a template named name: its layout
// filled with sample content.
func (*Engine) Preview(context.Context, string, layout.Layout, engine.Aspect) (engine.Result, error) {
	return engine.Result{}, errors.New("compose: not built yet")
}
