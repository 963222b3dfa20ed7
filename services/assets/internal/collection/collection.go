// Package collection holds collections of thumbnails and their rules. The
// thumbnails themselves belong to the thumbnails service; this service
// knows them from its events (a projection), so membership can only name
// thumbnails the projection knows, in the same organization, not deleted.
package collection

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/assets/internal/validate"
)

// MaxThumbnailIDs bounds the ids of one membership request.
const MaxThumbnailIDs = 100

// ErrNotFound means no collection with that id exists in the organization.
var ErrNotFound = errors.New("collection not found")

// UnknownThumbnailsError names thumbnails of a membership request that the
// organization does not have (unknown, another organization's, deleted).
type UnknownThumbnailsError struct{ IDs []string }

func (e *UnknownThumbnailsError) Error() string {
	return "thumbnails not found: " + strings.Join(e.IDs, ", ")
}

// Collection is a named set of thumbnails.
type Collection struct {
	ID             string
	OrgID          string
	Name           string
	Description    string
	ThumbnailCount int
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Thumbnail is a member of a collection, as the projection knows it.
type Thumbnail struct {
	ID       string
	ImageURL string
	Prompt   string
	AddedAt  time.Time
}

// Membership is a change of a collection's thumbnails.
type Membership struct {
	CollectionID string
	Added        []string
	Removed      []string
}

// Draft is a request to create a collection.
type Draft struct {
	Name        string
	Description string
}

// Validate returns d trimmed, or an InvalidRequest naming failing fields.
func (d Draft) Validate() (Draft, error) {
	f := apierr.Fields{}
	d.Name = validate.Name(f, "name", d.Name)
	d.Description = validate.Description(f, "description", d.Description)
	return d, f.Err()
}

// Patch changes some fields; nil fields stay.
type Patch struct {
	Name        *string
	Description *string
}

// Validate applies Draft's rules to the fields present and requires one.
func (p Patch) Validate() (Patch, error) {
	if p.Name == nil && p.Description == nil {
		return p, apierr.Invalid("at least one of name, description is required", nil)
	}
	f := apierr.Fields{}
	p.Name = validate.Optional(f, "name", p.Name, validate.Name)
	p.Description = validate.Optional(f, "description", p.Description, validate.Description)
	return p, f.Err()
}

// ThumbnailIDs validates a membership request: exactly one of a single id
// or a list of 1..100 ids, each a uuid. It returns the distinct ids in
// canonical form, in request order.
func ThumbnailIDs(single *string, list []string, listSent bool) ([]string, error) {
	switch {
	case single != nil && listSent:
		return nil, apierr.Invalid("send either thumbnailId or thumbnailIds, not both", map[string]string{
			"thumbnailId": "cannot be combined with thumbnailIds", "thumbnailIds": "cannot be combined with thumbnailId",
		})
	case single == nil && !listSent:
		return nil, apierr.Invalid("thumbnailId or thumbnailIds is required", map[string]string{
			"thumbnailId": "thumbnailId or thumbnailIds is required",
		})
	}
	f := apierr.Fields{}
	var raw []string
	field := func(i int) string { return fmt.Sprintf("thumbnailIds[%d]", i) }
	if single != nil {
		raw = []string{*single}
		field = func(int) string { return "thumbnailId" }
	} else {
		if len(list) == 0 || len(list) > MaxThumbnailIDs {
			return nil, apierr.Field("thumbnailIds", fmt.Sprintf("must hold 1 to %d ids", MaxThumbnailIDs))
		}
		raw = list
	}
	seen := make(map[string]bool, len(raw))
	ids := make([]string, 0, len(raw))
	for i, s := range raw {
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			f.Add(field(i), "must be a uuid")
			continue
		}
		c := id.String()
		if !seen[c] {
			seen[c] = true
			ids = append(ids, c)
		}
	}
	return ids, f.Err()
}
