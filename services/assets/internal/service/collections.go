package service

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/services/assets/internal/collection"
	"hookline.dev/services/assets/internal/postgres"
)

// ThumbnailsConsumer is the durable consumer (and inbox name) of the
// thumbnails projection.
const ThumbnailsConsumer = events.DurableAssetsThumbnails

func collectionEvent(ctx context.Context, typ string) func(collection.Collection) ([]events.Envelope, error) {
	return func(c collection.Collection) ([]events.Envelope, error) {
		if typ == events.AssetsCollectionDeleted {
			return newEvent(ctx, typ, c.OrgID, events.CollectionDeleted{CollectionID: c.ID})
		}
		return newEvent(ctx, typ, c.OrgID, events.CollectionChanged{CollectionID: c.ID, Name: c.Name, Description: c.Description})
	}
}

func membershipEvent(ctx context.Context, orgID string) func(postgres.Membership) ([]events.Envelope, error) {
	return func(m postgres.Membership) ([]events.Envelope, error) {
		return newEvent(ctx, events.AssetsCollectionThumbnailsChanged, orgID, events.CollectionThumbnailsChanged{
			CollectionID: m.CollectionID, Added: m.Added, Removed: m.Removed,
		})
	}
}

// CreateCollection creates an empty collection.
func (s *Service) CreateCollection(ctx context.Context, orgID string, d collection.Draft) (collection.Collection, error) {
	d, err := d.Validate()
	if err != nil {
		return collection.Collection{}, err
	}
	now := s.now()
	c := collection.Collection{ID: uuid.NewString(), OrgID: orgID, Name: d.Name, Description: d.Description, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.InsertCollection(ctx, c, collectionEvent(ctx, events.AssetsCollectionCreated)); err != nil {
		return collection.Collection{}, err
	}
	return c, nil
}

// Collection returns a collection with its thumbnails.
func (s *Service) Collection(ctx context.Context, orgID, id string) (collection.Collection, []collection.Thumbnail, error) {
	return s.Store.Collection(ctx, orgID, id)
}

// Collections lists the organization's collections, newest first.
func (s *Service) Collections(ctx context.Context, orgID string, offset, limit int) ([]collection.Collection, int, error) {
	return s.Store.Collections(ctx, orgID, offset, limit)
}

// UpdateCollection renames or re-describes a collection.
func (s *Service) UpdateCollection(ctx context.Context, orgID, id string, p collection.Patch) (collection.Collection, error) {
	p, err := p.Validate()
	if err != nil {
		return collection.Collection{}, err
	}
	return s.Store.UpdateCollection(ctx, orgID, id, func(c collection.Collection) (collection.Collection, error) {
		if p.Name != nil {
			c.Name = *p.Name
		}
		if p.Description != nil {
			c.Description = *p.Description
		}
		c.UpdatedAt = s.now()
		return c, nil
	}, collectionEvent(ctx, events.AssetsCollectionUpdated))
}

// DeleteCollection deletes a collection; its thumbnails are not touched.
func (s *Service) DeleteCollection(ctx context.Context, orgID, id string) error {
	return s.Store.DeleteCollection(ctx, orgID, id, collectionEvent(ctx, events.AssetsCollectionDeleted))
}

// AddThumbnails puts thumbnails (ids already validated) into a collection.
func (s *Service) AddThumbnails(ctx context.Context, orgID, id string, ids []string) error {
	return s.Store.AddThumbnails(ctx, orgID, id, ids, s.now(), membershipEvent(ctx, orgID))
}

// RemoveThumbnails takes thumbnails out of a collection.
func (s *Service) RemoveThumbnails(ctx context.Context, orgID, id string, ids []string) error {
	return s.Store.RemoveThumbnails(ctx, orgID, id, ids, s.now(), membershipEvent(ctx, orgID))
}

func canonicalUUID(s string) (string, bool) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", false
	}
	return id.String(), true
}

// HandleThumbnailEvent is the handler of the thumbnails projection
// consumer. It is idempotent: the inbox row is written in the transaction
// of the effect, and the effects themselves do nothing when repeated.
func (s *Service) HandleThumbnailEvent(ctx context.Context, env events.Envelope) error {
	org, ok := canonicalUUID(env.OrgID)
	if !ok {
		return messaging.Permanent(fmt.Errorf("event %s: orgId %q is not a uuid", env.ID, env.OrgID))
	}
	env.OrgID = org
	switch env.Type {
	case events.ThumbnailsThumbnailCreated:
		var t events.ThumbnailCreated
		if err := env.Decode(&t); err != nil {
			return messaging.Permanent(err)
		}
		if t.ThumbnailID, ok = canonicalUUID(t.ThumbnailID); !ok {
			return messaging.Permanent(fmt.Errorf("event %s: thumbnailId is not a uuid", env.ID))
		}
		if t.CollectionID != "" {
			cid, ok := canonicalUUID(t.CollectionID)
			if !ok {
				// The thumbnail still exists; it just cannot join anything.
				s.log().WarnContext(ctx, "thumbnail event names a collection id that is not a uuid", "event_id", env.ID, "collection_id", t.CollectionID)
			}
			t.CollectionID = cid
		}
		return s.Store.ThumbnailCreated(ctx, ThumbnailsConsumer, env, t, membershipEvent(ctx, org))
	case events.ThumbnailsThumbnailDeleted:
		var t events.ThumbnailDeleted
		if err := env.Decode(&t); err != nil {
			return messaging.Permanent(err)
		}
		if t.ThumbnailID, ok = canonicalUUID(t.ThumbnailID); !ok {
			return messaging.Permanent(fmt.Errorf("event %s: thumbnailId is not a uuid", env.ID))
		}
		return s.Store.ThumbnailDeleted(ctx, ThumbnailsConsumer, env, t, membershipEvent(ctx, org))
	default:
		return nil
	}
}
