// Package template holds the remixable templates: seeded designs that a
// remix fills with the caller's prompt, headline, faces, brand and style.
package template

import (
	"errors"
	"strconv"

	"hookline.dev/services/thumbnails/internal/engine"
	"hookline.dev/services/thumbnails/internal/layout"
)

// PreviewVersion is the version of the preview pictures the code draws;
// raising it re-renders every template's preview at the next start-up
// (after a change of the compositor or the previews' sample content).
const PreviewVersion = 1

// Template is a remixable design.
type Template struct {
	ID          string
	Name        string
	Category    string
	Description string
	Aspect      engine.Aspect
	Layout      layout.Layout
	// PreviewKey is the object key of the preview picture; empty until
	// it is rendered.
	PreviewKey     string
	PreviewVersion int
}

// PreviewKey is where the preview of template id at version v is stored:
// under orgs/, which the bucket policy makes publicly readable, beneath a
// prefix that is no organization's id (they are uuids).
func PreviewKey(id string, v int) string {
	return "orgs/templates/" + id + "-v" + strconv.Itoa(v) + ".jpg"
}

// Filter narrows a list; an empty Category does not filter.
type Filter struct {
	Category string
}

// ErrNotFound: no template with that id.
var ErrNotFound = errors.New("template: not found")
