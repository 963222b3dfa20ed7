package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/assetrecords"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/clips/internal/render"
)

// Brands is the brands read model (*postgres.Store). It serves speed,
// never the truth about a brand created a moment ago: an id it has never
// seen is asked of the AssetOwner before a render request is told 404
// (see pkg/platform/messaging, "Read models").
type Brands interface {
	// ApplyBrand applies one brand event, once per eventID (consumer
	// names the inbox); an older change, or one reviving a deleted brand,
	// changes nothing. Errors: a database failure.
	ApplyBrand(ctx context.Context, consumer, eventID string, b render.Brand, deleted bool, at time.Time) error
	// LearnBrand applies the owner's answer about a brand the view had
	// not seen, by the rule of ApplyBrand (without an inbox row: applying
	// it again changes nothing). Errors: a database failure.
	LearnBrand(ctx context.Context, b render.Brand, at time.Time) error
	// Brand errors: render.ErrNoBrand (unknown, deleted or another
	// organization's), or a database failure.
	Brand(ctx context.Context, orgID, id string) (render.Brand, error)
	// BrandSeen reports whether the view has a row of the brand id: live,
	// deleted or another organization's. Errors: a database failure.
	BrandSeen(ctx context.Context, id string) (bool, error)
}

// AssetOwner is the assets service, which owns brands
// (*assetrecords.Client).
type AssetOwner interface {
	// Records returns the organization's records among refs as the owner
	// holds them now, each with the payload of its last event and when it
	// last changed; a record it does not hold (never created, deleted,
	// another organization's) is left out. Errors:
	// assetrecords.ErrUnavailable when no answer came, or a fault.
	Records(ctx context.Context, orgID string, refs []events.AssetRef) ([]events.AssetRecord, error)
}

// brand returns the organization's brand for a render request: the read
// model's, or, for an id it has never seen (created a moment ago, its
// event still on the way), the owner's answer, learned into the view and
// read back so that an event applied meanwhile wins. An id the view holds
// as deleted or as another organization's is answered from the view: a
// deletion is final and an id is never reused. When the owner does not
// answer, the request fails with 503 rather than a 404 that may be false.
func (s *Core) brand(ctx context.Context, orgID, id string) (render.Brand, error) {
	b, err := s.Brands.Brand(ctx, orgID, id)
	if !errors.Is(err, render.ErrNoBrand) {
		return b, err
	}
	seen, err := s.Brands.BrandSeen(ctx, id)
	if err != nil {
		return b, err
	}
	if seen {
		// Read again rather than answer 404 from the first read: the
		// brand's event may have landed in between.
		return s.Brands.Brand(ctx, orgID, id)
	}
	owned, at, err := s.ownersBrand(ctx, orgID, id)
	if errors.Is(err, assetrecords.ErrUnavailable) {
		return b, apierr.Wrap(apierr.Unavailable, "the assets service did not answer; nothing was charged, retry later", err).With("service", "assets")
	}
	if err != nil {
		return b, err
	}
	if err := s.Brands.LearnBrand(ctx, owned, at); err != nil {
		return b, err
	}
	return s.Brands.Brand(ctx, orgID, id)
}

// ownersBrand asks the owner for the brand id and when it last changed.
// Errors: render.ErrNoBrand when the owner does not hold it, or the
// owner's.
func (s *Core) ownersBrand(ctx context.Context, orgID, id string) (render.Brand, time.Time, error) {
	// The answer names the brand by its canonical id; a render request
	// may have spelled it in capitals.
	uid, err := uuid.Parse(id)
	if err != nil {
		return render.Brand{}, time.Time{}, render.ErrNoBrand
	}
	ref := events.AssetRef{Kind: events.AssetBrand, ID: uid.String()}
	recs, err := s.AssetOwner.Records(ctx, orgID, []events.AssetRef{ref})
	if err != nil {
		return render.Brand{}, time.Time{}, err
	}
	for _, rec := range recs {
		if rec.Kind == ref.Kind && rec.ID == ref.ID && rec.Brand != nil {
			return render.Brand{ID: ref.ID, OrgID: orgID, Name: rec.Brand.Name, Colors: rec.Brand.Colors, LogoURL: rec.Brand.LogoURL}, rec.ChangedAt, nil
		}
	}
	return render.Brand{}, time.Time{}, render.ErrNoBrand
}

// AssetsSubjects are the assets events the brands read model is built
// from, by the consumer events.DurableClipsAssets.
var AssetsSubjects = []string{events.AssetsBrandCreated, events.AssetsBrandUpdated, events.AssetsBrandDeleted}

// HandleAssetEvent applies an assets.brand.* event to the brands view.
func (s *API) HandleAssetEvent(ctx context.Context, env events.Envelope) error {
	org, err := uuid.Parse(env.OrgID)
	if err != nil {
		return events.Invalid(fmt.Errorf("event %s: orgId %q is not a uuid", env.ID, env.OrgID))
	}
	var b events.BrandChanged
	if err := env.Decode(&b); err != nil {
		return events.Invalid(err)
	}
	id, err := uuid.Parse(b.BrandID)
	if err != nil {
		return events.Invalid(fmt.Errorf("event %s: brandId %q is not a uuid", env.ID, b.BrandID))
	}
	at := env.OccurredAt
	if at.IsZero() {
		at = time.Now()
	}
	return s.Brands.ApplyBrand(ctx, events.DurableClipsAssets, env.ID,
		render.Brand{ID: id.String(), OrgID: org.String(), Name: b.Name, Colors: b.Colors, LogoURL: b.LogoURL},
		env.Type == events.AssetsBrandDeleted, at.UTC().Truncate(time.Microsecond))
}

// brandLogo is a local copy of the brand's logo when it is one of our
// stored objects ("" when it has none, or another host's).
func (s *Worker) brandLogo(ctx context.Context, b render.Brand, dir string) (string, error) {
	if b.LogoURL == "" {
		return "", nil
	}
	key, ok := s.Blobs.KeyFromPublicURL(b.LogoURL)
	if !ok {
		return "", nil
	}
	rc, err := s.Blobs.Get(ctx, key)
	if err != nil {
		return "", fmt.Errorf("reading the brand's logo: %w", err)
	}
	defer func() { _ = rc.Close() }()
	ext := strings.ToLower(filepath.Ext(key))
	if ext != ".png" && ext != ".jpg" && ext != ".jpeg" {
		ext = ".png"
	}
	path := filepath.Join(dir, "logo"+ext)
	f, err := os.Create(path) //nolint:gosec // G304: a path the service chose
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, io.LimitReader(rc, 8<<20))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}
