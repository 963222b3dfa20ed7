// Package service runs the thumbnails use cases. Every paid call is a
// credit saga (ARCHITECTURE §3): the request is validated and every input
// resolved first (nothing is charged for a request that cannot run), then
// the credits are reserved, the engine draws, the picture is stored, and
// the record, its created event and the completion that commits the
// credits are written in one transaction. A failed draw refunds. A crash
// in between leaves the reservation open for the recovery pass, which
// completes it when the record exists and refunds it otherwise.
package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"time"

	"hookline.dev/pkg/credits"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/imageinput"
	"hookline.dev/services/thumbnails/internal/asset"
	"hookline.dev/services/thumbnails/internal/engine"
	"hookline.dev/services/thumbnails/internal/layout"
	"hookline.dev/services/thumbnails/internal/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Source names the service in event envelopes.
const Source = "thumbnails"

// Operations, as billing records them in the usage history.
const (
	OpGenerate  = "thumbnail.generate"
	OpVariation = "thumbnail.variation"
	OpRemix     = "template.remix"
)

// Store is the service's database.
type Store interface {
	asset.View
	// Thumbnail returns thumbnail.ErrNotFound for an id the organization
	// does not have.
	Thumbnail(ctx context.Context, orgID, id string) (thumbnail.Thumbnail, error)
	Thumbnails(ctx context.Context, orgID string, f thumbnail.Filter, offset, limit int) ([]thumbnail.Thumbnail, int, error)
	// Save records t with its created event and completes r with the
	// completed event, in one transaction. credits.ErrSettled: r was
	// failed meanwhile (nothing was written).
	Save(ctx context.Context, t thumbnail.Thumbnail, r credits.Reservation, created, completed events.Envelope) error
	// Fail refunds r (its failed event goes to the outbox).
	Fail(ctx context.Context, r credits.Reservation, reason string) error
	// Delete removes the thumbnail and writes the event deleted builds,
	// returning what was removed; thumbnail.ErrNotFound when absent.
	Delete(ctx context.Context, orgID, id string, deleted func(thumbnail.Thumbnail) (events.Envelope, error)) (thumbnail.Thumbnail, error)

	// Template returns template.ErrNotFound for an unknown id.
	Template(ctx context.Context, id string) (template.Template, error)
	Templates(ctx context.Context, f template.Filter, offset, limit int) ([]template.Template, int, error)
	// TemplatesToPreview lists templates whose preview is missing or
	// older than version.
	TemplatesToPreview(ctx context.Context, version int) ([]template.Template, error)
	SetPreview(ctx context.Context, id, key string, version int) error

	// ApplyAsset records c in the read model unless the consumer handled
	// the event before or a newer change of the record is known.
	ApplyAsset(ctx context.Context, consumer, eventID string, c asset.Change) error
}

// Credits reserves credits with billing (a *credits.Client).
type Credits interface {
	Reserve(ctx context.Context, req credits.Request) ([]credits.Reservation, error)
}

// Blobs is the bucket.
type Blobs interface {
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	Remove(ctx context.Context, key string) error
	PublicURL(key string) string
}

// Images loads and verifies the images a request names (safe fetch, size
// and format checks, decode limits): a *imageinput.Source.
type Images interface {
	Load(ctx context.Context, orgID, field, rawURL string) (imageinput.Image, error)
	LoadAll(ctx context.Context, orgID, field string, urls []string) ([]imageinput.Image, error)
}

// Previewer draws a template's preview picture (the local compositor:
// previews show the design, whichever engine serves requests).
type Previewer interface {
	Preview(ctx context.Context, name string, l layout.Layout, a engine.Aspect) (engine.Result, error)
}

// Service is the thumbnails application. Fields are set once before use.
type Service struct {
	Store   Store
	Credits Credits
	Blobs   Blobs
	Images  Images
	Engine  engine.Engine
	// Previews draws template previews; nil skips them.
	Previews Previewer
	Log     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Draws bounds the engine calls running at once in the process (default
	// GOMAXPROCS): a draw holds full-size bitmaps, so more at once only adds
	// memory, not throughput.
	Draws int
	// Observe, when set, is told the outcome of every draw: kind, engine,
	// outcome (ok, failed, rejected, unavailable).
	Observe func(kind thumbnail.Kind, engine, outcome string)

	slots chan struct{}
}

// Start prepares the service; call it once before use.
func (s *Service) Start() {
	n := s.Draws
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	s.slots = make(chan struct{}, n)
	if s.Log == nil {
		s.Log = slog.Default()
	}
}

func (s *Service) now() time.Time {
	n := time.Now
	if s.Now != nil {
		n = s.Now
	}
	// Postgres keeps microseconds; truncating makes the answer of a write
	// equal what a later read returns.
	return n().UTC().Truncate(time.Microsecond)
}

// URL is the public address of an object.
func (s *Service) URL(key string) string {
	if key == "" {
		return ""
	}
	return s.Blobs.PublicURL(key)
}

// draw runs the engine within the process's draw slots.
func (s *Service) draw(ctx context.Context, kind thumbnail.Kind, req engine.Request) (engine.Result, error) {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return engine.Result{}, ctx.Err()
	}
	defer func() { <-s.slots }()
	var res engine.Result
	var err error
	if req.Parent != nil {
		res, err = s.Engine.Vary(ctx, req)
	} else {
		res, err = s.Engine.Generate(ctx, req)
	}
	if s.Observe != nil {
		s.Observe(kind, s.Engine.Name(), drawOutcome(err))
	}
	return res, err
}

func drawOutcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, engine.ErrRejected):
		return "rejected"
	case errors.Is(err, engine.ErrUnavailable):
		return "unavailable"
	}
	return "failed"
}
