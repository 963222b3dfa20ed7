package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
)

// fakeAssets answers assets.rpc.records.v1 in the harness's namespace the
// way the assets service does: with the asking organization's records
// only. before, when set, runs before an answer (an event landing while
// the owner answers).
type fakeAssets struct {
	mu      sync.Mutex
	records map[string]events.AssetRecord // by org + kind + id
	asked   []events.RecordsRequest
	before  func(events.RecordsRequest)
	stop    func() error
}

func (h *harness) fakeAssets() *fakeAssets {
	h.T.Helper()
	f := &fakeAssets{records: map[string]events.AssetRecord{}}
	stop, err := h.Bus.Serve(context.Background(), events.AssetsRecordsRPC, "assets", func(_ context.Context, data []byte) ([]byte, error) {
		var req events.RecordsRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.asked = append(f.asked, req)
		before := f.before
		f.mu.Unlock()
		if before != nil {
			before(req)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		reply := events.RecordsReply{Records: []events.AssetRecord{}}
		for _, r := range req.Records {
			if rec, ok := f.records[req.OrgID+r.Kind+r.ID]; ok {
				reply.Records = append(reply.Records, rec)
			}
		}
		return json.Marshal(reply)
	})
	if err != nil {
		h.T.Fatal(err)
	}
	f.stop = stop
	h.T.Cleanup(func() { _ = stop() })
	return f
}

func (f *fakeAssets) add(org string, rec events.AssetRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records[org+rec.Kind+rec.ID] = rec
}

func (f *fakeAssets) requests() []events.RecordsRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]events.RecordsRequest(nil), f.asked...)
}

func (f *fakeAssets) setBefore(fn func(events.RecordsRequest)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.before = fn
}

// answerAfter makes the owner answer rec only once meanwhile has reached
// the read model: the event lands between the question and the answer.
func (f *fakeAssets) answerAfter(h *harness, org string, rec events.AssetRecord, meanwhile events.Envelope) {
	f.add(org, rec)
	f.setBefore(func(events.RecordsRequest) { h.applyWhileAnswering(meanwhile) })
}

// row is the read model's row of a record: its name, whether it is
// deleted, and whether there is one at all.
func (h *harness) row(kind, id string) (name string, deleted, ok bool) {
	h.T.Helper()
	err := h.Pool.QueryRow(context.Background(), `SELECT coalesce(data->>'name', ''), deleted FROM asset_records WHERE kind = $1 AND id = $2`, kind, id).
		Scan(&name, &deleted)
	return name, deleted, err == nil
}

// applyWhileAnswering publishes an assets event from inside the fake
// owner's handler and waits until the read model has applied it, so it
// lands between the question and the answer. It must not fail the test
// from the handler's goroutine: the test checks the outcome.
func (h *harness) applyWhileAnswering(env events.Envelope) {
	b, _ := json.Marshal(env)
	if _, err := h.Bus.JS.Publish(context.Background(), h.Bus.Subject(env.Type), b, jetstream.WithMsgID(env.ID)); err != nil {
		return
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		_ = h.Pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE consumer = 'thumbnails-assets' AND event_id = $1`, env.ID).Scan(&n)
		if n == 1 {
			return
		}
	}
}

// TestReadYourWrites: ids the read model has never seen are asked of the
// assets service before anyone is told 404, and its answer is kept in the
// read model in order with the events.
func TestReadYourWrites(t *testing.T) {
	h := newHarness(t)
	owner := h.fakeAssets()
	org, other := h.openAccount("pro"), h.openAccount("pro")
	styleID, brandID, faceID, collID := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	photo := h.PutObject(fmt.Sprintf("orgs/%s/faces/%s/0.jpg", org, faceID), "image/jpeg", testkit.FacePhoto(t))
	// The records were created at the owner a moment ago; their events
	// are still on the way.
	at := time.Now().Add(-time.Second).UTC().Truncate(time.Microsecond)
	owner.add(org, events.AssetRecord{Kind: events.AssetStyle, ID: styleID, ChangedAt: at, Style: &events.StyleChanged{StyleID: styleID, Name: "Neon",
		Profile: events.StyleProfile{Palette: []events.Swatch{{Hex: "#ff00aa", Weight: 1}}, Brightness: 0.4, Contrast: 0.7, Saturation: 0.8}}})
	owner.add(org, events.AssetRecord{Kind: events.AssetBrand, ID: brandID, ChangedAt: at, Brand: &events.BrandChanged{BrandID: brandID, Name: "Acme", Colors: []string{"#00ff00"}}})
	owner.add(org, events.AssetRecord{Kind: events.AssetFace, ID: faceID, ChangedAt: at, Face: &events.FaceChanged{FaceID: faceID, Name: "Me", ImageURLs: []string{photo}, ThumbnailURL: photo}})
	owner.add(org, events.AssetRecord{Kind: events.AssetCollection, ID: collID, ChangedAt: at, Collection: &events.CollectionChanged{CollectionID: collID, Name: "Launch"}})
	body := map[string]any{"prompt": "All in", "styleId": styleID, "brandId": brandID, "faceIds": []string{faceID}, "collectionId": collID}
	fields := []string{"styleId", "brandId", "faceIds[0]", "collectionId"}

	// Another organization asks first: the owner is asked as that
	// organization, knows none of them, and nothing is stored or charged.
	r := h.Must(404, "POST", "/thumbnails", other, body)
	for _, f := range fields {
		if r.Field(f) == "" {
			t.Errorf("%s does not name %s", r.Raw, f)
		}
	}
	if asked := owner.requests(); len(asked) != 1 || asked[0].OrgID != other || len(asked[0].Records) != 4 {
		t.Fatalf("the owner was asked %+v, want once, as the other organization, for the 4 records", asked)
	}
	if _, _, ok := h.row("style", styleID); ok {
		t.Fatal("an unknown answer left a row in the read model")
	}
	if h.reservations(other) != 0 {
		t.Fatal("a 404 reserved credits")
	}

	// The organization that owns them uses them before any event came.
	th := h.generate(org, body)
	if *th.StyleID != styleID || *th.BrandID != brandID || len(th.FaceIDs) != 1 || th.FaceIDs[0] != faceID || *th.CollectionID != collID {
		t.Fatalf("thumbnail %+v", th)
	}
	if n := len(owner.requests()); n != 2 {
		t.Fatalf("the owner was asked %d times, want 2", n)
	}
	for kind, id := range map[string]string{"style": styleID, "brand": brandID, "face": faceID, "collection": collID} {
		if _, deleted, ok := h.row(kind, id); !ok || deleted {
			t.Errorf("the %s the owner answered is not in the read model", kind)
		}
	}

	t.Run("seen ids are answered by the read model alone", func(t *testing.T) {
		h.generate(org, map[string]any{"prompt": "Again", "styleId": styleID, "brandId": brandID})
		h.Must(404, "POST", "/thumbnails", other, map[string]any{"prompt": "x", "styleId": styleID})
		if n := len(owner.requests()); n != 2 {
			t.Fatalf("the owner was asked %d times, want still 2", n)
		}
	})

	t.Run("a face-swap's faceId asks the owner too", func(t *testing.T) {
		swapFace := uuid.NewString()
		owner.add(org, events.AssetRecord{Kind: events.AssetFace, ID: swapFace, ChangedAt: at, Face: &events.FaceChanged{FaceID: swapFace, Name: "Swap", ImageURLs: []string{photo}, ThumbnailURL: photo}})
		// A picture without a face to swap into: the request is refused
		// for it, past the saved face, before anything is drawn.
		wall := h.PutObject("orgs/"+org+"/uploads/wall.png", "image/png", testkit.GradientPNG(t, 320, 240))
		if r := h.Must(400, "POST", "/thumbnails/edit/face-swap", org, map[string]any{"imageUrl": wall, "faceId": swapFace}); r.Field("imageUrl") == "" {
			t.Fatalf("%s does not name imageUrl", r.Raw)
		}
		if _, _, ok := h.row("face", swapFace); !ok {
			t.Fatal("the face the owner answered is not in the read model")
		}
		if r := h.Must(404, "POST", "/thumbnails/edit/face-swap", org, map[string]any{"imageUrl": wall, "faceId": uuid.NewString()}); r.Field("faceId") == "" {
			t.Fatalf("%s does not name faceId", r.Raw)
		}
	})

	t.Run("events order with the answer by when the record changed", func(t *testing.T) {
		h.assetEvent(events.AssetsBrandUpdated, org, events.BrandChanged{BrandID: brandID, Name: "Stale"})
		older := h.Envelope(events.AssetsBrandUpdated, "assets", org, events.BrandChanged{BrandID: brandID, Name: "Older"})
		older.OccurredAt = at.Add(-time.Minute)
		h.Publish(older)
		h.assetEvent(events.AssetsBrandUpdated, org, events.BrandChanged{BrandID: brandID, Name: "Newest"})
		if name, _, _ := h.row("brand", brandID); name != "Newest" {
			t.Fatalf("brand is %q, want the newest event's", name)
		}
		// Older than the answer: it changes nothing.
		old := h.Envelope(events.AssetsStyleUpdated, "assets", org, events.StyleChanged{StyleID: styleID, Name: "Before"})
		old.OccurredAt = at.Add(-time.Minute)
		h.Publish(old)
		h.assetEvent(events.AssetsCollectionUpdated, org, events.CollectionChanged{CollectionID: collID, Name: "Later"}) // a marker behind it
		if name, _, _ := h.row("style", styleID); name != "Neon" {
			t.Fatalf("an event older than the answer overwrote it: %q", name)
		}
	})

	t.Run("an event that lands while the owner answers wins", func(t *testing.T) {
		id := uuid.NewString()
		owner.answerAfter(h, org, events.AssetRecord{Kind: events.AssetBrand, ID: id, ChangedAt: at, Brand: &events.BrandChanged{BrandID: id, Name: "Answered"}},
			h.Envelope(events.AssetsBrandUpdated, "assets", org, events.BrandChanged{BrandID: id, Name: "Renamed"}))
		defer owner.setBefore(nil)
		h.generate(org, map[string]any{"prompt": "x", "brandId": id})
		if name, _, _ := h.row("brand", id); name != "Renamed" {
			t.Fatalf("brand is %q, want the event's, newer than the answer", name)
		}
	})

	t.Run("a deletion is final: a late answer does not bring the record back", func(t *testing.T) {
		id := uuid.NewString()
		owner.answerAfter(h, org, events.AssetRecord{Kind: events.AssetStyle, ID: id, ChangedAt: at, Style: &events.StyleChanged{StyleID: id, Name: "Gone"}},
			h.Envelope(events.AssetsStyleDeleted, "assets", org, events.StyleDeleted{StyleID: id}))
		defer owner.setBefore(nil)
		before := h.reservations(org)
		if r := h.Must(404, "POST", "/thumbnails", org, map[string]any{"prompt": "x", "styleId": id}); r.Field("styleId") == "" {
			t.Fatalf("%s does not name styleId", r.Raw)
		}
		if _, deleted, _ := h.row("style", id); !deleted {
			t.Fatal("the late answer revived a deleted style")
		}
		asked := len(owner.requests())
		h.Must(404, "POST", "/thumbnails", org, map[string]any{"prompt": "x", "styleId": id})
		if len(owner.requests()) != asked {
			t.Fatal("a deleted id was asked of the owner again")
		}
		if h.reservations(org) != before {
			t.Fatal("a 404 reserved credits")
		}
	})

	t.Run("an id the owner does not know is 404", func(t *testing.T) {
		id := uuid.NewString()
		before := h.reservations(org)
		r := h.Must(404, "POST", "/thumbnails", org, map[string]any{"prompt": "x", "faceIds": []string{faceID, id}})
		if r.Field("faceIds[1]") == "" || r.Field("faceIds[0]") != "" {
			t.Fatalf("%s does not name only faceIds[1]", r.Raw)
		}
		if h.reservations(org) != before {
			t.Fatal("a 404 reserved credits")
		}
	})

	t.Run("the owner not answering is 503 with Retry-After, not a false 404", func(t *testing.T) {
		if err := owner.stop(); err != nil {
			t.Fatal(err)
		}
		before := h.reservations(org)
		raw, _ := json.Marshal(map[string]any{"prompt": "x", "brandId": uuid.NewString()})
		req, _ := http.NewRequest(http.MethodPost, h.URL+"/thumbnails", bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(principal.Header, apptest.Sign(t, org, ""))
		res, err := h.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Body.Close() }()
		var env struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		}
		_ = json.NewDecoder(res.Body).Decode(&env)
		if res.StatusCode != 503 || env.Code != "unavailable" || env.Details["service"] != "assets" || res.Header.Get("Retry-After") == "" {
			t.Fatalf("owner down: %d %+v, Retry-After %q", res.StatusCode, env, res.Header.Get("Retry-After"))
		}
		if h.reservations(org) != before {
			t.Fatal("a 503 reserved credits")
		}
		// What the read model has seen still works without the owner.
		h.generate(org, map[string]any{"prompt": "x", "styleId": styleID})
	})
}
