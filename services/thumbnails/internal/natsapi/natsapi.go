// Package natsapi serves thumbnails over NATS: the consumer of the assets
// events its read model follows. It decodes each envelope, refuses what
// is malformed for good (events.Invalid), and calls the typed use case.
package natsapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// AssetsConsumer is the durable consumer of the read model of assets
// records; it also names the read model's inbox.
const AssetsConsumer = events.DurableThumbnailsAssets

// AssetsSubjects are the assets events the read model follows.
var AssetsSubjects = []string{"assets.face.>", "assets.style.>", "assets.brand.>",
	events.AssetsCollectionCreated, events.AssetsCollectionUpdated, events.AssetsCollectionDeleted}

// Records is the use case the consumer calls (*service.Service).
type Records interface {
	// ApplyAsset applies one change of an assets record to the read model,
	// once for the event id consumer delivered. Errors: a database
	// failure, which the consumer retries.
	ApplyAsset(ctx context.Context, consumer, eventID string, c assetview.Change) error
}

// Server holds the NATS handlers of thumbnails.
type Server struct {
	Records Records
}

// Assets handles an event of AssetsSubjects. It is idempotent: the inbox
// row is written in the transaction of the change, and the change itself
// never moves a record back in time.
func (s *Server) Assets(ctx context.Context, env events.Envelope) error {
	org, err := uuid.Parse(env.OrgID)
	if err != nil {
		return events.Invalid(fmt.Errorf("event %s: orgId %q is not a uuid", env.ID, env.OrgID))
	}
	var kind assetview.Kind
	// Every assets payload names its record as the deleted event does: the
	// embedded payloads of pkg/contracts/events read whichever id is there.
	var ids struct {
		events.FaceDeleted
		events.StyleDeleted
		events.BrandDeleted
		events.CollectionDeleted
	}
	if err := env.Decode(&ids); err != nil {
		return events.Invalid(err)
	}
	var id string
	switch p := strings.Split(env.Type, "."); {
	case len(p) != 4 || p[0] != "assets":
		return nil
	case p[1] == "face":
		kind, id = assetview.Face, ids.FaceID
	case p[1] == "style":
		kind, id = assetview.Style, ids.StyleID
	case p[1] == "brand":
		kind, id = assetview.Brand, ids.BrandID
	case p[1] == "collection" && p[2] != "thumbnails_changed":
		kind, id = assetview.Collection, ids.CollectionID
	default:
		return nil
	}
	rid, err := uuid.Parse(id)
	if err != nil {
		return events.Invalid(fmt.Errorf("event %s: record id %q is not a uuid", env.ID, id))
	}
	at := env.OccurredAt
	if at.IsZero() {
		at = time.Now()
	}
	return s.Records.ApplyAsset(ctx, AssetsConsumer, env.ID, assetview.Change{
		Kind: kind, ID: rid.String(), OrgID: org.String(), Data: env.Data,
		Deleted: strings.HasSuffix(env.Type, ".deleted.v1"), At: at.UTC().Truncate(time.Microsecond),
	})
}
