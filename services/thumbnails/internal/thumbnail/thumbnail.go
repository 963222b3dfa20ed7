// Package thumbnail holds the rules of a thumbnail: its kinds, the limits
// of the requests that make one, and their validation. It knows nothing of
// storage, transport or engines' internals.
package thumbnail

import (
	"errors"
	"time"
)

// Kind says how a thumbnail was made.
type Kind string

// The kinds the API reports. optimized and edit are made by the editing
// endpoints, which write into the same library.
const (
	Generated Kind = "generated"
	Variation Kind = "variation"
	Remix     Kind = "remix"
	Optimized Kind = "optimized"
	Edit      Kind = "edit"
)

// Kinds lists every kind, in the order the API documents them.
func Kinds() []Kind { return []Kind{Generated, Variation, Remix, Optimized, Edit} }

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	for _, v := range Kinds() {
		if k == v {
			return true
		}
	}
	return false
}

// ErrNotFound: no thumbnail of that id in the organization.
var ErrNotFound = errors.New("thumbnail: not found")

// Thumbnail is a picture in an organization's library. Optional ids are ""
// when unset.
type Thumbnail struct {
	ID           string
	OrgID        string
	Kind         Kind
	Prompt       string
	ParentID     string
	Aspect       Aspect
	Width        int
	Height       int
	StyleID      string
	BrandID      string
	FaceIDs      []string
	CollectionID string
	TemplateID   string
	// Engine is the name of the engine that drew it (local, openai, gemini).
	Engine string
	// Warning tells the client, in the answer that made it, why another
	// engine than the configured one drew it. Not stored.
	Warning  string
	ImageKey string
	// Seed is what drove the engine's choices, derived from ID.
	Seed uint64
	// ReservationID is the credit reservation that paid for it; "" for a
	// free edit.
	ReservationID string
	// Operation is the edit that made it (one of the Op values); "" for
	// the other kinds. Params are the edit's parameters as sent.
	Operation Op
	Params    map[string]string
	// Applied is what an edit applied, in its grammar's words ("vintage",
	// "film grain"), or what the local engine used of a generation's
	// prompt ("background bold yellow", "object laptop"); empty otherwise.
	Applied   []string
	CreatedAt time.Time
}

// Filter narrows a list; zero values match everything.
type Filter struct {
	Kind         Kind
	CollectionID string
}
