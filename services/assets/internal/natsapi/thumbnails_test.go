package natsapi

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/assets/internal/collection"
	"hookline.dev/services/assets/internal/service"
)

// projection records what the consumer's use cases hand the store.
type projection struct {
	service.Store
	created []events.ThumbnailCreated
	deleted []events.ThumbnailDeleted
	orgs    []string
}

func (p *projection) ThumbnailCreated(_ context.Context, consumer string, env events.Envelope, t events.ThumbnailCreated, _ service.Events[collection.Membership]) error {
	if consumer != ThumbnailsConsumer {
		return errors.New("wrong inbox " + consumer)
	}
	p.created, p.orgs = append(p.created, t), append(p.orgs, env.OrgID)
	return nil
}

func (p *projection) ThumbnailDeleted(_ context.Context, consumer string, env events.Envelope, t events.ThumbnailDeleted, _ service.Events[collection.Membership]) error {
	if consumer != ThumbnailsConsumer {
		return errors.New("wrong inbox " + consumer)
	}
	p.deleted, p.orgs = append(p.deleted, t), append(p.orgs, env.OrgID)
	return nil
}

const (
	org   = "6F1C1D9E-0000-4000-8000-000000000001"
	thumb = "6F1C1D9E-0000-4000-8000-000000000002"
	coll  = "6F1C1D9E-0000-4000-8000-000000000003"
)

func thumbnailEvent(typ, orgID, data string) events.Envelope {
	return events.Envelope{ID: "e1", Type: typ, OrgID: orgID, Data: json.RawMessage(data)}
}

// A thumbnails event reaches its use case with canonical ids; a
// collection id that is none joins nothing; what no redelivery can mend
// is invalid, and other events change nothing.
func TestThumbnails(t *testing.T) {
	p := &projection{}
	s := &Server{Svc: &service.Service{Store: p}}
	ctx := t.Context()
	for _, env := range []events.Envelope{
		thumbnailEvent(events.ThumbnailsThumbnailCreated, org, `{"thumbnailId":"`+thumb+`","collectionId":"`+coll+`"}`),
		thumbnailEvent(events.ThumbnailsThumbnailCreated, org, `{"thumbnailId":"`+thumb+`","collectionId":"nope"}`),
		thumbnailEvent(events.ThumbnailsThumbnailDeleted, org, `{"thumbnailId":"`+thumb+`"}`),
		thumbnailEvent("thumbnails.operation.completed.v1", org, `{}`),
	} {
		if err := s.Thumbnails(ctx, env); err != nil {
			t.Fatalf("%s %s: %v", env.Type, env.Data, err)
		}
	}
	const canonical = "6f1c1d9e-0000-4000-8000-00000000000"
	if len(p.created) != 2 || p.created[0] != (events.ThumbnailCreated{ThumbnailID: canonical + "2", CollectionID: canonical + "3"}) ||
		p.created[1].CollectionID != "" || len(p.deleted) != 1 || p.deleted[0].ThumbnailID != canonical+"2" {
		t.Errorf("created %+v, deleted %+v", p.created, p.deleted)
	}
	for _, o := range p.orgs {
		if o != canonical+"1" {
			t.Errorf("organization %s", o)
		}
	}
	for _, env := range []events.Envelope{
		thumbnailEvent(events.ThumbnailsThumbnailCreated, "nope", `{"thumbnailId":"`+thumb+`"}`),
		thumbnailEvent(events.ThumbnailsThumbnailCreated, org, `{"thumbnailId":"6f1c1d9e00004000800000000000000a"}`),
		thumbnailEvent(events.ThumbnailsThumbnailDeleted, org, `{"thumbnailId":`),
	} {
		if err := s.Thumbnails(ctx, env); !errors.Is(err, events.ErrInvalid) {
			t.Errorf("%s %s: %v, want invalid", env.OrgID, env.Data, err)
		}
	}
	if len(p.created) != 2 || len(p.deleted) != 1 {
		t.Errorf("an invalid event reached the store: %d created, %d deleted", len(p.created), len(p.deleted))
	}
}
