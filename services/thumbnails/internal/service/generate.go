package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/credits"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/imageinput"
	"hookline.dev/pkg/s3store"
	"hookline.dev/services/thumbnails/internal/asset"
	"hookline.dev/services/thumbnails/internal/engine"
	"hookline.dev/services/thumbnails/internal/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Inputs are the optional assets a request names, as validated ids.
type Inputs struct {
	StyleID      string
	BrandID      string
	FaceIDs      []string
	CollectionID string
	// ReferenceURLs are images to draw from (generation only).
	ReferenceURLs []string
}

// GenerateRequest is POST /thumbnails, validated by Check.
type GenerateRequest struct {
	Prompt string
	Aspect engine.Aspect
	Inputs
}

// Check validates r as the API receives it (raw strings), returning the
// normalised request or a *thumbnail.InvalidError naming every bad field.
func CheckGenerate(prompt, aspect string, in RawInputs) (GenerateRequest, error) {
	var p thumbnail.Problems
	r := GenerateRequest{
		Prompt: thumbnail.Text(&p, "prompt", prompt, true, thumbnail.MaxPromptChars),
		Aspect: thumbnail.Aspect(&p, "aspectRatio", aspect, engine.Landscape),
		Inputs: in.check(&p),
	}
	return r, p.Err()
}

// RawInputs are the asset fields of a request body as sent.
type RawInputs struct {
	StyleID, BrandID, CollectionID string
	FaceIDs                        []string
	ReferenceURLs                  []string
}

func (in RawInputs) check(p *thumbnail.Problems) Inputs {
	out := Inputs{
		StyleID:      thumbnail.ID(p, "styleId", in.StyleID),
		BrandID:      thumbnail.ID(p, "brandId", in.BrandID),
		CollectionID: thumbnail.ID(p, "collectionId", in.CollectionID),
		FaceIDs:      thumbnail.IDs(p, "faceIds", in.FaceIDs, thumbnail.MaxFaces),
	}
	if len(in.ReferenceURLs) > thumbnail.MaxReferenceImages {
		p.Add("referenceImageUrls", fmt.Sprintf("has %d entries; at most %d", len(in.ReferenceURLs), thumbnail.MaxReferenceImages))
	} else {
		out.ReferenceURLs = in.ReferenceURLs
	}
	return out
}

// job is one picture to make and record.
type job struct {
	kind     thumbnail.Kind
	prompt   string // recorded
	parentID string
	tplID    string
	in       Inputs
	req      engine.Request // without Seed
}

// Generate makes one thumbnail from a prompt (1 credit).
func (s *Service) Generate(ctx context.Context, orgID, key string, r GenerateRequest) (thumbnail.Thumbnail, error) {
	req := engine.Request{Prompt: r.Prompt, Aspect: r.Aspect}
	if err := s.resolve(ctx, orgID, r.Inputs, &req); err != nil {
		return thumbnail.Thumbnail{}, err
	}
	out, err := s.run(ctx, orgID, key, OpGenerate, []job{{kind: thumbnail.Generated, prompt: r.Prompt, in: r.Inputs, req: req}})
	if err != nil {
		return thumbnail.Thumbnail{}, err
	}
	return out[0], nil
}

// resolve reads every input a request names into req: the records from
// the read model (404 naming the field for one the organization does not
// have) and the images through the verifier (400 naming the field).
func (s *Service) resolve(ctx context.Context, orgID string, in Inputs, req *engine.Request) error {
	if in.CollectionID != "" {
		if _, err := s.Store.Collection(ctx, orgID, in.CollectionID); err != nil {
			return notFound(err, "collectionId", asset.CollectionKind)
		}
	}
	if in.StyleID != "" {
		st, err := s.Store.Style(ctx, orgID, in.StyleID)
		if err != nil {
			return notFound(err, "styleId", asset.StyleKind)
		}
		req.Style = engineStyle(st)
	}
	if in.BrandID != "" {
		b, err := s.Store.Brand(ctx, orgID, in.BrandID)
		if err != nil {
			return notFound(err, "brandId", asset.BrandKind)
		}
		req.Brand = s.engineBrand(ctx, orgID, b)
	}
	if len(in.FaceIDs) > 0 {
		faces, err := s.Store.Faces(ctx, orgID, in.FaceIDs)
		if err != nil {
			var miss *asset.MissingError
			if errors.As(err, &miss) {
				return &asset.NotFoundError{Field: fmt.Sprintf("faceIds[%d]", miss.Index), Kind: asset.FaceKind}
			}
			return err
		}
		urls := make([]string, len(faces))
		for i, f := range faces {
			urls[i] = f.CropURL
		}
		imgs, err := s.Images.LoadAll(ctx, orgID, "faceIds", urls)
		if err != nil {
			return err
		}
		for i, f := range faces {
			req.Faces = append(req.Faces, engine.Face{Name: f.Name, Crop: picture(imgs[i])})
		}
	}
	if len(in.ReferenceURLs) > 0 {
		imgs, err := s.Images.LoadAll(ctx, orgID, "referenceImageUrls", in.ReferenceURLs)
		if err != nil {
			return err
		}
		for _, im := range imgs {
			req.References = append(req.References, picture(im))
		}
	}
	return nil
}

func notFound(err error, field string, kind asset.Kind) error {
	if errors.Is(err, asset.ErrNotFound) {
		return &asset.NotFoundError{Field: field, Kind: kind}
	}
	return err
}

func picture(im imageinput.Image) engine.Picture { return engine.Picture{Data: im.Data, Img: im.Img} }

func engineStyle(st asset.Style) *engine.Style {
	out := &engine.Style{
		Name: st.Name, Description: st.Description,
		Brightness: st.Brightness, Contrast: st.Contrast, Saturation: st.Saturation, Warmth: st.Warmth,
	}
	for _, sw := range st.Palette {
		if c, err := layout.ParseHex(sw.Hex); err == nil {
			out.Palette = append(out.Palette, engine.Swatch{Color: c, Weight: sw.Weight})
		}
	}
	return out
}

// engineBrand converts a brand; a logo that no longer loads is left out
// (the brand's colours still apply) rather than failing the request.
func (s *Service) engineBrand(ctx context.Context, orgID string, b asset.Brand) *engine.Brand {
	out := &engine.Brand{Name: b.Name, Fonts: b.Fonts}
	for _, h := range b.Colors {
		if c, err := layout.ParseHex(h); err == nil {
			out.Colors = append(out.Colors, c)
		}
	}
	if b.LogoURL != "" {
		im, err := s.Images.Load(ctx, orgID, "brandId", b.LogoURL)
		if err != nil {
			s.Log.WarnContext(ctx, "brand logo not loaded", "brand_id", b.ID, "err", err)
		} else {
			p := picture(im)
			out.Logo = &p
		}
	}
	return out
}

// run is the saga of one request: reserve a credit per job (all or
// nothing), draw and record each job on its own (its reservation completed
// with the record, or refunded on failure), and return what was made. It
// fails only when nothing was made.
func (s *Service) run(ctx context.Context, orgID, key, op string, jobs []job) ([]thumbnail.Thumbnail, error) {
	items := make([]credits.Item, len(jobs))
	for i := range jobs {
		items[i] = credits.Item{Credits: 1, ResourceType: "thumbnail", ResourceID: uuid.NewString()}
	}
	rs, err := s.Credits.Reserve(ctx, credits.Request{OrgID: orgID, Operation: op, Key: key, Items: items})
	if err != nil {
		return nil, err
	}
	made := make([]thumbnail.Thumbnail, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	gate := make(chan struct{}, 2) // a request's share of the draw slots
	for i := range jobs {
		wg.Add(1)
		gate <- struct{}{}
		go func() {
			defer func() { <-gate; wg.Done() }()
			made[i], errs[i] = s.make(ctx, rs[i], jobs[i])
		}()
	}
	wg.Wait()
	out := make([]thumbnail.Thumbnail, 0, len(jobs))
	for i, t := range made {
		if errs[i] == nil {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errs[0]
	}
	return out, nil
}

// make draws, stores and records one job under reservation r.
func (s *Service) make(ctx context.Context, r credits.Reservation, j job) (thumbnail.Thumbnail, error) {
	t := thumbnail.Thumbnail{
		ID: r.ResourceID, OrgID: r.OrgID, Kind: j.kind, Prompt: j.prompt, ParentID: j.parentID,
		Aspect: j.req.Aspect, StyleID: j.in.StyleID, BrandID: j.in.BrandID, FaceIDs: j.in.FaceIDs,
		CollectionID: j.in.CollectionID, TemplateID: j.tplID, Engine: s.Engine.Name(),
		Seed: thumbnail.SeedFor(r.ResourceID), ReservationID: r.ID,
	}
	req := j.req
	req.Seed = t.Seed
	res, err := s.draw(ctx, j.kind, req)
	if err != nil {
		s.refund(ctx, r, "engine: "+err.Error())
		return t, drawError(s.Engine.Name(), err)
	}
	t.Width, t.Height = res.Width, res.Height
	t.ImageKey = s3store.Key(r.OrgID, "thumbnails", t.ID, ext(res.ContentType))
	if err := s.Blobs.Put(ctx, t.ImageKey, bytes.NewReader(res.Data), int64(len(res.Data)), res.ContentType); err != nil {
		s.refund(ctx, r, "storage: "+err.Error())
		return t, err
	}
	t.CreatedAt = s.now()
	created, err := events.New(ctx, events.ThumbnailsThumbnailCreated, Source, t.OrgID, events.ThumbnailCreated{
		ThumbnailID: t.ID, ImageURL: s.URL(t.ImageKey), Prompt: t.Prompt, CollectionID: t.CollectionID,
	})
	if err != nil {
		return t, err
	}
	completed, err := CompletedEvent(ctx, r)
	if err != nil {
		return t, err
	}
	if err := s.Store.Save(ctx, t, r, created, completed); err != nil {
		s.removeObject(ctx, t.ImageKey)
		if errors.Is(err, credits.ErrSettled) {
			// The recovery pass refunded the reservation while the draw ran
			// (it took longer than the grace period): not delivered, not paid.
			return t, apierr.Wrap(apierr.Unavailable, "the thumbnail took too long and was not charged; retry", err)
		}
		s.refund(ctx, r, "record: "+err.Error())
		return t, err
	}
	return t, nil
}

// CompletedEvent is the completion of a thumbnail's reservation, which
// billing commits on. Its id derives from the reservation, so the
// recovery pass writing it again is one event downstream.
func CompletedEvent(ctx context.Context, r credits.Reservation) (events.Envelope, error) {
	return events.NewWithID(ctx, uuid.NewSHA1(completedNS, []byte(r.ID)).String(),
		events.ThumbnailsOperationCompleted, Source, r.OrgID,
		events.OperationCompleted{ReservationID: r.ID, Operation: r.Operation, ResourceID: r.ResourceID})
}

var completedNS = uuid.MustParse("0b8f3f7a-3c1e-4f63-9d8e-51a7c2b7e9d4")

// refund fails r. If even that cannot be written, the recovery pass
// refunds it later, so the caller's answer does not change.
func (s *Service) refund(ctx context.Context, r credits.Reservation, reason string) {
	if err := s.Store.Fail(context.WithoutCancel(ctx), r, reason); err != nil {
		s.Log.ErrorContext(ctx, "refund reservation", "reservation_id", r.ID, "err", err)
	}
}

func (s *Service) removeObject(ctx context.Context, key string) {
	if err := s.Blobs.Remove(context.WithoutCancel(ctx), key); err != nil {
		s.Log.WarnContext(ctx, "remove object", "key", key, "err", err)
	}
}

func ext(contentType string) string {
	if contentType == "image/png" {
		return "png"
	}
	return "jpg"
}

// drawError is the client's answer to a failed draw (the credit is
// refunded either way).
func drawError(name string, err error) error {
	switch {
	case errors.Is(err, engine.ErrRejected):
		return apierr.Wrap(apierr.UnsupportedPrompt, "the image provider refused this request; nothing was charged", err).With("engine", name)
	case errors.Is(err, engine.ErrUnavailable):
		return apierr.Wrap(apierr.Unavailable, "the image engine is unavailable; nothing was charged, retry later", err).With("engine", name)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("engine %s: %w", name, err)
}
