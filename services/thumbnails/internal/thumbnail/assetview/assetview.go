// Package assetview is the thumbnails service's view of the records the
// assets service owns (styles, brands, faces, collections): what a request
// may name and what the engine needs of them, kept up to date from the
// assets events rather than asked for (ARCHITECTURE §4).
package assetview

import "time"

// Kind is the kind of an assets record.
type Kind string

// The kinds the view keeps.
const (
	Style      Kind = "style"
	Brand      Kind = "brand"
	Face       Kind = "face"
	Collection Kind = "collection"
)

// Ref names one record a request refers to, and the request field that
// named it (styleId, faceIds[2], ...).
type Ref struct {
	Kind  Kind
	ID    string
	Field string
}

// Record is the view of one live record: the payload of the last assets
// event about it (an events.StyleChanged, BrandChanged, FaceChanged or
// CollectionChanged, as JSON).
type Record struct {
	Kind  Kind
	ID    string
	OrgID string
	Data  []byte
}

// Change is what one assets event does to the view: it sets Data, or
// deletes the record. At orders changes: an older change never overwrites
// a newer one.
type Change struct {
	Kind    Kind
	ID      string
	OrgID   string
	Data    []byte
	Deleted bool
	At      time.Time
}

// Missing returns the refs that records does not hold.
func Missing(refs []Ref, records map[Ref]Record) []Ref {
	var out []Ref
	for _, r := range refs {
		if _, ok := records[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}
