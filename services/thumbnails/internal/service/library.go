package service

import (
	"bytes"
	"context"
	"errors"

	"hookline.dev/pkg/events"
	"hookline.dev/services/thumbnails/internal/engine"
	"hookline.dev/services/thumbnails/internal/template"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// VariationRequest is POST /thumbnails/variations, validated.
type VariationRequest struct {
	ThumbnailID string
	Count       int
	Tweak       string
}

// CheckVariations validates a variations request; count nil means the
// default.
func CheckVariations(thumbnailID string, count *int, tweak string) (VariationRequest, error) {
	var p thumbnail.Problems
	r := VariationRequest{Count: thumbnail.DefaultVariations}
	if thumbnailID == "" {
		p.Add("thumbnailId", "is required")
	} else {
		r.ThumbnailID = thumbnail.ID(&p, "thumbnailId", thumbnailID)
	}
	if count != nil {
		r.Count = *count
		if r.Count < 1 || r.Count > thumbnail.MaxVariations {
			p.Add("count", "must be between 1 and 10")
		}
	}
	r.Tweak = thumbnail.Text(&p, "prompt", tweak, false, thumbnail.MaxTweakChars)
	return r, p.Err()
}

// Variations makes r.Count variations of one of the organization's
// thumbnails (1 credit each, reserved together; each one that fails is
// refunded). They keep the parent's aspect ratio, inputs and template.
func (s *Service) Variations(ctx context.Context, orgID, key string, r VariationRequest) ([]thumbnail.Thumbnail, error) {
	parent, err := s.Store.Thumbnail(ctx, orgID, r.ThumbnailID)
	if err != nil {
		return nil, err
	}
	in := Inputs{StyleID: parent.StyleID, BrandID: parent.BrandID, FaceIDs: parent.FaceIDs, CollectionID: parent.CollectionID}
	req := engine.Request{Prompt: parent.Prompt, Tweak: r.Tweak, Aspect: parent.Aspect}
	// The parent's assets may have been deleted since: it is drawn with
	// what is left rather than refused.
	s.resolveLenient(ctx, orgID, &in, &req)
	if parent.TemplateID != "" {
		if tpl, err := s.Store.Template(ctx, parent.TemplateID); err == nil {
			req.Template = &tpl.Layout
		}
	}
	im, err := s.Images.Load(ctx, orgID, "thumbnailId", s.URL(parent.ImageKey))
	if err != nil {
		return nil, err
	}
	p := picture(im)
	req.Parent = &p
	jobs := make([]job, r.Count)
	for i := range jobs {
		jobs[i] = job{kind: thumbnail.Variation, prompt: thumbnail.VariationPrompt(parent.Prompt, r.Tweak),
			parentID: parent.ID, tplID: parent.TemplateID, in: in, req: req}
	}
	return s.run(ctx, orgID, key, OpVariation, jobs)
}

// resolveLenient resolves a parent's inputs one by one, dropping those
// that no longer exist (from in as well, so the record says what was
// used): a variation of an old thumbnail is drawn with what is left
// rather than refused.
func (s *Service) resolveLenient(ctx context.Context, orgID string, in *Inputs, req *engine.Request) {
	singles := []Inputs{{CollectionID: in.CollectionID}, {StyleID: in.StyleID}, {BrandID: in.BrandID}}
	for _, f := range in.FaceIDs {
		singles = append(singles, Inputs{FaceIDs: []string{f}})
	}
	var kept Inputs
	for _, one := range singles {
		if one.CollectionID == "" && one.StyleID == "" && one.BrandID == "" && len(one.FaceIDs) == 0 {
			continue
		}
		if err := s.resolve(ctx, orgID, one, req); err != nil {
			s.Log.InfoContext(ctx, "variation drops an input of its parent", "err", err)
			continue
		}
		kept.CollectionID += one.CollectionID
		kept.StyleID += one.StyleID
		kept.BrandID += one.BrandID
		kept.FaceIDs = append(kept.FaceIDs, one.FaceIDs...)
	}
	*in = kept
}

// RemixRequest is POST /templates/{id}/remix, validated.
type RemixRequest struct {
	TemplateID string
	Prompt     string
	Headline   string
	Aspect     string // empty: the template's
	Inputs
}

// CheckRemix validates a remix request.
func CheckRemix(templateID, prompt, headline, aspect string, in RawInputs) (RemixRequest, error) {
	var p thumbnail.Problems
	r := RemixRequest{
		TemplateID: templateID,
		Prompt:     thumbnail.Text(&p, "prompt", prompt, false, thumbnail.MaxPromptChars),
		Headline:   thumbnail.Text(&p, "headline", headline, false, thumbnail.MaxHeadlineChars),
		Aspect:     aspect,
		Inputs:     in.check(&p),
	}
	if aspect != "" {
		thumbnail.Aspect(&p, "aspectRatio", aspect, engine.Landscape)
	}
	return r, p.Err()
}

// Remix fills a template with the request (1 credit).
func (s *Service) Remix(ctx context.Context, orgID, key string, r RemixRequest) (thumbnail.Thumbnail, error) {
	tpl, err := s.Store.Template(ctx, r.TemplateID)
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	aspect := tpl.Aspect
	if r.Aspect != "" {
		aspect = engine.Aspect(r.Aspect)
	}
	req := engine.Request{Prompt: r.Prompt, Headline: r.Headline, Aspect: aspect, Template: &tpl.Layout}
	if req.Prompt == "" && req.Headline == "" {
		req.Headline = tpl.Name
	}
	if err := s.resolve(ctx, orgID, r.Inputs, &req); err != nil {
		return thumbnail.Thumbnail{}, err
	}
	out, err := s.run(ctx, orgID, key, OpRemix, []job{{
		kind: thumbnail.Remix, prompt: thumbnail.RemixPrompt(r.Prompt, r.Headline, tpl.Name),
		tplID: tpl.ID, in: r.Inputs, req: req,
	}})
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	return out[0], nil
}

// Thumbnail returns one of the organization's thumbnails.
func (s *Service) Thumbnail(ctx context.Context, orgID, id string) (thumbnail.Thumbnail, error) {
	return s.Store.Thumbnail(ctx, orgID, id)
}

// Thumbnails lists the organization's thumbnails, newest first.
func (s *Service) Thumbnails(ctx context.Context, orgID string, f thumbnail.Filter, offset, limit int) ([]thumbnail.Thumbnail, int, error) {
	return s.Store.Thumbnails(ctx, orgID, f, offset, limit)
}

// Delete removes a thumbnail and its picture; the deleted event takes it
// out of every collection.
func (s *Service) Delete(ctx context.Context, orgID, id string) error {
	t, err := s.Store.Delete(ctx, orgID, id, func(t thumbnail.Thumbnail) (events.Envelope, error) {
		return events.New(ctx, events.ThumbnailsThumbnailDeleted, Source, t.OrgID, events.ThumbnailDeleted{ThumbnailID: t.ID})
	})
	if err != nil {
		return err
	}
	// After the commit: a crash here leaves an unreferenced object, never a
	// record without its picture.
	s.removeObject(ctx, t.ImageKey)
	return nil
}

// Templates lists the templates in their catalogue order.
func (s *Service) Templates(ctx context.Context, f template.Filter, offset, limit int) ([]template.Template, int, error) {
	return s.Store.Templates(ctx, f, offset, limit)
}

// RenderPreviews draws and stores the preview of every template that has
// none at template.PreviewVersion. One failure does not stop the rest.
func (s *Service) RenderPreviews(ctx context.Context) error {
	if s.Previews == nil {
		return nil
	}
	tpls, err := s.Store.TemplatesToPreview(ctx, template.PreviewVersion)
	if err != nil {
		return err
	}
	var errs []error
	for _, tpl := range tpls {
		res, err := s.Previews.Preview(ctx, tpl.Name, tpl.Layout, tpl.Aspect)
		if err == nil {
			key := template.PreviewKey(tpl.ID, template.PreviewVersion)
			if err = s.Blobs.Put(ctx, key, bytes.NewReader(res.Data), int64(len(res.Data)), res.ContentType); err == nil {
				err = s.Store.SetPreview(ctx, tpl.ID, key, template.PreviewVersion)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
