package service

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/events"
	"hookline.dev/services/clips/internal/render"
)

// Brands is the brands read model (*postgres.Store).
type Brands interface {
	// ApplyBrand applies one brand event, once per eventID (consumer
	// names the inbox); an older change, or one reviving a deleted brand,
	// changes nothing. Errors: a database failure.
	ApplyBrand(ctx context.Context, consumer, eventID string, b render.Brand, deleted bool, at time.Time) error
	// Brand errors: render.ErrNoBrand (unknown, deleted or another
	// organization's), or a database failure.
	Brand(ctx context.Context, orgID, id string) (render.Brand, error)
}

// AssetsSubjects are the assets events the brands read model is built
// from, by the consumer events.DurableClipsAssets.
var AssetsSubjects = []string{events.AssetsBrandCreated, events.AssetsBrandUpdated, events.AssetsBrandDeleted}

// HandleAssetEvent applies an assets.brand.* event to the brands view.
func (s *Service) HandleAssetEvent(ctx context.Context, env events.Envelope) error {
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
func (s *Service) brandLogo(ctx context.Context, b render.Brand, dir string) (string, error) {
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
