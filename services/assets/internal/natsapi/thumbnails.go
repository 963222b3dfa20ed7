package natsapi

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
)

// ThumbnailsConsumer is the durable consumer (and inbox name) of the
// thumbnails projection.
const ThumbnailsConsumer = events.DurableAssetsThumbnails

// ThumbnailsSubjects are the thumbnails events the projection follows.
var ThumbnailsSubjects = []string{events.ThumbnailsThumbnailCreated, events.ThumbnailsThumbnailDeleted}

// Thumbnails handles an event of ThumbnailsSubjects: it checks the
// envelope and the payload's ids (canonical uuids; anything else is
// invalid for good) and calls the use case of its type, which is
// idempotent.
func (s *Server) Thumbnails(ctx context.Context, env events.Envelope) error {
	org, ok := canonicalUUID(env.OrgID)
	if !ok {
		return events.Invalid(fmt.Errorf("event %s: orgId %q is not a uuid", env.ID, env.OrgID))
	}
	env.OrgID = org
	switch env.Type {
	case events.ThumbnailsThumbnailCreated:
		var t events.ThumbnailCreated
		if err := env.Decode(&t); err != nil {
			return events.Invalid(err)
		}
		if t.ThumbnailID, ok = canonicalUUID(t.ThumbnailID); !ok {
			return events.Invalid(fmt.Errorf("event %s: thumbnailId is not a uuid", env.ID))
		}
		if t.CollectionID != "" {
			cid, ok := canonicalUUID(t.CollectionID)
			if !ok {
				// The thumbnail still exists; it just cannot join anything.
				s.log().WarnContext(ctx, "thumbnail event names a collection id that is not a uuid", "event_id", env.ID, "collection_id", t.CollectionID)
			}
			t.CollectionID = cid
		}
		return s.Svc.ThumbnailCreated(ctx, ThumbnailsConsumer, env, t)
	case events.ThumbnailsThumbnailDeleted:
		var t events.ThumbnailDeleted
		if err := env.Decode(&t); err != nil {
			return events.Invalid(err)
		}
		if t.ThumbnailID, ok = canonicalUUID(t.ThumbnailID); !ok {
			return events.Invalid(fmt.Errorf("event %s: thumbnailId is not a uuid", env.ID))
		}
		return s.Svc.ThumbnailDeleted(ctx, ThumbnailsConsumer, env, t)
	default:
		return nil
	}
}

func (s *Server) log() *slog.Logger { return cmp.Or(s.Log, slog.Default()) }

// canonicalUUID is s in canonical form, when s is a uuid in its 36
// characters.
func canonicalUUID(s string) (string, bool) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", false
	}
	return id.String(), true
}
