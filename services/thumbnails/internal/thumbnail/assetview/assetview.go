// Package assetview is the thumbnails service's view of the records the
// assets service owns (styles, brands, faces, collections): what a request
// may name and what the engine needs of them, kept up to date from the
// assets events rather than asked for (ARCHITECTURE §4).
//
// The view serves speed, never the truth about an id written a moment
// ago: it lags the owner by the relay and the consumer. An id it has no
// row of at all is asked of the owner before anyone is told 404, and the
// answer is kept as a Change like an event's, ordered by when the record
// last changed (see pkg/platform/messaging, "Read models"). A row it has (live,
// deleted, another organization's) is the answer: a deletion is final and
// ids are never reused.
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

// Change is what one assets event, or the owner's answer about a record
// the view had not seen, does to the view: it sets Data, or deletes the
// record. At orders changes: an older change never overwrites a newer one,
// and nothing brings a deleted record back.
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
