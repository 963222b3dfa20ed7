package service

import (
	"context"
	"errors"
	"fmt"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/assets/internal/brand"
	"hookline.dev/services/assets/internal/collection"
	"hookline.dev/services/assets/internal/face"
	"hookline.dev/services/assets/internal/style"
)

// Records answers another service whose read model has not seen some ids
// yet (events.AssetsRecordsRPC): the organization's records among refs,
// each as its last created or updated event describes it and with the time
// it last changed, in the order of refs. A record the organization does
// not have (never created, deleted, another organization's) is left out,
// so an id of another organization stays as unknown as it is on the HTTP
// API. Errors: an unknown kind, or a database failure.
func (s *Service) Records(ctx context.Context, orgID string, refs []events.AssetRef) ([]events.AssetRecord, error) {
	out := make([]events.AssetRecord, 0, len(refs))
	for _, ref := range refs {
		rec, err := s.record(ctx, orgID, ref)
		switch {
		case errors.Is(err, face.ErrNotFound), errors.Is(err, style.ErrNotFound),
			errors.Is(err, brand.ErrNotFound), errors.Is(err, collection.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			out = append(out, rec)
		}
	}
	return out, nil
}

// record reads one record. Errors: the kind's ErrNotFound, an unknown
// kind, or a database failure.
func (s *Service) record(ctx context.Context, orgID string, ref events.AssetRef) (events.AssetRecord, error) {
	rec := events.AssetRecord{Kind: ref.Kind, ID: ref.ID}
	switch ref.Kind {
	case events.AssetFace:
		f, err := s.Store.Face(ctx, orgID, ref.ID)
		if err != nil {
			return rec, err
		}
		p := s.facePayload(f)
		rec.ChangedAt, rec.Face = f.UpdatedAt.UTC(), &p
	case events.AssetStyle:
		st, err := s.Store.Style(ctx, orgID, ref.ID)
		if err != nil {
			return rec, err
		}
		p := s.stylePayload(st)
		rec.ChangedAt, rec.Style = st.UpdatedAt.UTC(), &p
	case events.AssetBrand:
		b, err := s.Store.Brand(ctx, orgID, ref.ID)
		if err != nil {
			return rec, err
		}
		p := s.brandPayload(b)
		rec.ChangedAt, rec.Brand = b.UpdatedAt.UTC(), &p
	case events.AssetCollection:
		c, err := s.Store.CollectionRecord(ctx, orgID, ref.ID)
		if err != nil {
			return rec, err
		}
		p := collectionPayload(c)
		rec.ChangedAt, rec.Collection = c.UpdatedAt.UTC(), &p
	default:
		return rec, fmt.Errorf("service: %q is not a kind of assets record", ref.Kind)
	}
	return rec, nil
}
