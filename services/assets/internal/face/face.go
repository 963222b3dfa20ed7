// Package face holds the face record and its rules: a named person with 1 to
// 10 photos, each of which must show a detectable face, and a square crop of
// that face as the record's thumbnail.
package face

import (
	"errors"
	"fmt"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/assets/internal/validate"
)

// Limits.
const (
	MaxImages = 10
	// ThumbnailSize is the side of the square JPEG face crop.
	ThumbnailSize = 256
)

// ErrNotFound means no face with that id exists in the organization.
var ErrNotFound = errors.New("face not found")

// Face is a stored face. Image and thumbnail locations are object keys in
// our bucket; their public URLs are derived when the record is shown.
type Face struct {
	ID           string
	OrgID        string
	Name         string
	ImageKeys    []string
	ThumbnailKey string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Keys lists every object the face owns.
func (f Face) Keys() []string {
	return append(append([]string(nil), f.ImageKeys...), f.ThumbnailKey)
}

// Draft is a request to create a face.
type Draft struct {
	Name      string
	ImageURLs []string
}

// Validate returns d normalised (trimmed) or an InvalidRequest naming every
// failing field.
func (d Draft) Validate() (Draft, error) {
	f := apierr.Fields{}
	d.Name = validate.Name(f, "name", d.Name)
	d.ImageURLs = validate.URLs(f, "imageUrls", d.ImageURLs, MaxImages)
	return d, f.Err()
}

// Patch changes some fields of a face; nil fields stay as they are.
type Patch struct {
	Name      *string
	ImageURLs *[]string
}

// Validate applies the rules of Draft to the fields present and requires at
// least one.
func (p Patch) Validate() (Patch, error) {
	f := apierr.Fields{}
	if p.Name == nil && p.ImageURLs == nil {
		return p, apierr.Invalid("at least one of name, imageUrls is required", nil)
	}
	p.Name = validate.Optional(f, "name", p.Name, validate.Name)
	p.ImageURLs = validate.Optional(f, "imageUrls", p.ImageURLs, func(f apierr.Fields, field string, urls []string) []string {
		return validate.URLs(f, field, urls, MaxImages)
	})
	return p, f.Err()
}

// NoFaceReason is the reason given for a photo without a detectable face.
const NoFaceReason = "no face detected"

// NoFace is the 400 naming the photos without a face, by their index in
// the request's imageUrls.
func NoFace(urls []string, indexes []int) error {
	f := apierr.Fields{}
	for _, i := range indexes {
		f.Add(fmt.Sprintf("imageUrls[%d]", i), NoFaceReason)
	}
	err := f.Err()
	if len(indexes) == 1 {
		i := indexes[0]
		return apierr.Invalid(fmt.Sprintf("imageUrls[%d]: %s: %s", i, urls[i], NoFaceReason), map[string]string(f))
	}
	return err
}
