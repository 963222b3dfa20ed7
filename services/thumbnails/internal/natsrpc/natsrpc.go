// Package natsrpc holds the thumbnails service's synchronous calls to other
// services over NATS request-reply: the assets records its read model has
// not seen yet. (Billing's reserve goes through pkg/credits.)
package natsrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// Assets implements service.AssetOwner over events.AssetsRecordsRPC; a
// call waits at most Timeout for the answer.
type Assets struct {
	Bus     *messaging.Bus
	Timeout time.Duration
}

var _ service.AssetOwner = (*Assets)(nil)

// Records implements service.AssetOwner.
func (a *Assets) Records(ctx context.Context, orgID string, refs []assetview.Ref) ([]assetview.Change, error) {
	req := events.RecordsRequest{OrgID: orgID, Records: make([]events.AssetRef, len(refs))}
	asked := make(map[events.AssetRef]bool, len(refs))
	for i, r := range refs {
		req.Records[i] = events.AssetRef{Kind: string(r.Kind), ID: r.ID}
		asked[req.Records[i]] = true
	}
	ctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	var reply events.RecordsReply
	if err := a.Bus.Request(ctx, events.AssetsRecordsRPC, req, &reply); errors.Is(err, messaging.ErrUnavailable) {
		return nil, fmt.Errorf("%w: %w", service.ErrAssetsUnavailable, err)
	} else if err != nil {
		return nil, err
	}
	if reply.Error != "" {
		// The request is built from validated ids: a refusal is a
		// disagreement between the two services, an internal error.
		return nil, fmt.Errorf("natsrpc: assets refused the records request: %s", reply.Error)
	}
	out := make([]assetview.Change, len(reply.Records))
	for i, rec := range reply.Records {
		if !asked[events.AssetRef{Kind: rec.Kind, ID: rec.ID}] {
			// The view would file it under the asking organization.
			return nil, fmt.Errorf("natsrpc: assets answered with %s %s, which was not asked for", rec.Kind, rec.ID)
		}
		data, err := payload(rec)
		if err != nil {
			return nil, err
		}
		out[i] = assetview.Change{Kind: assetview.Kind(rec.Kind), ID: rec.ID, OrgID: orgID, Data: data,
			At: rec.ChangedAt.UTC().Truncate(time.Microsecond)}
	}
	return out, nil
}

// payload is the record's data as its last event carried it, the form the
// view keeps.
func payload(rec events.AssetRecord) ([]byte, error) {
	var p any
	switch {
	case rec.Kind == events.AssetFace && rec.Face != nil:
		p = rec.Face
	case rec.Kind == events.AssetStyle && rec.Style != nil:
		p = rec.Style
	case rec.Kind == events.AssetBrand && rec.Brand != nil:
		p = rec.Brand
	case rec.Kind == events.AssetCollection && rec.Collection != nil:
		p = rec.Collection
	default:
		return nil, fmt.Errorf("natsrpc: assets answered a %s %s without its payload", rec.Kind, rec.ID)
	}
	return json.Marshal(p)
}
