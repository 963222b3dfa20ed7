package natsapi

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// applied records the changes the consumer hands the use case.
type applied struct{ changes []assetview.Change }

func (a *applied) ApplyAsset(_ context.Context, consumer, _ string, c assetview.Change) error {
	if consumer != AssetsConsumer {
		return errors.New("wrong inbox " + consumer)
	}
	a.changes = append(a.changes, c)
	return nil
}

func envelope(typ, org string, data string) events.Envelope {
	return events.Envelope{ID: "e1", Type: typ, OrgID: org, Data: json.RawMessage(data),
		OccurredAt: time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC)}
}

const (
	org  = "6F1C1D9E-0000-4000-8000-000000000001"
	face = "6F1C1D9E-0000-4000-8000-000000000002"
)

// An assets event becomes one change of the read model, its ids in
// canonical form; what the read model does not follow changes nothing,
// and what no redelivery can mend is invalid.
func TestAssets(t *testing.T) {
	a := &applied{}
	s := &Server{Records: a}
	ctx := t.Context()
	if err := s.Assets(ctx, envelope(events.AssetsFaceDeleted, org, `{"faceId":"`+face+`"}`)); err != nil {
		t.Fatal(err)
	}
	want := assetview.Change{Kind: assetview.Face, ID: "6f1c1d9e-0000-4000-8000-000000000002", OrgID: "6f1c1d9e-0000-4000-8000-000000000001",
		Data: json.RawMessage(`{"faceId":"` + face + `"}`), Deleted: true, At: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)}
	if len(a.changes) != 1 || a.changes[0].Kind != want.Kind || a.changes[0].ID != want.ID || a.changes[0].OrgID != want.OrgID ||
		string(a.changes[0].Data) != string(want.Data) || !a.changes[0].Deleted || !a.changes[0].At.Equal(want.At) {
		t.Fatalf("applied %+v, want %+v", a.changes, want)
	}
	for _, env := range []events.Envelope{
		envelope(events.AssetsCollectionThumbnailsChanged, org, `{"collectionId":"`+face+`"}`),
		envelope("assets.upload.created.v1", org, `{}`),
	} {
		if err := s.Assets(ctx, env); err != nil || len(a.changes) != 1 {
			t.Errorf("%s: %v, %d changes", env.Type, err, len(a.changes))
		}
	}
	for _, env := range []events.Envelope{
		envelope(events.AssetsFaceCreated, "nope", `{"faceId":"`+face+`"}`),
		envelope(events.AssetsFaceCreated, org, `{"faceId":"nope"}`),
		envelope(events.AssetsFaceCreated, org, `{"faceId":`),
	} {
		if err := s.Assets(ctx, env); !errors.Is(err, events.ErrInvalid) || len(a.changes) != 1 {
			t.Errorf("%s %s: %v, want invalid", env.OrgID, env.Data, err)
		}
	}
}
