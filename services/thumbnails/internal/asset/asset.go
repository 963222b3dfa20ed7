// Package asset is the thumbnails service's view of the assets service's
// records — styles, brands, faces and collections — as far as a picture
// needs them. The view is kept from assets' events (ARCHITECTURE §4), so a
// request resolves its styleId, brandId, faceIds and collectionId without
// calling assets.
package asset

import (
	"context"
	"errors"
	"time"
)

// Kind names a record type.
type Kind string

// The kinds of record.
const (
	StyleKind      Kind = "style"
	BrandKind      Kind = "brand"
	FaceKind       Kind = "face"
	CollectionKind Kind = "collection"
)

// Swatch is one palette colour, "#rrggbb", with its share.
type Swatch struct {
	Hex    string
	Weight float64
}

// Style is a style's measured look.
type Style struct {
	ID          string
	Name        string
	Description string
	Palette     []Swatch
	Brightness  float64
	Contrast    float64
	Saturation  float64
	Warmth      float64
}

// Brand is a brand's colours ("#rrggbb", primary first), fonts and logo.
type Brand struct {
	ID      string
	Name    string
	Colors  []string
	Fonts   []string
	LogoURL string
}

// Face is a saved face; CropURL is its square crop (one of our objects).
type Face struct {
	ID      string
	Name    string
	CropURL string
}

// Collection is a collection a thumbnail may be created into.
type Collection struct {
	ID   string
	Name string
}

// Change is one record's new state from an event. Deleted changes carry
// only the id. Record is a Style, Brand, Face or Collection.
type Change struct {
	OrgID   string
	Kind    Kind
	ID      string
	Version time.Time // when assets made the change
	Deleted bool
	Record  any
}

// NotFoundError names the request field whose record the organization
// does not have (unknown, deleted, or another organization's).
type NotFoundError struct {
	Field string
	Kind  Kind
}

func (e *NotFoundError) Error() string { return string(e.Kind) + " not found (" + e.Field + ")" }

// ErrNotFound is what a View returns for a record it does not hold.
var ErrNotFound = errors.New("asset: not found")

// View reads the records of one organization. Each method returns
// ErrNotFound for an id that is unknown, deleted or another
// organization's.
type View interface {
	Style(ctx context.Context, orgID, id string) (Style, error)
	Brand(ctx context.Context, orgID, id string) (Brand, error)
	// Faces returns the faces in the order of ids; ErrNotFound wrapped
	// in a *MissingError names the first missing index.
	Faces(ctx context.Context, orgID string, ids []string) ([]Face, error)
	Collection(ctx context.Context, orgID, id string) (Collection, error)
}

// MissingError is Faces' answer when one id is not found: Index is its
// position in the request.
type MissingError struct{ Index int }

func (e *MissingError) Error() string { return "asset: face not found" }

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *MissingError) Unwrap() error { return ErrNotFound }
