package app_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
)

// askRecords asks the service's records responder, as the read models of
// thumbnails and clips do on a miss.
func (h *harness) askRecords(org string, refs ...events.AssetRef) events.RecordsReply {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var reply events.RecordsReply
	if err := h.Bus.Request(ctx, events.AssetsRecordsRPC, events.RecordsRequest{OrgID: org, Records: refs}, &reply); err != nil {
		h.T.Fatalf("records request: %v", err)
	}
	return reply
}

// payloadOf is the payload an answer carries for its kind.
func payloadOf(rec events.AssetRecord) any {
	switch rec.Kind {
	case events.AssetFace:
		return rec.Face
	case events.AssetStyle:
		return rec.Style
	case events.AssetBrand:
		return rec.Brand
	case events.AssetCollection:
		return rec.Collection
	}
	return nil
}

// TestRecordsForReadModels: the responder answers with the organization's
// records exactly as their last events describe them, ordered among those
// events by when they last changed; another organization's, deleted and
// unknown records are left out, and a malformed request is refused.
func TestRecordsForReadModels(t *testing.T) {
	h := newHarness(t)
	org, other := newOrg(), newOrg()
	photo := h.upload(org, "me.jpg", "image/jpeg", testkit.FacePhoto(t))
	ref := h.upload(org, "ref.png", "image/png", testkit.GradientPNG(t, 64, 48))
	var face, style, brand, coll struct{ ID string }
	h.Must(201, "POST", "/faces", org, map[string]any{"name": "Me", "imageUrls": []string{photo}}).Into(t, &face)
	h.Must(201, "POST", "/styles", org, map[string]any{"name": "Dusk", "referenceImageUrls": []string{ref}}).Into(t, &style)
	h.Must(201, "POST", "/brands", org, map[string]any{"name": "Acme", "colors": []string{"#ff6600"}}).Into(t, &brand)
	h.Must(201, "POST", "/collections", org, map[string]any{"name": "Launch"}).Into(t, &coll)
	refs := []events.AssetRef{
		{Kind: events.AssetFace, ID: face.ID}, {Kind: events.AssetStyle, ID: style.ID},
		{Kind: events.AssetBrand, ID: brand.ID}, {Kind: events.AssetCollection, ID: coll.ID},
	}
	unknown := events.AssetRef{Kind: events.AssetFace, ID: uuid.NewString()}
	// A style's id asked for as a brand is not a brand.
	wrongKind := events.AssetRef{Kind: events.AssetBrand, ID: style.ID}

	reply := h.askRecords(org, append(refs, unknown, wrongKind)...)
	if reply.Error != "" || len(reply.Records) != len(refs) {
		t.Fatalf("reply %+v, want the %d records", reply, len(refs))
	}
	created := map[string]events.Envelope{}
	for _, e := range h.StreamEvents(events.StreamAssets) {
		if strings.HasSuffix(e.Type, ".created.v1") {
			var ids struct{ FaceID, StyleID, BrandID, CollectionID string }
			_ = json.Unmarshal(e.Data, &ids)
			created[ids.FaceID+ids.StyleID+ids.BrandID+ids.CollectionID] = e
		}
	}
	for i, rec := range reply.Records {
		if rec.Kind != refs[i].Kind || rec.ID != refs[i].ID {
			t.Fatalf("record %d is %s %s, want %+v", i, rec.Kind, rec.ID, refs[i])
		}
		ev, ok := created[rec.ID]
		if !ok {
			t.Fatalf("no created event of %s %s", rec.Kind, rec.ID)
		}
		// The payload is the event's: a read model keeps either alike.
		got := payloadOf(rec)
		want := reflect.New(reflect.TypeOf(got).Elem()).Interface()
		if err := ev.Decode(want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: answered %+v, the event carried %+v", rec.Kind, got, want)
		}
		if rec.ChangedAt.IsZero() || rec.ChangedAt.After(ev.OccurredAt) {
			t.Errorf("%s changed at %s, after its created event (%s)", rec.Kind, rec.ChangedAt, ev.OccurredAt)
		}
	}

	t.Run("another organization's records are unknown", func(t *testing.T) {
		if r := h.askRecords(other, refs...); len(r.Records) != 0 || r.Error != "" {
			t.Fatalf("reply to another organization %+v", r)
		}
	})

	t.Run("an update moves the change time past the events before it", func(t *testing.T) {
		before := h.askRecords(org, refs[1]).Records[0]
		h.Must(200, "PATCH", "/styles/"+style.ID, org, map[string]any{"name": "Dawn"})
		after := h.askRecords(org, refs[1]).Records[0]
		if after.Style.Name != "Dawn" || !after.ChangedAt.After(before.ChangedAt) || !after.ChangedAt.After(created[style.ID].OccurredAt) {
			t.Fatalf("after the update %+v (changed %s), before %s", after.Style, after.ChangedAt, before.ChangedAt)
		}
		for _, e := range h.StreamEvents(events.StreamAssets) {
			var d events.StyleChanged
			if e.Type == events.AssetsStyleUpdated && e.Decode(&d) == nil && d.StyleID == style.ID && e.OccurredAt.Before(after.ChangedAt) {
				t.Fatalf("the update's event occurred at %s, before the change it carries (%s)", e.OccurredAt, after.ChangedAt)
			}
		}
	})

	t.Run("ids in any spelling are answered canonically", func(t *testing.T) {
		r := h.askRecords(org, events.AssetRef{Kind: events.AssetBrand, ID: strings.ToUpper(brand.ID)})
		if len(r.Records) != 1 || r.Records[0].ID != brand.ID || r.Records[0].Brand.Name != "Acme" {
			t.Fatalf("reply %+v", r)
		}
	})

	t.Run("a deleted record is left out", func(t *testing.T) {
		h.Must(204, "DELETE", "/brands/"+brand.ID, org, nil)
		r := h.askRecords(org, refs...)
		if len(r.Records) != 3 {
			t.Fatalf("reply %+v", r)
		}
		for _, rec := range r.Records {
			if rec.ID == brand.ID {
				t.Fatalf("the deleted brand was answered: %+v", rec)
			}
		}
	})

	t.Run("a malformed request is refused, not failed", func(t *testing.T) {
		tooMany := make([]events.AssetRef, events.MaxAssetRefs+1)
		for i := range tooMany {
			tooMany[i] = unknown
		}
		for name, req := range map[string]events.RecordsRequest{
			"no organization": {OrgID: "acme", Records: refs},
			"no records":      {OrgID: org},
			"too many":        {OrgID: org, Records: tooMany},
			"unknown kind":    {OrgID: org, Records: []events.AssetRef{{Kind: "thumbnail", ID: face.ID}}},
			"malformed id":    {OrgID: org, Records: []events.AssetRef{{Kind: events.AssetFace, ID: "face-1"}}},
		} {
			var reply events.RecordsReply
			if err := h.Bus.Request(context.Background(), events.AssetsRecordsRPC, req, &reply); err != nil || reply.Error == "" || len(reply.Records) != 0 {
				t.Errorf("%s: reply %+v, err %v", name, reply, err)
			}
		}
	})
}
