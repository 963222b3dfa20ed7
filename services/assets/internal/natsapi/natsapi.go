// Package natsapi serves the assets service over NATS: the records that
// other services' read models ask for when they miss an id
// (events.AssetsRecordsRPC, request-reply), and the consumer of the
// thumbnails events that keeps collections' thumbnails. Each handler
// decodes and checks what arrives and calls a typed use case.
package natsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/assets/internal/service"
)

// Queue is the queue group of the responders: the replicas of assets share
// the requests.
const Queue = "assets"

// Server answers the assets service's NATS requests and consumes its
// events.
type Server struct {
	Svc *service.Service
	Log *slog.Logger
}

// Records answers events.AssetsRecordsRPC with the records of the
// request's organization. A malformed request is refused in the reply
// (RecordsReply.Error), not with a handler error: the caller's mistake is
// not assets being unavailable, which a handler error would tell it.
func (s *Server) Records(ctx context.Context, data []byte) ([]byte, error) {
	var req events.RecordsRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return json.Marshal(events.RecordsReply{Error: "malformed request"})
	}
	org, refs, msg := validate(req)
	if msg != "" {
		return json.Marshal(events.RecordsReply{Error: msg})
	}
	recs, err := s.Svc.Records(ctx, org, refs)
	if err != nil {
		return nil, err
	}
	return json.Marshal(events.RecordsReply{Records: recs})
}

// validate returns the request's organization and refs in canonical form,
// or why it is refused.
func validate(req events.RecordsRequest) (string, []events.AssetRef, string) {
	org, err := uuid.Parse(req.OrgID)
	if err != nil {
		return "", nil, "orgId must be a uuid"
	}
	if len(req.Records) == 0 || len(req.Records) > events.MaxAssetRefs {
		return "", nil, fmt.Sprintf("records must name 1 to %d records", events.MaxAssetRefs)
	}
	refs := make([]events.AssetRef, len(req.Records))
	for i, r := range req.Records {
		switch r.Kind {
		case events.AssetFace, events.AssetStyle, events.AssetBrand, events.AssetCollection:
		default:
			return "", nil, fmt.Sprintf("records[%d].kind must be face, style, brand or collection", i)
		}
		id, err := uuid.Parse(r.ID)
		if err != nil {
			return "", nil, fmt.Sprintf("records[%d].id must be a uuid", i)
		}
		refs[i] = events.AssetRef{Kind: r.Kind, ID: id.String()}
	}
	return org.String(), refs, ""
}
