package vendorapi

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"hookline.dev/pkg/platform/telemetry"
)

const scope = "hookline.dev/pkg/ai/vendorapi"

// missingGauge is 1 while a provider's configured model is missing.
var missingGauge = telemetry.NewGauge(scope, "hookline.provider.model.missing",
	"1 while the configured model of an AI provider is unknown to the provider (retired, misspelt); the service then uses its local engine.")

// ModelWatch follows whether a provider still serves the configured
// model: Check (at start-up, then every interval by Watch) asks the
// vendor; an answer that the model does not exist marks it missing (one
// error logged, hookline_provider_model_missing 1), an answer that it
// does clears that, and any other failure (5xx, a timeout) changes
// nothing. It is safe for concurrent use.
type ModelWatch struct {
	use, provider, model string
	lookup               func(context.Context) error
	log                  *slog.Logger
	gauge                telemetry.Gauge

	mu     sync.Mutex
	reason string
}

// NewModelWatch watches model of provider, used for use ("image",
// "text", "transcription"); lookup is the adapter's model lookup
// (Dialect.LookupModel underneath), whose errors wrapping ErrModelMissing
// mean the model is gone.
func NewModelWatch(use, provider, model string, lookup func(context.Context) error, log *slog.Logger) *ModelWatch {
	g := missingGauge.With("use", use).With("provider", provider).With("model", model)
	g.Record(0)
	return &ModelWatch{use: use, provider: provider, model: model, lookup: lookup, log: log, gauge: g}
}

// Missing says why the model is missing; "" while it is there.
func (w *ModelWatch) Missing() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}

// Report is what /readyz shows of a provider whose model is missing.
type Report struct {
	Use      string `json:"use"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Status   string `json:"status"` // "degraded"
	Reason   string `json:"reason"`
}

// Degraded implements httpx.Component: the Report while the model is
// missing, nil otherwise.
func (w *ModelWatch) Degraded() any {
	if r := w.Missing(); r != "" {
		return Report{Use: w.use, Provider: w.provider, Model: w.model, Status: "degraded", Reason: r}
	}
	return nil
}

// Check asks the vendor once.
func (w *ModelWatch) Check(ctx context.Context) {
	err := w.lookup(ctx)
	switch {
	case err == nil:
		w.mu.Lock()
		was := w.reason
		w.reason = ""
		w.mu.Unlock()
		if was != "" {
			w.gauge.Record(0)
			w.log.InfoContext(ctx, "provider model available again", "use", w.use, "provider", w.provider, "model", w.model)
		}
	case errors.Is(err, ErrModelMissing):
		w.MarkMissing(ctx, err)
	case ctx.Err() == nil:
		w.log.WarnContext(ctx, "provider model lookup failed; state unchanged", "use", w.use, "provider", w.provider, "model", w.model, "err", err)
	}
}

// MarkMissing records that a call found the model gone (between two
// checks), logging the change once.
func (w *ModelWatch) MarkMissing(ctx context.Context, err error) {
	w.mu.Lock()
	was := w.reason
	w.reason = "the provider does not know the model " + w.model
	w.mu.Unlock()
	if was == "" {
		w.gauge.Record(1)
		w.log.ErrorContext(ctx, "provider model missing: the local engine stands in until it is back or reconfigured",
			"use", w.use, "provider", w.provider, "model", w.model, "err", err)
	}
}

// Watch checks now and then every interval until ctx ends.
func (w *ModelWatch) Watch(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		w.Check(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
