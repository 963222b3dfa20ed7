package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"maps"

	"hookline.dev/pkg/contracts/assetrecords"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// ApplyAsset applies one change of an assets record to the read model,
// once per event id (consumer names the inbox). The change never moves a
// record back in time, and a deletion is final. Errors: a database
// failure.
func (s *Service) ApplyAsset(ctx context.Context, consumer, eventID string, c assetview.Change) error {
	return s.Store.ApplyAsset(ctx, consumer, eventID, c)
}

// AssetOwner is the assets service, which owns the records the read model
// follows (*assetrecords.Client).
type AssetOwner interface {
	// Records returns the organization's records among refs as the owner
	// holds them now, each with the payload of its last event and when it
	// last changed; a record it does not hold (never created, deleted,
	// another organization's) is left out. Errors:
	// assetrecords.ErrUnavailable when no answer came, or a fault.
	Records(ctx context.Context, orgID string, refs []events.AssetRef) ([]events.AssetRecord, error)
}

// records returns the organization's live records among refs. The read
// model answers first. An id it has never seen may have been created a
// moment ago, its event still on the way, so the owner is asked for
// those, and what it knows is learned into the view before the view is
// read again (pkg/platform/messaging, "Read models"). An id the view holds as
// deleted or as another organization's is answered from the view alone:
// a deletion is final and an id is never reused. When the owner does not
// answer, the request fails with 503 rather than a 404 that may be false.
func (s *Service) records(ctx context.Context, orgID string, refs []assetview.Ref) (map[assetview.Ref]assetview.Record, error) {
	recs, err := s.Store.Assets(ctx, orgID, refs)
	if err != nil {
		return nil, err
	}
	missing := assetview.Missing(refs, recs)
	if len(missing) == 0 {
		return recs, nil
	}
	unseen, err := s.Store.UnseenAssets(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(unseen) > 0 {
		learned, err := s.ask(ctx, orgID, unseen)
		if errors.Is(err, assetrecords.ErrUnavailable) {
			return nil, apierr.Wrap(apierr.Unavailable, "the assets service did not answer; nothing was charged, retry later", err).With("service", "assets")
		}
		if err != nil {
			return nil, err
		}
		if err := s.Store.LearnAssets(ctx, learned); err != nil {
			return nil, err
		}
	}
	// Read every missing id again, never answer from the first read: an
	// event may have landed since it (the id is "seen" now, and live), and
	// what was learned is read back so that an event applied meanwhile (a
	// newer change, a deletion) wins over the answer.
	found, err := s.Store.Assets(ctx, orgID, missing)
	if err != nil {
		return nil, err
	}
	maps.Copy(recs, found)
	return recs, nil
}

// inputs are a request's resolved assets records, ready for an engine.
type inputs struct {
	style *engine.Style
	brand *engine.Brand
	faces []engine.Face
}

// refsOf lists the records a spec names, with the fields that named them.
func refsOf(styleID, brandID, collectionID string, faceIDs []string) []assetview.Ref {
	var refs []assetview.Ref
	add := func(k assetview.Kind, id, field string) {
		if id != "" {
			refs = append(refs, assetview.Ref{Kind: k, ID: id, Field: field})
		}
	}
	add(assetview.Style, styleID, "styleId")
	add(assetview.Brand, brandID, "brandId")
	add(assetview.Collection, collectionID, "collectionId")
	for i, id := range faceIDs {
		add(assetview.Face, id, fmt.Sprintf("faceIds[%d]", i))
	}
	return refs
}

// resolve reads the records of refs and loads what the engine needs of
// them (face crops, the brand's logo). When strict, a record the
// organization does not have is a 404 naming every such field; otherwise
// (a variation inheriting its parent's, since deleted) it is left out.
func (s *Service) resolve(ctx context.Context, orgID string, refs []assetview.Ref, strict bool) (inputs, error) {
	var in inputs
	recs, err := s.records(ctx, orgID, refs)
	if err != nil {
		return in, err
	}
	if missing := assetview.Missing(refs, recs); strict && len(missing) > 0 {
		fields := map[string]string{}
		for _, r := range missing {
			fields[r.Field] = "not found"
		}
		e := apierr.New(apierr.NotFound, missing[0].Field+": "+string(missing[0].Kind)+" not found").With("fields", fields)
		return in, e
	}
	for _, ref := range refs {
		rec, ok := recs[ref]
		if !ok {
			continue
		}
		switch ref.Kind {
		case assetview.Style:
			if in.style, err = styleOf(rec); err != nil {
				return in, err
			}
		case assetview.Brand:
			if in.brand, err = s.brandOf(ctx, orgID, rec); err != nil {
				return in, err
			}
		case assetview.Face:
			f, err := s.faceOf(ctx, orgID, ref.Field, rec)
			if err != nil {
				return in, err
			}
			in.faces = append(in.faces, f)
		}
	}
	return in, nil
}

func styleOf(rec assetview.Record) (*engine.Style, error) {
	var d events.StyleChanged
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, fmt.Errorf("style %s in the read model: %w", rec.ID, err)
	}
	st := &engine.Style{Name: d.Name, Description: d.Description, Brightness: d.Profile.Brightness,
		Contrast: d.Profile.Contrast, Saturation: d.Profile.Saturation, Warmth: d.Profile.Warmth}
	for _, sw := range d.Profile.Palette {
		if c, err := layout.ParseHex(sw.Hex); err == nil {
			st.Palette = append(st.Palette, engine.Swatch{Color: c, Weight: sw.Weight})
		}
	}
	return st, nil
}

func (s *Service) brandOf(ctx context.Context, orgID string, rec assetview.Record) (*engine.Brand, error) {
	var d events.BrandChanged
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, fmt.Errorf("brand %s in the read model: %w", rec.ID, err)
	}
	b := &engine.Brand{Name: d.Name, Fonts: d.Fonts, Colors: []color.RGBA{}}
	for _, h := range d.Colors {
		if c, err := layout.ParseHex(h); err == nil {
			b.Colors = append(b.Colors, c)
		}
	}
	if d.LogoURL != "" {
		// The logo is guidance: a logo that cannot be read any more (the
		// brand changed meanwhile) leaves the brand's colours to work with.
		img, err := s.Images.Load(ctx, orgID, "brandId", d.LogoURL)
		if err != nil {
			s.log().WarnContext(ctx, "brand logo unreadable", "brand_id", rec.ID, "err", err)
		} else {
			b.Logo = &engine.Picture{Data: img.Data, Img: img.Img}
		}
	}
	return b, nil
}

func (s *Service) faceOf(ctx context.Context, orgID, field string, rec assetview.Record) (engine.Face, error) {
	var d events.FaceChanged
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return engine.Face{}, fmt.Errorf("face %s in the read model: %w", rec.ID, err)
	}
	img, err := s.Images.Load(ctx, orgID, field, d.ThumbnailURL)
	if err != nil {
		return engine.Face{}, err
	}
	cut, err := s.cutout(ctx, rec.ID+" "+d.ThumbnailURL, img.Img)
	if err != nil {
		return engine.Face{}, err
	}
	return engine.Face{Name: d.Name, Crop: engine.Picture{Data: img.Data, Img: img.Img}, Cutout: cut}, nil
}

// refsOfSpec lists the records a validated request names.
func refsOfSpec(s thumbnail.Spec) []assetview.Ref {
	return refsOf(s.StyleID, s.BrandID, s.CollectionID, s.FaceIDs)
}

// ask asks the owner for refs and returns what it holds as changes to the
// view.
func (s *Service) ask(ctx context.Context, orgID string, refs []assetview.Ref) ([]assetview.Change, error) {
	asked := make([]events.AssetRef, len(refs))
	for i, r := range refs {
		asked[i] = events.AssetRef{Kind: string(r.Kind), ID: r.ID}
	}
	recs, err := s.AssetOwner.Records(ctx, orgID, asked)
	if err != nil {
		return nil, err
	}
	out := make([]assetview.Change, len(recs))
	for i, rec := range recs {
		data, err := json.Marshal(assetrecords.Payload(rec))
		if err != nil {
			return nil, err
		}
		out[i] = assetview.Change{Kind: assetview.Kind(rec.Kind), ID: rec.ID, OrgID: orgID, Data: data, At: rec.ChangedAt}
	}
	return out, nil
}
