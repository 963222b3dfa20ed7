package style

import (
	"errors"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/assets/internal/validate"
)

// MaxReferences bounds the reference images of a style.
const MaxReferences = 10

// ProfileSeed fixes k-means' initialisation for stored profiles, so the
// same references always give the same profile.
const ProfileSeed = 1

// ErrNotFound means no style with that id exists in the organization.
var ErrNotFound = errors.New("style not found")

// Style is a stored style: references (object keys in our bucket) and the
// profile measured from them.
type Style struct {
	ID            string
	OrgID         string
	Name          string
	Description   string
	ReferenceKeys []string
	Profile       Profile
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Draft is a request to create a style.
type Draft struct {
	Name               string
	Description        string
	ReferenceImageURLs []string
}

// Validate returns d trimmed, or an InvalidRequest naming failing fields.
func (d Draft) Validate() (Draft, error) {
	f := apierr.Fields{}
	d.Name = validate.Name(f, "name", d.Name)
	d.Description = validate.Description(f, "description", d.Description)
	d.ReferenceImageURLs = validate.URLs(f, "referenceImageUrls", d.ReferenceImageURLs, MaxReferences)
	return d, f.Err()
}

// Patch changes some fields; nil fields stay. New references are analysed
// again.
type Patch struct {
	Name               *string
	Description        *string
	ReferenceImageURLs *[]string
}

// Validate applies Draft's rules to the fields present and requires one.
func (p Patch) Validate() (Patch, error) {
	if p.Name == nil && p.Description == nil && p.ReferenceImageURLs == nil {
		return p, apierr.Invalid("at least one of name, description, referenceImageUrls is required", nil)
	}
	f := apierr.Fields{}
	p.Name = validate.Optional(f, "name", p.Name, validate.Name)
	p.Description = validate.Optional(f, "description", p.Description, validate.Description)
	p.ReferenceImageURLs = validate.Optional(f, "referenceImageUrls", p.ReferenceImageURLs, func(f apierr.Fields, field string, urls []string) []string {
		return validate.URLs(f, field, urls, MaxReferences)
	})
	return p, f.Err()
}
