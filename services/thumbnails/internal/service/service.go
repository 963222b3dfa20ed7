// Package service runs the thumbnails use cases: it validates requests
// with the domain packages, resolves the assets records they name from the
// local read model (asking the assets service for the ids it has not seen
// yet), loads input pictures through the shared imageinput
// verifier, and runs every paid call as the credit saga of ARCHITECTURE
// §3, wired as pkg/contracts/credits describes: reserve through the Credits port,
// draw with the configured engine, put the picture in the bucket, then
// Store.Save stores the thumbnail with its events and completes the
// reservation in one transaction — or, when anything fails, the
// reservation is refunded. ResolveReservation judges the reservations a
// crash left open.
//
// The service owns the interfaces of what it uses (Store, Blobs, Images,
// Credits, AssetOwner, engine.Engine, Previewer, FaceDetector, Critic);
// the adapters live in internal/postgres, pkg/contracts/assetrecords, pkg/platform/s3store,
// pkg/media/imageinput, pkg/contracts/credits, pkg/media/vision and the engine and analyze
// packages.
package service

import (
	"cmp"
	"context"
	"image"
	"io"
	"log/slog"
	"time"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/membudget"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/clock"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
	"hookline.dev/services/thumbnails/internal/edits/matte"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/generate/template"
	"hookline.dev/services/thumbnails/internal/textai"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// Source names the service in event envelopes.
const Source = "thumbnails"

// Store is the service's database.
type Store interface {
	// Save stores t with evs and completes r with completed, in one
	// transaction. Errors: credits.ErrSettled (r was failed meanwhile;
	// nothing stored), or a database failure.
	Save(ctx context.Context, t thumbnail.Thumbnail, r credits.Reservation, evs []events.Envelope, completed events.Envelope) error
	// HasResult reports whether the result a reservation paid for (a
	// thumbnail or a critique) is stored. Errors: a database failure.
	HasResult(ctx context.Context, reservationID string) (bool, error)
	// Thumbnail errors: thumbnail.ErrNotFound, or a database failure.
	Thumbnail(ctx context.Context, orgID, id string) (thumbnail.Thumbnail, error)
	// ThumbnailByImage returns the organization's thumbnail whose picture
	// is the object key. Errors: thumbnail.ErrNotFound, or a database
	// failure.
	ThumbnailByImage(ctx context.Context, orgID, key string) (thumbnail.Thumbnail, error)
	// SaveFree stores a free edit with evs, in one transaction.
	SaveFree(ctx context.Context, t thumbnail.Thumbnail, evs []events.Envelope) error
	// SaveCritique stores c and completes r with completed, in one
	// transaction. Errors: credits.ErrSettled, or a database failure.
	SaveCritique(ctx context.Context, c critique.Record, r credits.Reservation, completed events.Envelope) error
	// Critique errors: critique.ErrNotFound, or a database failure.
	Critique(ctx context.Context, orgID, id string) (critique.Record, error)
	// ThumbnailsByID returns those of ids the organization has, in no order.
	ThumbnailsByID(ctx context.Context, orgID string, ids []string) ([]thumbnail.Thumbnail, error)
	// Thumbnails returns a page (newest first) and the total.
	Thumbnails(ctx context.Context, orgID string, f thumbnail.Filter, offset, limit int) ([]thumbnail.Thumbnail, int, error)
	// DeleteThumbnail removes a thumbnail with the event mk builds, in one
	// transaction. Errors: thumbnail.ErrNotFound, or a database failure.
	DeleteThumbnail(ctx context.Context, orgID, id string, mk func(thumbnail.Thumbnail) (events.Envelope, error)) (thumbnail.Thumbnail, error)
	// Templates returns a page of the catalogue (category "" for all).
	Templates(ctx context.Context, category string, offset, limit int) ([]template.Template, int, error)
	// Template errors: template.ErrNotFound, or a database failure.
	Template(ctx context.Context, id string) (template.Template, error)
	// TemplatesWithoutPreview lists the templates whose preview is missing
	// or older than version.
	TemplatesWithoutPreview(ctx context.Context, version int) ([]template.Template, error)
	SetPreview(ctx context.Context, id, key string, version int) error
	// Assets returns the organization's live records among refs.
	Assets(ctx context.Context, orgID string, refs []assetview.Ref) (map[assetview.Ref]assetview.Record, error)
	// UnseenAssets returns the refs whose record the view has no row of
	// (live, deleted or another organization's). Errors: a database
	// failure.
	UnseenAssets(ctx context.Context, refs []assetview.Ref) ([]assetview.Ref, error)
	// ApplyAsset applies an assets event once per (consumer, eventID).
	ApplyAsset(ctx context.Context, consumer, eventID string, c assetview.Change) error
	// LearnAssets applies the owner's answer about unseen records, by the
	// rule of ApplyAsset. Errors: a database failure.
	LearnAssets(ctx context.Context, cs []assetview.Change) error
}

// Blobs is the bucket.
type Blobs interface {
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Remove deletes key; a missing key is not an error.
	Remove(ctx context.Context, key string) error
	// PublicURL is the address that serves key, "" for "".
	PublicURL(key string) string
}

// Images loads and verifies the pictures a request names by URL: our own
// objects of the organization, or external URLs through the safe fetcher.
// Errors: an apierr.InvalidRequest naming field (field[i] for LoadAll), or
// an internal failure.
type Images interface {
	Load(ctx context.Context, orgID, field, rawURL string) (imageinput.Image, error)
	LoadAll(ctx context.Context, orgID, field string, urls []string) ([]imageinput.Image, error)
	// Check is Load up to the header: Img is nil; the memory of the work
	// is acquired from the headers, then Decode (or libvips) reads the
	// pixels.
	Check(ctx context.Context, orgID, field, rawURL string) (imageinput.Image, error)
	// Decode decodes a checked image: the 400 of a corrupt one.
	Decode(ctx context.Context, orgID, field string, img imageinput.Image) (imageinput.Image, error)
	// CheckAll and DecodeAll are LoadAll's two halves.
	CheckAll(ctx context.Context, orgID, field string, urls []string) ([]imageinput.Image, error)
	DecodeAll(ctx context.Context, orgID, field string, imgs []imageinput.Image) ([]imageinput.Image, error)
}

// Credits is billing's side of the saga (*credits.Client).
type Credits interface {
	// Reserve holds the credits of every item, all or nothing. Errors: an
	// *apierr.Error (402, 403, 409, 503), or an internal failure.
	Reserve(ctx context.Context, req credits.Request) ([]credits.Reservation, error)
	// Refund fails reservations whose work stored nothing, even after ctx
	// is cancelled. Errors: credits.ErrSettled (one completed already;
	// none is refunded), or a database failure.
	Refund(ctx context.Context, reason string, rs ...credits.Reservation) error
}

// Previewer draws a template's preview (the local compositor, whatever
// engine serves generations). Errors: ctx's or a fault.
type Previewer interface {
	Preview(ctx context.Context, name string, l layout.Layout, a thumbnail.Aspect) (engine.Result, error)
}

// FaceDetector finds the faces in a picture (*vision.Detector). It has no
// error: a picture it cannot read, or one without faces, has none.
type FaceDetector interface {
	Detect(img image.Image) []vision.Face
}

// Critic words the critique of measured metrics with a chat model
// (*critique.Chat). It has no error: when the model is unreachable or
// answers badly, the critique keeps the local wording and the engine says
// why ("local (fallback: …)").
type Critic interface {
	Word(ctx context.Context, m critique.Metrics, niche string) (critique.Critique, string)
}

// Service is the thumbnails application. Fields are set once before use.
type Service struct {
	Store  Store
	Blobs  Blobs
	Images Images
	// EditImages loads the pictures edits work on, at full size (Images
	// shrinks large ones for the engine).
	EditImages Images
	// Matte cuts subjects out (background removal and replacement).
	Matte matte.Remover
	// OCR reads the text a critique quotes and scores.
	OCR critique.Reader
	// Critic words critiques with a chat model; nil keeps the local
	// wording.
	Critic  Critic
	Credits Credits
	// AssetOwner is asked for the records the read model has not seen.
	AssetOwner AssetOwner
	Engine     engine.Engine
	Previews   Previewer
	// Text writes concepts, optimized prompts, titles and descriptions.
	Text textai.Engine
	// Videos reads hosted videos' captions and metadata.
	Videos Videos
	// Faces finds faces (text overlay placement, the cut-outs of saved
	// faces).
	Faces FaceDetector
	// Cutouts caches saved faces' cut-outs; nil cuts a face out each
	// time it is used.
	Cutouts *Cutouts
	Log     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Memory is the process's image memory (see memory.go); nil
	// budgets nothing. WorkTimeout, when positive, bounds the drawing of
	// one picture.
	Memory      *membudget.Budget
	WorkTimeout time.Duration
}

func (s *Service) now() time.Time { return clock.Now(s.Now) }

func (s *Service) log() *slog.Logger { return cmp.Or(s.Log, slog.Default()) }

// URL is the public URL of an object key, "" for "".
func (s *Service) URL(key string) string { return s.Blobs.PublicURL(key) }

// remove deletes an object, best effort: a leftover object costs storage,
// not correctness, so a failure is logged rather than returned.
func (s *Service) remove(ctx context.Context, key string) {
	if err := s.Blobs.Remove(context.WithoutCancel(ctx), key); err != nil {
		s.log().WarnContext(ctx, "removing object", "key", key, "err", err)
	}
}
