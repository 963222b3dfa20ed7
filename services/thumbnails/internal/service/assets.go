package service

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"strings"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/events"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// AssetsConsumer is the durable consumer (and inbox name) of the read
// model of assets records.
const AssetsConsumer = events.DurableThumbnailsAssets

// AssetsSubjects are the assets events the read model follows.
var AssetsSubjects = []string{"assets.face.>", "assets.style.>", "assets.brand.>",
	events.AssetsCollectionCreated, events.AssetsCollectionUpdated, events.AssetsCollectionDeleted}

// HandleAssetEvent is the handler of the read-model consumer. It is
// idempotent: the inbox row is written in the transaction of the change,
// and the change itself never moves a record back in time.
func (s *Service) HandleAssetEvent(ctx context.Context, env events.Envelope) error {
	org, err := uuid.Parse(env.OrgID)
	if err != nil {
		return events.Invalid(fmt.Errorf("event %s: orgId %q is not a uuid", env.ID, env.OrgID))
	}
	var kind assetview.Kind
	// Every assets payload names its record as the deleted event does: the
	// embedded payloads of pkg/events read whichever id is there.
	var ids struct {
		events.FaceDeleted
		events.StyleDeleted
		events.BrandDeleted
		events.CollectionDeleted
	}
	if err := env.Decode(&ids); err != nil {
		return events.Invalid(err)
	}
	var id string
	switch p := strings.Split(env.Type, "."); {
	case len(p) != 4 || p[0] != "assets":
		return nil
	case p[1] == "face":
		kind, id = assetview.Face, ids.FaceID
	case p[1] == "style":
		kind, id = assetview.Style, ids.StyleID
	case p[1] == "brand":
		kind, id = assetview.Brand, ids.BrandID
	case p[1] == "collection" && p[2] != "thumbnails_changed":
		kind, id = assetview.Collection, ids.CollectionID
	default:
		return nil
	}
	rid, err := uuid.Parse(id)
	if err != nil {
		return events.Invalid(fmt.Errorf("event %s: record id %q is not a uuid", env.ID, id))
	}
	at := env.OccurredAt
	if at.IsZero() {
		at = time.Now()
	}
	return s.Store.ApplyAsset(ctx, AssetsConsumer, env.ID, assetview.Change{
		Kind: kind, ID: rid.String(), OrgID: org.String(), Data: env.Data,
		Deleted: strings.HasSuffix(env.Type, ".deleted.v1"), At: at.UTC().Truncate(time.Microsecond),
	})
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

// resolve reads the records of refs from the view and loads what the
// engine needs of them (face crops, the brand's logo). When strict, a
// record the organization does not have is a 404 naming every such field;
// otherwise (a variation inheriting its parent's, since deleted) it is
// left out.
func (s *Service) resolve(ctx context.Context, orgID string, refs []assetview.Ref, strict bool) (inputs, error) {
	var in inputs
	recs, err := s.Store.Assets(ctx, orgID, refs)
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
	return engine.Face{Name: d.Name, Crop: engine.Picture{Data: img.Data, Img: img.Img}}, nil
}

// refsOfSpec lists the records a validated request names.
func refsOfSpec(s thumbnail.Spec) []assetview.Ref {
	return refsOf(s.StyleID, s.BrandID, s.CollectionID, s.FaceIDs)
}
