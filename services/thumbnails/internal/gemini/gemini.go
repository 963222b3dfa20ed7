// Package gemini is the image engine adapter for the Gemini API (generateContent with inline image data).
package gemini

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
func New(Config) (*Client, error) { return nil, errors.New("gemini: not built yet") }

// Name is "gemini".
func (*Client) Name() string { return "gemini" }

// Generate draws req.
func (*Client) Generate(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, errors.New("gemini: not built yet")
}

// Vary draws a variation of req.Parent.
func (*Client) Vary(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{}, errors.New("gemini: not built yet")
}
