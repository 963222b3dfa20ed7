package service

import (
	"context"
	"encoding/json"
	"fmt"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/services/thumbnails/internal/asset"
)

// AssetSubjects are the assets events the read model follows.
var AssetSubjects = []string{
	events.AssetsStyleCreated, events.AssetsStyleUpdated, events.AssetsStyleDeleted,
	events.AssetsBrandCreated, events.AssetsBrandUpdated, events.AssetsBrandDeleted,
	events.AssetsFaceCreated, events.AssetsFaceUpdated, events.AssetsFaceDeleted,
	events.AssetsCollectionCreated, events.AssetsCollectionUpdated, events.AssetsCollectionDeleted,
}

// HandleAssetEvent keeps the read model of assets' records: each event
// becomes the record's new state (or its tombstone). It is idempotent
// (the inbox) and order-tolerant (a change older than the one held is
// ignored). A payload that cannot be read is permanent.
func (s *Service) HandleAssetEvent(ctx context.Context, env events.Envelope) error {
	c, err := assetChange(env)
	if err != nil {
		return messaging.Permanent(err)
	}
	return s.Store.ApplyAsset(ctx, events.DurableThumbnailsAssets, env.ID, c)
}

func assetChange(env events.Envelope) (asset.Change, error) {
	c := asset.Change{OrgID: env.OrgID, Version: env.OccurredAt}
	decode := func(v any) error {
		if err := json.Unmarshal(env.Data, v); err != nil {
			return fmt.Errorf("service: %s %s: %w", env.Type, env.ID, err)
		}
		return nil
	}
	var err error
	switch env.Type {
	case events.AssetsStyleCreated, events.AssetsStyleUpdated:
		var d events.StyleChanged
		err = decode(&d)
		st := asset.Style{ID: d.StyleID, Name: d.Name, Description: d.Description,
			Brightness: d.Profile.Brightness, Contrast: d.Profile.Contrast, Saturation: d.Profile.Saturation, Warmth: d.Profile.Warmth}
		for _, sw := range d.Profile.Palette {
			st.Palette = append(st.Palette, asset.Swatch{Hex: sw.Hex, Weight: sw.Weight})
		}
		c.Kind, c.ID, c.Record = asset.StyleKind, d.StyleID, st
	case events.AssetsBrandCreated, events.AssetsBrandUpdated:
		var d events.BrandChanged
		err = decode(&d)
		c.Kind, c.ID, c.Record = asset.BrandKind, d.BrandID, asset.Brand{ID: d.BrandID, Name: d.Name, Colors: d.Colors, Fonts: d.Fonts, LogoURL: d.LogoURL}
	case events.AssetsFaceCreated, events.AssetsFaceUpdated:
		var d events.FaceChanged
		err = decode(&d)
		c.Kind, c.ID, c.Record = asset.FaceKind, d.FaceID, asset.Face{ID: d.FaceID, Name: d.Name, CropURL: d.ThumbnailURL}
	case events.AssetsCollectionCreated, events.AssetsCollectionUpdated:
		var d events.CollectionChanged
		err = decode(&d)
		c.Kind, c.ID, c.Record = asset.CollectionKind, d.CollectionID, asset.Collection{ID: d.CollectionID, Name: d.Name}
	case events.AssetsStyleDeleted:
		var d events.StyleDeleted
		err = decode(&d)
		c.Kind, c.ID, c.Deleted = asset.StyleKind, d.StyleID, true
	case events.AssetsBrandDeleted:
		var d events.BrandDeleted
		err = decode(&d)
		c.Kind, c.ID, c.Deleted = asset.BrandKind, d.BrandID, true
	case events.AssetsFaceDeleted:
		var d events.FaceDeleted
		err = decode(&d)
		c.Kind, c.ID, c.Deleted = asset.FaceKind, d.FaceID, true
	case events.AssetsCollectionDeleted:
		var d events.CollectionDeleted
		err = decode(&d)
		c.Kind, c.ID, c.Deleted = asset.CollectionKind, d.CollectionID, true
	default:
		return c, fmt.Errorf("service: unexpected event %s", env.Type)
	}
	if err == nil && (c.ID == "" || c.OrgID == "") {
		err = fmt.Errorf("service: %s %s names no record or organization", env.Type, env.ID)
	}
	return c, err
}
