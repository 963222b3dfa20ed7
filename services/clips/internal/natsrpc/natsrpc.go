// Package natsrpc holds the clips service's synchronous calls to other
// services over NATS request-reply: the brands its read model has not seen
// yet. (Billing's reserve goes through pkg/credits.)
package natsrpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/service"
)

// Assets implements service.BrandOwner over events.AssetsRecordsRPC; a
// call waits at most Timeout for the answer.
type Assets struct {
	Bus     *messaging.Bus
	Timeout time.Duration
}

var _ service.BrandOwner = (*Assets)(nil)

// Brand implements service.BrandOwner.
func (a *Assets) Brand(ctx context.Context, orgID, id string) (render.Brand, time.Time, error) {
	// The answer names the brand by its canonical id; a render request
	// may have spelled it in capitals.
	uid, err := uuid.Parse(id)
	if err != nil {
		return render.Brand{}, time.Time{}, render.ErrNoBrand
	}
	ref := events.AssetRef{Kind: events.AssetBrand, ID: uid.String()}
	ctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	var reply events.RecordsReply
	err = a.Bus.Request(ctx, events.AssetsRecordsRPC, events.RecordsRequest{OrgID: orgID, Records: []events.AssetRef{ref}}, &reply)
	switch {
	case errors.Is(err, messaging.ErrUnavailable):
		return render.Brand{}, time.Time{}, fmt.Errorf("%w: %w", service.ErrAssetsUnavailable, err)
	case err != nil:
		return render.Brand{}, time.Time{}, err
	case reply.Error != "":
		// The request is built from a validated id: a refusal is a
		// disagreement between the two services, an internal error.
		return render.Brand{}, time.Time{}, fmt.Errorf("natsrpc: assets refused the records request: %s", reply.Error)
	}
	for _, rec := range reply.Records {
		if rec.Kind == ref.Kind && rec.ID == ref.ID && rec.Brand != nil {
			return render.Brand{ID: ref.ID, OrgID: orgID, Name: rec.Brand.Name, Colors: rec.Brand.Colors, LogoURL: rec.Brand.LogoURL},
				rec.ChangedAt.UTC().Truncate(time.Microsecond), nil
		}
	}
	return render.Brand{}, time.Time{}, render.ErrNoBrand
}
