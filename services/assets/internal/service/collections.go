package service

import (
	"context"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/assets/internal/collection"
)

// CollectionStore keeps collections and the projection of the thumbnails
// they hold. Every method may also return a database failure.
type CollectionStore interface {
	// InsertCollection stores c with the events mk builds.
	InsertCollection(ctx context.Context, c collection.Collection, mk Events[collection.Collection]) error
	// Collection returns a collection with its thumbnails, most recently
	// added first. Errors: collection.ErrNotFound (also another
	// organization's).
	Collection(ctx context.Context, orgID, id string) (collection.Collection, []collection.Thumbnail, error)
	// CollectionRecord returns a collection without its thumbnails.
	// Errors: collection.ErrNotFound (also another organization's).
	CollectionRecord(ctx context.Context, orgID, id string) (collection.Collection, error)
	// Collections returns a page, newest first, and the total.
	Collections(ctx context.Context, orgID string, offset, limit int) ([]collection.Collection, int, error)
	// UpdateCollection writes what change makes of the collection, under
	// a row lock, with mk's events. Errors: collection.ErrNotFound, or
	// change's.
	UpdateCollection(ctx context.Context, orgID, id string, change func(collection.Collection) (collection.Collection, error), mk Events[collection.Collection]) (collection.Collection, error)
	// DeleteCollection removes a collection (not its thumbnails) with mk's
	// events. Errors: collection.ErrNotFound.
	DeleteCollection(ctx context.Context, orgID, id string, mk Events[collection.Collection]) error
	// AddThumbnails adds live thumbnails of the organization to a
	// collection, all or none; mk is called only when something changed.
	// Errors: collection.ErrNotFound, *collection.UnknownThumbnailsError.
	AddThumbnails(ctx context.Context, orgID, id string, ids []string, at time.Time, mk Events[collection.Membership]) error
	// RemoveThumbnails takes thumbnails out of a collection, like
	// AddThumbnails (ids not in it are ignored).
	RemoveThumbnails(ctx context.Context, orgID, id string, ids []string, at time.Time, mk Events[collection.Membership]) error
	// ThumbnailCreated applies thumbnails.thumbnail.created.v1 to the
	// projection once per event id (consumer names the inbox), joining
	// the collection it names with mk's events.
	ThumbnailCreated(ctx context.Context, consumer string, env events.Envelope, t events.ThumbnailCreated, mk Events[collection.Membership]) error
	// ThumbnailDeleted applies thumbnails.thumbnail.deleted.v1 once per
	// event id: the thumbnail leaves every collection, with mk's events.
	ThumbnailDeleted(ctx context.Context, consumer string, env events.Envelope, t events.ThumbnailDeleted, mk Events[collection.Membership]) error
}

func collectionEvent(ctx context.Context, typ string) Events[collection.Collection] {
	return func(c collection.Collection) ([]events.Envelope, error) {
		if typ == events.AssetsCollectionDeleted {
			return newEvent(ctx, typ, c.OrgID, events.CollectionDeleted{CollectionID: c.ID})
		}
		return newEvent(ctx, typ, c.OrgID, collectionPayload(c))
	}
}

// collectionPayload is the collection as its created and updated events
// (and a records answer) describe it.
func collectionPayload(c collection.Collection) events.CollectionChanged {
	return events.CollectionChanged{CollectionID: c.ID, Name: c.Name, Description: c.Description}
}

func membershipEvent(ctx context.Context, orgID string) Events[collection.Membership] {
	return func(m collection.Membership) ([]events.Envelope, error) {
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

// ThumbnailCreated puts a thumbnail the thumbnails service made into the
// projection, joining the collection it names, once per event id
// (consumer names the inbox). t's ids are canonical uuids, its
// collection's empty when it names none that is one.
func (s *Service) ThumbnailCreated(ctx context.Context, consumer string, env events.Envelope, t events.ThumbnailCreated) error {
	return s.Store.ThumbnailCreated(ctx, consumer, env, t, membershipEvent(ctx, env.OrgID))
}

// ThumbnailDeleted takes a deleted thumbnail out of every collection,
// once per event id (consumer names the inbox).
func (s *Service) ThumbnailDeleted(ctx context.Context, consumer string, env events.Envelope, t events.ThumbnailDeleted) error {
	return s.Store.ThumbnailDeleted(ctx, consumer, env, t, membershipEvent(ctx, env.OrgID))
}
