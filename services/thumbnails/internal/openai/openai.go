// Package openai is the image engine adapter for the OpenAI Images API (gpt-image-1: /v1/images/generations and /v1/images/edits).
package openai

import (
	"context"
	"errors"
	"net/http"
	"time"

	"hookline.dev/services/thumbnails/internal/engine"
)

// Config configures the adapter.
type Config struct {
	APIKey  string
	BaseURL string // the API's origin; tests point it at a fake
	Model   string
	Timeout time.Duration // bounds one call
	// HTTPClient, when set, replaces the default client.
	HTTPClient *http.Client
}

// Client implements engine.Engine over the provider's API.
type Client struct{}

// New checks cfg and returns a client.
func New(Config) (*Client, error) { return nil, errors.New("openai: not built yet") }

// Name is "openai".
func (*Client) Name() string { return "openai" }

// Generate draws req.
func (*Client) Generate(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, errors.New("openai: not built yet")
}

// Vary draws a variation of req.Parent.
func (*Client) Vary(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, errors.New("openai: not built yet")
}
