package service

import (
	"errors"

	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

const scope = "hookline.dev/services/thumbnails"

// generations counts the pictures the saga tried to make, by kind, engine
// and outcome.
var generations = telemetry.NewCounter(scope, "hookline.thumbnails.generations",
	"Thumbnails the saga tried to make, by kind, engine and outcome (completed, rejected, unavailable, failed).")

// Outcomes of one generation.
const (
	outcomeCompleted   = "completed"
	outcomeRejected    = "rejected"
	outcomeUnavailable = "unavailable"
	outcomeFailed      = "failed"
)

func outcomeOf(err error) string {
	switch {
	case errors.Is(err, engine.ErrRejected):
		return outcomeRejected
	case errors.Is(err, engine.ErrUnavailable):
		return outcomeUnavailable
	}
	return outcomeFailed
}

func countGeneration(t thumbnail.Thumbnail, outcome string) {
	generations.With("kind", string(t.Kind)).With("engine", t.Engine).With("outcome", outcome).Add(1)
}
