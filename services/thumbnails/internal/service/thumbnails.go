package service

import (
	"context"
	"errors"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Generate draws one thumbnail for 1 credit. Every input is checked before
// anything is reserved: the body (400), the records it names (404), the
// reference images (400).
func (s *Service) Generate(ctx context.Context, p principal.Principal, in thumbnail.GenerateInput) (thumbnail.Thumbnail, error) {
	spec, err := thumbnail.ValidateGenerate(in)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	res, err := s.resolve(ctx, p.OrgID, refsOfSpec(spec), true)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	pd := newPaid(p, OpGenerate, 1)
	if done, err := s.replay(ctx, pd); err != nil || len(done) > 0 {
		return first(done, err)
	}
	refs, err := s.Images.LoadAll(ctx, p.OrgID, "referenceImageUrls", spec.ReferenceURLs)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	j := &pd.jobs[0]
	fill(j, thumbnail.Generated, spec, spec.Prompt, res)
	j.req.References = pictures(refs)
	release, err := s.holdDrawing(ctx, pd, "referenceImageUrls")
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	defer release()
	return first(s.run(ctx, pd))
}

// Remix fills template id with the request for 1 credit. The aspect ratio
// defaults to the template's.
func (s *Service) Remix(ctx context.Context, p principal.Principal, id string, in thumbnail.RemixInput) (thumbnail.Thumbnail, error) {
	spec, err := thumbnail.ValidateRemix(in)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	tpl, err := s.Store.Template(ctx, id)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	if spec.Aspect == "" {
		spec.Aspect = tpl.Aspect
	}
	res, err := s.resolve(ctx, p.OrgID, refsOfSpec(spec), true)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	pd := newPaid(p, OpRemix, 1)
	if done, err := s.replay(ctx, pd); err != nil || len(done) > 0 {
		return first(done, err)
	}
	j := &pd.jobs[0]
	fill(j, thumbnail.Remix, spec, thumbnail.RemixPrompt(spec, tpl.Name), res)
	j.t.TemplateID = tpl.ID
	j.req.Prompt, j.req.Headline, j.req.Template = spec.Prompt, spec.Headline, &tpl.Layout
	release, err := s.holdDrawing(ctx, pd, "faceIds")
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	defer release()
	return first(s.run(ctx, pd))
}

// Variations draws count variations of one of the organization's
// thumbnails, 1 credit each, reserved all or nothing; an item that fails
// is refunded and left out. Each keeps the parent's aspect ratio, style,
// brand, faces and template.
func (s *Service) Variations(ctx context.Context, p principal.Principal, in thumbnail.VariationsInput) ([]thumbnail.Thumbnail, error) {
	vs, err := thumbnail.ValidateVariations(in)
	if err != nil {
		return nil, err
	}
	parent, err := s.Store.Thumbnail(ctx, p.OrgID, vs.ParentID)
	if errors.Is(err, thumbnail.ErrNotFound) {
		return nil, apierr.New(apierr.NotFound, "thumbnail not found").With("fields", map[string]string{"thumbnailId": "not found"})
	}
	if err != nil {
		return nil, err
	}
	// The parent's records may have been deleted since: a variation then
	// does without them rather than failing.
	res, err := s.resolve(ctx, p.OrgID, refsOf(parent.StyleID, parent.BrandID, "", parent.FaceIDs), false)
	if err != nil {
		return nil, err
	}
	var tpl *template.Template
	if parent.TemplateID != "" {
		t, err := s.Store.Template(ctx, parent.TemplateID)
		if err != nil && !errors.Is(err, template.ErrNotFound) {
			return nil, err
		}
		if err == nil {
			tpl = &t
		}
	}
	pd := newPaid(p, OpVariations, vs.Count)
	if done, err := s.replay(ctx, pd); err != nil || len(done) > 0 {
		return done, err
	}
	img, err := s.Images.Load(ctx, p.OrgID, "thumbnailId", s.URL(parent.ImageKey))
	if err != nil {
		return nil, err
	}
	spec := thumbnail.Spec{Aspect: parent.Aspect, StyleID: parent.StyleID, BrandID: parent.BrandID, FaceIDs: parent.FaceIDs}
	for i := range pd.jobs {
		j := &pd.jobs[i]
		fill(j, thumbnail.Variation, spec, thumbnail.VariationPrompt(parent.Prompt, vs.Tweak), res)
		j.vary = true
		j.t.ParentID = parent.ID
		j.req.Prompt, j.req.Tweak = parent.Prompt, vs.Tweak
		j.req.Parent = &engine.Picture{Data: img.Data, Img: img.Img}
		if tpl != nil {
			j.t.TemplateID, j.req.Template = tpl.ID, &tpl.Layout
		}
	}
	release, err := s.holdDrawing(ctx, pd, "thumbnailId")
	if err != nil {
		return nil, err
	}
	defer release()
	return s.run(ctx, pd)
}

// fill sets a job's row and engine request from a validated spec.
func fill(j *job, kind thumbnail.Kind, spec thumbnail.Spec, prompt string, res inputs) {
	j.t.Kind, j.t.Prompt, j.t.Aspect = kind, prompt, spec.Aspect
	j.t.StyleID, j.t.BrandID, j.t.CollectionID = spec.StyleID, spec.BrandID, spec.CollectionID
	if spec.FaceIDs != nil {
		j.t.FaceIDs = spec.FaceIDs
	}
	j.req.Prompt, j.req.Aspect = prompt, spec.Aspect
	j.req.Style, j.req.Brand, j.req.Faces = res.style, res.brand, res.faces
}

func pictures(imgs []imageinput.Image) []engine.Picture {
	out := make([]engine.Picture, len(imgs))
	for i, img := range imgs {
		out[i] = engine.Picture{Data: img.Data, Img: img.Img}
	}
	return out
}

// first is the single thumbnail of a one-item request.
func first(ts []thumbnail.Thumbnail, err error) (thumbnail.Thumbnail, error) {
	if err != nil || len(ts) == 0 {
		return thumbnail.Thumbnail{}, err
	}
	return ts[0], nil
}

// Thumbnail returns one of the organization's thumbnails.
func (s *Service) Thumbnail(ctx context.Context, orgID, id string) (thumbnail.Thumbnail, error) {
	return s.Store.Thumbnail(ctx, orgID, id)
}

// Thumbnails lists the organization's thumbnails, newest first.
func (s *Service) Thumbnails(ctx context.Context, orgID string, f thumbnail.Filter, offset, limit int) ([]thumbnail.Thumbnail, int, error) {
	return s.Store.Thumbnails(ctx, orgID, f, offset, limit)
}

// DeleteThumbnail removes a thumbnail and, once that is committed, its
// picture. thumbnails.thumbnail.deleted.v1 takes it out of every
// collection.
func (s *Service) DeleteThumbnail(ctx context.Context, orgID, id string) error {
	t, err := s.Store.DeleteThumbnail(ctx, orgID, id, func(t thumbnail.Thumbnail) (events.Envelope, error) {
		return events.New(ctx, events.ThumbnailsThumbnailDeleted, Source, orgID, events.ThumbnailDeleted{ThumbnailID: t.ID})
	})
	if err != nil {
		return err
	}
	s.remove(ctx, t.ImageKey)
	return nil
}
