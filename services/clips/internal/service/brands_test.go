package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/assetrecords"
	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/clips/internal/postgres"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/migrations"
)

// owner is a fake assets service: it answers assets.rpc.records.v1 with
// the asking organization's brands, after running before (an event
// landing while it answers).
type owner struct {
	mu     sync.Mutex
	brands map[string]events.AssetRecord // by org + id
	asked  []events.RecordsRequest
	before func()
}

func (o *owner) add(org string, b events.BrandChanged, at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.brands[org+b.BrandID] = events.AssetRecord{Kind: events.AssetBrand, ID: b.BrandID, ChangedAt: at, Brand: &b}
}

func (o *owner) setBefore(fn func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.before = fn
}

func (o *owner) requests() []events.RecordsRequest {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]events.RecordsRequest(nil), o.asked...)
}

func (o *owner) answer(_ context.Context, data []byte) ([]byte, error) {
	var req events.RecordsRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.asked = append(o.asked, req)
	before := o.before
	o.mu.Unlock()
	if before != nil {
		before()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	reply := events.RecordsReply{Records: []events.AssetRecord{}}
	for _, r := range req.Records {
		if rec, ok := o.brands[req.OrgID+r.ID]; ok && r.Kind == events.AssetBrand {
			reply.Records = append(reply.Records, rec)
		}
	}
	return json.Marshal(reply)
}

// brands is the service with its real read model and assets client, the
// owner it asks and a way to stop it answering.
type brands struct {
	svc   *service.API
	owner *owner
	stop  func() error
}

func newBrands(t *testing.T) *brands {
	t.Helper()
	ctx := t.Context()
	pool := apptest.Database(t, "clipsbrands", messaging.Migrations, credits.Migrations, migrations.FS)
	bus := apptest.Bus(t, "clips-brands-test")
	b := &brands{owner: &owner{brands: map[string]events.AssetRecord{}}}
	var err error
	if b.stop, err = bus.Serve(ctx, events.AssetsRecordsRPC, "assets", b.owner.answer); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.stop() })
	b.svc = &service.API{Core: service.Core{Brands: postgres.New(pool, nil), AssetOwner: &assetrecords.Client{Bus: bus, Timeout: 2 * time.Second}}}
	return b
}

// apply applies an assets brand event the way the read-model consumer
// does.
func (b *brands) apply(typ, org string, d events.BrandChanged, at time.Time) error {
	env, err := events.New(context.Background(), typ, "assets", org, d)
	if err != nil {
		return err
	}
	env.OccurredAt = at
	return b.svc.HandleAssetEvent(context.Background(), env)
}

func (b *brands) event(t *testing.T, typ, org string, d events.BrandChanged, at time.Time) {
	t.Helper()
	if err := b.apply(typ, org, d, at); err != nil {
		t.Fatal(err)
	}
}

// TestBrandsReadYourWrites: a brand the read model has never seen is asked
// of the assets service before a render request is told 404, and the
// answer is kept in order with the events.
func TestBrandsReadYourWrites(t *testing.T) {
	b := newBrands(t)
	ctx := context.Background()
	org, other := uuid.NewString(), uuid.NewString()
	at := time.Now().Add(-time.Second).UTC().Truncate(time.Microsecond)
	id := uuid.NewString()
	b.owner.add(org, events.BrandChanged{BrandID: id, Name: "Acme", Colors: []string{"#7c3aed"}}, at)

	// Another organization: the owner, asked as it, does not know the id.
	if _, err := b.svc.Brand(ctx, other, id); !errors.Is(err, render.ErrNoBrand) {
		t.Fatalf("another organization's brand: %v", err)
	}
	if asked := b.owner.requests(); len(asked) != 1 || asked[0].OrgID != other {
		t.Fatalf("asked %+v, want once as the other organization", asked)
	}
	// Its owner, before any event came, and in capitals.
	got, err := b.svc.Brand(ctx, org, strings.ToUpper(id))
	if err != nil || !strings.EqualFold(got.ID, id) || got.Name != "Acme" || got.FrameColor() != "0x7C3AED" {
		t.Fatalf("brand %+v, %v", got, err)
	}
	// Now seen: the read model answers alone, for both organizations.
	if _, err := b.svc.Brand(ctx, org, id); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Brand(ctx, other, id); !errors.Is(err, render.ErrNoBrand) {
		t.Fatalf("another organization's brand, seen: %v", err)
	}
	if n := len(b.owner.requests()); n != 2 {
		t.Fatalf("the owner was asked %d times, want 2", n)
	}

	t.Run("events order with the answer by when the brand changed", func(t *testing.T) {
		b.event(t, events.AssetsBrandUpdated, org, events.BrandChanged{BrandID: id, Name: "Older"}, at.Add(-time.Minute))
		if got, _ := b.svc.Brand(ctx, org, id); got.Name != "Acme" {
			t.Fatalf("an event older than the answer overwrote it: %q", got.Name)
		}
		b.event(t, events.AssetsBrandUpdated, org, events.BrandChanged{BrandID: id, Name: "Newer"}, at.Add(time.Second))
		if got, _ := b.svc.Brand(ctx, org, id); got.Name != "Newer" {
			t.Fatalf("a newer event did not apply: %q", got.Name)
		}
	})

	t.Run("a deletion landing while the owner answers is final", func(t *testing.T) {
		gone := uuid.NewString()
		b.owner.add(org, events.BrandChanged{BrandID: gone, Name: "Gone"}, at)
		b.owner.setBefore(func() {
			// The owner's goroutine: report, do not stop the test.
			if err := b.apply(events.AssetsBrandDeleted, org, events.BrandChanged{BrandID: gone}, time.Now()); err != nil {
				t.Error(err)
			}
		})
		defer b.owner.setBefore(nil)
		if _, err := b.svc.Brand(ctx, org, gone); !errors.Is(err, render.ErrNoBrand) {
			t.Fatalf("a brand deleted while the owner answered: %v", err)
		}
		asked := len(b.owner.requests())
		if _, err := b.svc.Brand(ctx, org, gone); !errors.Is(err, render.ErrNoBrand) || len(b.owner.requests()) != asked {
			t.Fatalf("a deleted brand: %v, asked again: %v", err, len(b.owner.requests()) != asked)
		}
	})

	t.Run("the owner not answering is 503, not a false 404", func(t *testing.T) {
		if err := b.stop(); err != nil {
			t.Fatal(err)
		}
		_, err := b.svc.Brand(ctx, org, uuid.NewString())
		if !apierr.Is(err, apierr.Unavailable) || errors.Is(err, render.ErrNoBrand) {
			t.Fatalf("owner down: %v", err)
		}
		if _, err := b.svc.Brand(ctx, org, id); err != nil {
			t.Fatalf("a seen brand without the owner: %v", err)
		}
	})
}
