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
	"hookline.dev/pkg/messaging"
	"hookline.dev/services/clips/internal/render"
)

// Brands is the brands read model (*postgres.Store).
type Brands interface {
	ApplyBrand(ctx context.Context, consumer, eventID string, b render.Brand, deleted bool, at time.Time) error
	Brand(ctx context.Context, orgID, id string) (render.Brand, error)
}

// AssetsConsumer is the durable consumer of the assets events the brands
// read model is built from.
var AssetsConsumer = messaging.ConsumerConfig{
	Durable: events.DurableClipsAssets, Stream: events.StreamAssets,
	Subjects: []string{events.AssetsBrandCreated, events.AssetsBrandUpdated, events.AssetsBrandDeleted},
}

// HandleAssetEvent applies an assets.brand.* event to the brands view.
func (s *Service) HandleAssetEvent(ctx context.Context, env events.Envelope) error {
	org, err := uuid.Parse(env.OrgID)
	if err != nil {
		return messaging.Permanent(fmt.Errorf("event %s: orgId %q is not a uuid", env.ID, env.OrgID))
	}
	var b events.BrandChanged
	if err := env.Decode(&b); err != nil {
		return messaging.Permanent(err)
	}
	id, err := uuid.Parse(b.BrandID)
	if err != nil {
		return messaging.Permanent(fmt.Errorf("event %s: brandId %q is not a uuid", env.ID, b.BrandID))
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
