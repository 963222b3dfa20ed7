package chatmodel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/platform/config"
)

// Completer is the chat model port (*Client). Errors: ErrUnavailable,
// ErrMalformed, ctx's, or a configuration fault.
type Completer interface {
	Name() string
	Complete(ctx context.Context, req Request, out any) error
}

// Ask runs one chat task: up to two model answers, each decoded into out
// and checked by valid. It returns "" and nil on success; else the engine
// to report ("local (fallback: <model> <reason>)") and the last error, and
// the caller uses its local result. A model that is unreachable is not
// asked twice.
func Ask(ctx context.Context, m Completer, system, name, user string, schema map[string]any, out any, valid func() error) (string, error) {
	var last error
	for attempt := 0; attempt < 2; attempt++ {
		err := m.Complete(ctx, Request{System: system, User: user, SchemaName: name, Schema: schema}, out)
		if err == nil {
			err = valid()
			if err != nil {
				err = fmt.Errorf("%w: %w", ErrMalformed, err)
			}
		}
		if err == nil {
			return "", nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		last = err
		if !errors.Is(err, ErrMalformed) {
			break // unreachable or misconfigured: asking again now will not help
		}
	}
	reason := "failed"
	switch {
	case errors.Is(last, ErrMalformed):
		reason = "answered malformed JSON twice"
	case errors.Is(last, ErrModelMissing):
		// Said in the engine field of every answer, as /readyz and
		// hookline_provider_model_missing say it to the operator.
		reason = "is a model the provider does not know"
	case errors.Is(last, ErrUnavailable):
		reason = "was unavailable"
	}
	return fmt.Sprintf("local (fallback: %s %s)", m.Name(), reason), last
}

// FromConfig is the chat model c configures, nil for the local engine
// (HOOKLINE_TEXT_PROVIDER empty or "local").
func FromConfig(c config.Text) (Completer, error) {
	if c.TextProvider == "" || c.TextProvider == "local" {
		return nil, nil
	}
	m, err := New(Config{Provider: c.TextProvider, APIKey: c.TextAPIKey, BaseURL: c.TextBaseURL, Model: c.TextModel, Timeout: c.TextTimeout})
	if err != nil {
		return nil, fmt.Errorf("HOOKLINE_TEXT_*: %w", err)
	}
	return m, nil
}

// Watch follows m's model at its provider (vendorapi.ModelWatch),
// for /readyz and hookline_provider_model_missing; nil when m is not a
// hosted chat model (the local engine).
func Watch(m Completer, log *slog.Logger) *vendorapi.ModelWatch {
	c, ok := m.(*Client)
	if !ok {
		return nil
	}
	return vendorapi.NewModelWatch("text", c.Provider(), c.Model(), c.CheckModel, log)
}
