// Package template is the catalogue of designs a user remixes: a template
// is a named layout (internal/layout) in a category, with a preview image
// rendered by the local engine.
package template

import (
	"errors"
	"regexp"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// PreviewVersion is the version of the preview drawing. Raise it when the
// compositor or the sample content changes visibly: every template whose
// stored preview is older is rendered again at the next start-up.
const PreviewVersion = 1

// ErrNotFound: no template of that id.
var ErrNotFound = errors.New("template: not found")

// Template is one design of the catalogue.
type Template struct {
	ID          string
	Name        string
	Category    string
	Description string
	Aspect      thumbnail.Aspect
	Layout      layout.Layout
	Position    int
	// PreviewKey is the object key of the rendered preview, "" until the
	// first rendering.
	PreviewKey     string
	PreviewVersion int
}

// NeedsPreview reports whether the preview is missing or drawn by an older
// version.
func (t Template) NeedsPreview() bool {
	return t.PreviewKey == "" || t.PreviewVersion < PreviewVersion
}

// category is the form of a category name: lower-case words joined by
// hyphens. A well-formed but unknown category lists nothing.
var category = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ParseCategory checks the category filter of a list; "" is no filter.
func ParseCategory(s string) (string, error) {
	if s == "" || (len(s) <= 50 && category.MatchString(s)) {
		return s, nil
	}
	return "", apierr.Field("category", "must be a lower-case category name such as gaming or tech")
}
