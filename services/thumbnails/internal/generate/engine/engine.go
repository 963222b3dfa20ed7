// Package engine is the contract between the thumbnails service and the
// engines that draw its pictures: the local compositor (the default,
// offline and deterministic for a seed) and the hosted image providers.
// The service resolves every input (style, brand, faces, reference
// images, template) before it calls an engine, so engines do no I/O of
// their own beyond their provider's API.
package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"time"

	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Picture is an input image: the file as stored (JPEG or PNG, for engines
// that send or load bytes) and its decoded form (for engines that measure
// or draw in Go). Either may be what an engine uses; both are always set.
type Picture struct {
	Data []byte
	Img  image.Image
}

// Swatch is one colour of a palette and its share of the image.
type Swatch struct {
	Color  color.RGBA
	Weight float64
}

// Style is a saved style: the measured look of its reference images.
type Style struct {
	Name        string
	Description string
	Palette     []Swatch // dominant colours, heaviest first
	Brightness  float64  // 0..1
	Contrast    float64  // 0..1
	Saturation  float64  // 0..1
	Warmth      float64  // -1 (cool) .. 1 (warm)
}

// Brand is a saved brand: its colours (primary first), fonts and logo.
type Brand struct {
	Name   string
	Colors []color.RGBA
	Fonts  []string
	Logo   *Picture // nil when the brand has none
}

// Face is a saved face: the square crop around it.
type Face struct {
	Name string
	Crop Picture
	// Cutout is the person in Crop: its coverage, Crop.Img's size with
	// bounds at the origin (255 on the person, 0 on the background),
	// from the background remover seeded by the face's landmarks. Nil
	// when none was made (no face found in the crop); an engine then
	// finds the background its own way.
	Cutout *image.Alpha
}

// Request is one picture to draw. Only Prompt or Headline, Aspect and Seed
// are always set; everything else is optional guidance.
type Request struct {
	// Prompt is the user's concept description (empty for a remix without
	// one).
	Prompt string
	// Headline is the text to set, when the user chose it (remix); empty
	// means the engine derives one from Prompt.
	Headline string
	// Tweak is a variation's change request, on top of Prompt.
	Tweak  string
	Aspect thumbnail.Aspect
	// Seed drives every choice a local engine makes: one seed, one image.
	Seed       uint64
	Style      *Style
	Brand      *Brand
	Faces      []Face
	References []Picture
	// Template is the layout of a remixed template, nil otherwise.
	Template *layout.Layout
	// Parent is the image a variation starts from, nil otherwise.
	Parent *Picture
}

// Result is a drawn picture.
type Result struct {
	Data        []byte // the encoded file
	ContentType string // image/jpeg, or image/png when transparency matters
	Width       int
	Height      int
	// Engine names what drew it when that is not the configured engine
	// (the local engine standing in for a provider); empty otherwise.
	Engine string
	// Warning tells the client why, when Engine is set.
	Warning string
	// Applied lists what the local engine used of the prompt's art
	// direction (package scene), in the edits' style: "background bold
	// yellow", "object laptop", "pointing at laptop", "compare iphone vs
	// android", "number $1", "text left"; empty when it used none.
	Applied []string
}

// Errors an engine returns (wrapped, with detail). Any other error is an
// engine fault.
var (
	// ErrUnavailable: the provider could not be reached, timed out, or
	// refused for load (429, 5xx). The caller may retry later.
	ErrUnavailable = errors.New("engine: provider unavailable")
	// ErrRejected: the provider refused the request's content (a safety
	// system, a prompt it will not draw).
	ErrRejected = errors.New("engine: request rejected by the provider")
	// ErrModelMissing: the provider does not know the configured model
	// (retired, misspelt, not open to the key). No retry helps until the
	// operator changes the model or the provider restores it.
	ErrModelMissing = errors.New("engine: the provider does not know the model")
)

// Outage says why a provider could not draw: errors wrapping
// ErrUnavailable carry one (errors.As).
type Outage struct {
	Reason string // one of the Reason constants
	// RetryAfter is the wait the provider asked for; 0 when it gave none,
	// and then nobody should invent one.
	RetryAfter time.Duration
}

// The reasons of an Outage.
const (
	ReasonUnreachable    = "unavailable"     // no answer, a timeout, 408 or 5xx
	ReasonRateLimited    = "rate_limited"    // still rate limited when the request's time ran out
	ReasonQuotaExhausted = "quota_exhausted" // the operator's quota or credit at the provider is spent
	ReasonNoImage        = "no_image"        // the provider answered, without a picture, for no content reason
)

func (o *Outage) Error() string {
	if o.RetryAfter > 0 {
		return fmt.Sprintf("%s (retry after %s)", o.Reason, o.RetryAfter)
	}
	return o.Reason
}

// Refusal is the provider's reason for an ErrRejected, in its own words
// (a block reason, a moderation code and message): errors wrapping
// ErrRejected from a provider carry one (errors.As).
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// ModelChecker is an engine that can ask its provider whether its model
// exists.
type ModelChecker interface {
	// Model is the configured model's name.
	Model() string
	// CheckModel returns nil when the provider knows the model, an error
	// wrapping vendorapi.ErrModelMissing when it answers that it does not,
	// and any other error when it could not tell (which says nothing
	// about the model).
	CheckModel(ctx context.Context) error
}

// Generator draws a new picture.
type Generator interface {
	// Name is the engine's name as the API reports it: local, openai,
	// gemini.
	Name() string
	// Generate draws req. Errors: ErrUnavailable, ErrRejected,
	// ErrModelMissing, or a fault; ctx's deadline bounds it.
	Generate(ctx context.Context, req Request) (Result, error)
}

// Varier draws a variation of req.Parent, which is set, steered by
// req.Tweak and req.Seed: two seeds give two different pictures.
type Varier interface {
	Name() string
	// Vary errors as Generate.
	Vary(ctx context.Context, req Request) (Result, error)
}

// Engine is what the service needs of a configured engine.
type Engine interface {
	Generator
	Varier
}
