package app_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
)

type collectionRec struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	Description    *string `json:"description"`
	ThumbnailCount int     `json:"thumbnailCount"`
	Thumbnails     []struct {
		ID       string    `json:"id"`
		ImageURL string    `json:"imageUrl"`
		Prompt   string    `json:"prompt"`
		AddedAt  time.Time `json:"addedAt"`
	} `json:"thumbnails"`
}

func (c collectionRec) ids() []string {
	out := []string{}
	for _, t := range c.Thumbnails {
		out = append(out, t.ID)
	}
	return out
}

// thumbnailCreated publishes a created event and waits for it.
func (h *harness) thumbnailCreated(org, id, collectionID string) events.Envelope {
	h.T.Helper()
	return h.thumbnailsEvent(events.ThumbnailsThumbnailCreated, org, events.ThumbnailCreated{
		ThumbnailID: id, ImageURL: "https://cdn.example/t/" + id + ".png", Prompt: "prompt " + id[:8], CollectionID: collectionID,
	})
}

func (h *harness) thumbnailDeleted(org, id string) events.Envelope {
	h.T.Helper()
	return h.thumbnailsEvent(events.ThumbnailsThumbnailDeleted, org, events.ThumbnailDeleted{ThumbnailID: id})
}

func (h *harness) collection(org, id string) collectionRec {
	h.T.Helper()
	var c collectionRec
	h.Must(200, "GET", "/collections/"+id, org, nil).Into(h.T, &c)
	return c
}

func TestCollections(t *testing.T) {
	h := newHarness(t)
	org := newOrg()
	var c collectionRec
	h.Must(201, "POST", "/collections", org, map[string]any{"name": " Launch ", "description": "May launch"}).Into(t, &c)
	if c.Name != "Launch" || c.Description == nil || *c.Description != "May launch" || c.Thumbnails == nil || c.ThumbnailCount != 0 {
		t.Fatalf("created %+v", c)
	}
	a, b, x := uuid.NewString(), uuid.NewString(), uuid.NewString()

	t.Run("a thumbnail created into the collection joins it", func(t *testing.T) {
		h.thumbnailCreated(org, a, c.ID)
		got := h.collection(org, c.ID)
		if !slices.Equal(got.ids(), []string{a}) || got.Thumbnails[0].Prompt != "prompt "+a[:8] || got.Thumbnails[0].ImageURL == "" || got.ThumbnailCount != 1 {
			t.Fatalf("detail %+v", got)
		}
	})

	t.Run("add and remove by request", func(t *testing.T) {
		h.thumbnailCreated(org, b, "")
		h.thumbnailCreated(org, x, "")
		var got collectionRec
		h.Must(200, "POST", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailIds": []string{b, x}}).Into(t, &got)
		if len(got.ids()) != 3 || got.ids()[2] != a {
			t.Fatalf("after add: %v", got.ids())
		}
		// Adding again is idempotent.
		h.Must(200, "POST", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailId": b})
		if got := h.collection(org, c.ID); len(got.ids()) != 3 {
			t.Fatalf("after re-add: %v", got.ids())
		}
		h.Must(200, "DELETE", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailId": x}).Into(t, &got)
		if slices.Contains(got.ids(), x) || len(got.ids()) != 2 {
			t.Fatalf("after remove: %v", got.ids())
		}
		h.Must(200, "DELETE", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailIds": []string{x}})

		unknown := uuid.NewString()
		r := h.Must(404, "POST", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailIds": []string{x, unknown}})
		if ids, _ := r.Details["thumbnailIds"].([]any); len(ids) != 1 || ids[0] != unknown {
			t.Fatalf("404 should name the unknown id: %s", r.Raw)
		}
		if got := h.collection(org, c.ID); slices.Contains(got.ids(), x) {
			t.Fatal("a refused request added a thumbnail")
		}
		h.Must(404, "DELETE", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailId": unknown})
		h.Must(404, "POST", "/collections/"+uuid.NewString()+"/thumbnails", org, map[string]any{"thumbnailId": b})

		for _, body := range []any{
			map[string]any{},
			map[string]any{"thumbnailId": b, "thumbnailIds": []string{x}},
			map[string]any{"thumbnailIds": []string{}},
			map[string]any{"thumbnailIds": make([]string, 101)},
			map[string]any{"thumbnailId": "not-a-uuid"},
			map[string]any{"thumbnailIds": []string{b, "nope"}},
		} {
			h.Must(400, "POST", "/collections/"+c.ID+"/thumbnails", org, body)
			h.Must(400, "DELETE", "/collections/"+c.ID+"/thumbnails", org, body)
		}
	})

	t.Run("deleted thumbnails leave every collection", func(t *testing.T) {
		var other collectionRec
		h.Must(201, "POST", "/collections", org, map[string]any{"name": "Other"}).Into(t, &other)
		h.Must(200, "POST", "/collections/"+other.ID+"/thumbnails", org, map[string]any{"thumbnailIds": []string{a, b}})
		del := h.thumbnailDeleted(org, a)
		if got := h.collection(org, c.ID); slices.Contains(got.ids(), a) {
			t.Fatalf("deleted thumbnail still in collection: %v", got.ids())
		}
		if got := h.collection(org, other.ID); !slices.Equal(got.ids(), []string{b}) {
			t.Fatalf("deleted thumbnail still in the other collection: %v", got.ids())
		}
		h.Must(404, "POST", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailId": a})

		// Replays change nothing: the same event again (new message id,
		// same event id), and the created event once more.
		before := h.collection(org, c.ID)
		h.Republish(del)
		h.thumbnailsEvent(events.ThumbnailsThumbnailCreated, org, events.ThumbnailCreated{ThumbnailID: a, ImageURL: "u", Prompt: "p", CollectionID: c.ID})
		if got := h.collection(org, c.ID); !reflect.DeepEqual(got, before) {
			t.Fatalf("replayed events changed the collection:\n%+v\n%+v", got, before)
		}
	})

	t.Run("duplicate created events change nothing", func(t *testing.T) {
		before := h.collection(org, c.ID)
		env := h.thumbnailsEvent(events.ThumbnailsThumbnailCreated, org, events.ThumbnailCreated{ThumbnailID: b, ImageURL: "changed", Prompt: "changed", CollectionID: c.ID})
		h.Republish(env)
		time.Sleep(200 * time.Millisecond)
		if got := h.collection(org, c.ID); !reflect.DeepEqual(got, before) {
			t.Fatalf("duplicate changed the collection:\n%+v\n%+v", got, before)
		}
	})

	t.Run("a deleted event before its created event leaves a tombstone", func(t *testing.T) {
		late := uuid.NewString()
		h.thumbnailDeleted(org, late)
		h.thumbnailCreated(org, late, c.ID)
		if got := h.collection(org, c.ID); slices.Contains(got.ids(), late) {
			t.Fatal("a late created event resurrected a deleted thumbnail")
		}
		h.Must(404, "POST", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailId": late})
	})

	t.Run("another organization's thumbnails and collections", func(t *testing.T) {
		stranger := newOrg()
		theirs := uuid.NewString()
		// A thumbnail of another organization naming our collection does
		// not join it.
		h.thumbnailCreated(stranger, theirs, c.ID)
		if got := h.collection(org, c.ID); slices.Contains(got.ids(), theirs) {
			t.Fatal("another organization's thumbnail joined our collection")
		}
		h.Must(404, "POST", "/collections/"+c.ID+"/thumbnails", org, map[string]any{"thumbnailId": theirs})
		h.Must(404, "GET", "/collections/"+c.ID, stranger, nil)
	})

	t.Run("list, patch, delete", func(t *testing.T) {
		var list []collectionRec
		r := h.Must(200, "GET", "/collections", org, nil)
		r.Into(t, &list)
		if r.Page.Total != 2 || list[0].Name != "Other" || list[1].ID != c.ID || list[1].ThumbnailCount != 1 || list[0].Thumbnails != nil {
			t.Fatalf("list %s", r.Raw)
		}
		var p collectionRec
		h.Must(200, "PATCH", "/collections/"+c.ID, org, map[string]any{"name": "Renamed"}).Into(t, &p)
		if p.Name != "Renamed" || *p.Description != "May launch" || len(p.Thumbnails) != 1 {
			t.Fatalf("patched %+v", p)
		}
		h.Must(400, "PATCH", "/collections/"+c.ID, org, map[string]any{"name": ""})
		h.Must(400, "PATCH", "/collections/"+c.ID, org, map[string]any{})
		h.Must(400, "POST", "/collections", org, map[string]any{"description": "no name"})
		h.Must(204, "DELETE", "/collections/"+c.ID, org, nil)
		h.Must(404, "GET", "/collections/"+c.ID, org, nil)
		h.Must(404, "DELETE", "/collections/"+c.ID, org, nil)
	})

	t.Run("an unusable event does not block the consumer", func(t *testing.T) {
		h.Emit(events.ThumbnailsThumbnailCreated, "thumbnails", org, events.ThumbnailCreated{ThumbnailID: "not-a-uuid"})
		h.thumbnailCreated(org, uuid.NewString(), "")
	})

	t.Run("events", func(t *testing.T) {
		types := typesFor(h.StreamEvents(events.StreamAssets), c.ID)
		for _, want := range []string{events.AssetsCollectionCreated, events.AssetsCollectionThumbnailsChanged, events.AssetsCollectionUpdated, events.AssetsCollectionDeleted} {
			if !slices.Contains(types, want) {
				t.Errorf("no %s among %v", want, types)
			}
		}
	})
}
