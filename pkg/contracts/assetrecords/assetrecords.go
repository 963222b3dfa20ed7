// Package assetrecords asks the assets service for its records by id, over
// events.AssetsRecordsRPC. It is what a read model of assets records does
// on a miss (pkg/platform/messaging, "Read models"): an id it has never seen may
// have been created a moment ago, its event still on the way, so the owner
// is asked before a request is told 404. Thumbnails and clips share this
// client, as every paid service shares pkg/contracts/credits; each maps the answer
// into its own view.
package assetrecords

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
)

// ErrUnavailable means the assets service did not answer (no responder,
// timeout): the caller answers 503, never a 404 that may be false.
var ErrUnavailable = errors.New("assetrecords: the assets service did not answer")

// Client asks the assets service; a call waits at most Timeout for the
// answer (a primary-key read there, so past it assets is as good as down).
type Client struct {
	Bus     *messaging.Bus
	Timeout time.Duration
}

// Records returns orgID's records among refs as assets holds them now,
// each with the payload of its last event and when it last changed; a
// record assets does not hold (never created, deleted, another
// organization's) is left out. Errors: ErrUnavailable when no answer came;
// a fault when assets refused the request (refs are built from validated
// ids, so a refusal is a disagreement between the services) or answered
// with a record that was not asked for or has no payload.
func (c *Client) Records(ctx context.Context, orgID string, refs []events.AssetRef) ([]events.AssetRecord, error) {
	asked := make(map[events.AssetRef]bool, len(refs))
	for _, r := range refs {
		asked[r] = true
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	var reply events.RecordsReply
	err := c.Bus.Request(ctx, events.AssetsRecordsRPC, events.RecordsRequest{OrgID: orgID, Records: refs}, &reply)
	switch {
	case errors.Is(err, messaging.ErrUnavailable):
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	case err != nil:
		return nil, err
	case reply.Error != "":
		return nil, fmt.Errorf("assetrecords: assets refused the records request: %s", reply.Error)
	}
	for i, rec := range reply.Records {
		if !asked[events.AssetRef{Kind: rec.Kind, ID: rec.ID}] {
			// The caller would file it under the asking organization.
			return nil, fmt.Errorf("assetrecords: assets answered with %s %s, which was not asked for", rec.Kind, rec.ID)
		}
		if Payload(rec) == nil {
			return nil, fmt.Errorf("assetrecords: assets answered a %s %s without its payload", rec.Kind, rec.ID)
		}
		reply.Records[i].ChangedAt = rec.ChangedAt.UTC().Truncate(time.Microsecond)
	}
	return reply.Records, nil
}

// Payload is the record's data as its last event carried it (a
// *events.FaceChanged, StyleChanged, BrandChanged or CollectionChanged),
// nil when the record carries none of its kind.
func Payload(rec events.AssetRecord) any {
	switch {
	case rec.Kind == events.AssetFace && rec.Face != nil:
		return rec.Face
	case rec.Kind == events.AssetStyle && rec.Style != nil:
		return rec.Style
	case rec.Kind == events.AssetBrand && rec.Brand != nil:
		return rec.Brand
	case rec.Kind == events.AssetCollection && rec.Collection != nil:
		return rec.Collection
	}
	return nil
}
