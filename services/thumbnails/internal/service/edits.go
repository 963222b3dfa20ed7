package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/edits"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/internal/thumbnail/assetview"
)

// localEngine names the local image code in a thumbnail's engine field.
const localEngine = "local"

// Edited is an edit's result: the thumbnail it made and what it cost.
type Edited struct {
	Thumbnail thumbnail.Thumbnail
	Credits   int
}

// Edit runs one edit of the registry (ARCHITECTURE §7): validation, then
// the pictures are checked, their memory acquired (memory.go), and they
// are loaded, all before any credit is reserved, so a bad request is a
// 400 and a busy service a 503 that cost nothing even at a zero balance.
// Free edits are stored at once; paid ones run the credit saga, and a
// retry of the same request (Idempotency-Key) returns the picture it
// made. The saga reserves one credit a result, the price of every paid
// edit.
func (s *Service) Edit(ctx context.Context, p principal.Principal, op edits.Op, body edits.Body) (Edited, error) {
	req, err := body.Parse(s.Engine.Name() != localEngine)
	if err != nil {
		return Edited{}, err
	}
	var pd *paid
	if op.Credits() > 0 {
		pd = newPaid(p, edits.Operation(op), 1)
		if done, err := s.replay(ctx, pd); err != nil || len(done) > 0 {
			t, err := first(done, err)
			return Edited{Thumbnail: t, Credits: op.Credits()}, err
		}
	}
	in, release, err := s.loadEdit(ctx, p.OrgID, req)
	if err != nil {
		return Edited{}, err
	}
	defer release()
	t := thumbnail.Thumbnail{Kind: thumbnail.Edit, Prompt: req.Prompt, Aspect: req.Aspect, Operation: op.Name(), Params: req.Params,
		Applied: req.AppliedBy(op), ParentID: in.parentID, FaceIDs: req.FaceIDs, Engine: localEngine}
	if req.Provider {
		t.Engine = s.Engine.Name()
	}
	render := func(ctx context.Context) (engine.Result, error) { return s.renderEdit(ctx, p.OrgID, req, in) }
	if pd == nil {
		t.ID, t.OrgID = uuid.NewString(), p.OrgID
		t.Seed = seedOf(t.ID)
		res, err := s.within(ctx, render)
		if err != nil {
			countGeneration(t, outcomeOf(err))
			return Edited{}, engineError(err)
		}
		t, err = s.keep(ctx, t, res, nil)
		return Edited{Thumbnail: t}, err
	}
	j := &pd.jobs[0]
	t.ID, t.OrgID, t.Seed = j.t.ID, j.t.OrgID, j.t.Seed
	j.t, j.render = t, render
	t, err = first(s.run(ctx, pd))
	return Edited{Thumbnail: t, Credits: op.Credits()}, err
}

// editInputs are an edit's loaded pictures: what its run reads, the
// sources as loaded, which a failed run may still have to decode, and a
// face picture named by address, checked with them.
type editInputs struct {
	edits.Inputs
	srcs     []imageinput.Image
	face     []imageinput.Image
	parentID string
}

// loadEdit loads what req names and checks what only the pictures can
// tell. The pictures are checked up to their headers first, so that the
// memory of the whole edit is acquired before any is decoded; release
// gives it back once the edit is done.
func (s *Service) loadEdit(ctx context.Context, orgID string, req *edits.Request) (in *editInputs, release func(), err error) {
	in = &editInputs{}
	for _, src := range req.Sources {
		img, err := s.EditImages.Check(ctx, orgID, src.Field, src.URL)
		if err != nil {
			return nil, nil, err
		}
		in.srcs = append(in.srcs, img)
		in.Sources = append(in.Sources, pictureOf(img))
	}
	refs, err := s.EditImages.CheckAll(ctx, orgID, "referenceImageUrls", req.References)
	if err != nil {
		return nil, nil, err
	}
	if f := req.Face; f != nil && f.URL != "" {
		img, err := s.EditImages.Check(ctx, orgID, f.Field, f.URL)
		if err != nil {
			return nil, nil, err
		}
		in.face = []imageinput.Image{img}
	}
	need := decodes(in.srcs) + decodes(refs) + decodes(in.face) + req.Memory(in.Sources)
	if release, err = s.hold(ctx, req.Sources[largest(in.srcs)].Field, need); err != nil {
		return nil, nil, err
	}
	if err := s.decodeEdit(ctx, orgID, req, in, refs); err != nil {
		release()
		return nil, nil, err
	}
	return in, release, nil
}

// decodeEdit decodes the pictures loadEdit checked (the sources only when
// the run reads their pixels in Go), loads the face picture and runs the
// checks on them.
func (s *Service) decodeEdit(ctx context.Context, orgID string, req *edits.Request, in *editInputs, refs []imageinput.Image) error {
	if req.Pixels {
		for i, src := range req.Sources {
			img, err := s.EditImages.Decode(ctx, orgID, src.Field, in.srcs[i])
			if err != nil {
				return err
			}
			in.srcs[i], in.Sources[i] = img, pictureOf(img)
		}
	}
	refs, err := s.EditImages.DecodeAll(ctx, orgID, "referenceImageUrls", refs)
	if err != nil {
		return err
	}
	for _, img := range refs {
		in.References = append(in.References, pictureOf(img))
	}
	if in.parentID, err = s.parentOf(ctx, orgID, in.srcs[0]); err != nil {
		return err
	}
	if req.Faces {
		for _, img := range in.srcs {
			in.Faces = append(in.Faces, s.Faces.Detect(img.Img))
		}
	}
	if req.Face != nil {
		if in.Face, err = s.loadFace(ctx, orgID, *req.Face, in.face); err != nil {
			return err
		}
	}
	return req.Check(&in.Inputs)
}

// loadFace loads the face picture of a swap, and finds its faces: the
// picture loadEdit checked (named by address), or a saved face's.
func (s *Service) loadFace(ctx context.Context, orgID string, ref edits.FaceRef, checked []imageinput.Image) (*edits.FacePicture, error) {
	var img imageinput.Image
	if len(checked) > 0 {
		var err error
		if img, err = s.EditImages.Decode(ctx, orgID, ref.Field, checked[0]); err != nil {
			return nil, err
		}
	} else {
		url, err := s.savedFace(ctx, orgID, ref.SavedID)
		if err != nil {
			return nil, err
		}
		if img, err = s.EditImages.Load(ctx, orgID, ref.Field, url); err != nil {
			return nil, err
		}
	}
	return &edits.FacePicture{Picture: pictureOf(img), Faces: s.Faces.Detect(img.Img)}, nil
}

// parentOf is the parent of an edit: the caller's thumbnail whose picture
// the (first) source is, "" for none.
func (s *Service) parentOf(ctx context.Context, orgID string, src imageinput.Image) (string, error) {
	if src.Key == "" {
		return "", nil
	}
	t, err := s.Store.ThumbnailByImage(ctx, orgID, src.Key)
	switch {
	case errors.Is(err, thumbnail.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	return t.ID, nil
}

// renderEdit runs req, first cutting the subject out of the first source
// when the run draws on it: the cut is the run's costliest step, so it
// runs as part of the run, within its time limit and after its credit is
// reserved. A source checked only up to its header (req.Pixels false)
// may be corrupt past it: when the run fails with anything but a 400, the
// sources are decoded the way Load would have, so that a corrupt picture
// is the caller's 400 (and refunded, were the edit paid) and any other
// failure ours.
func (s *Service) renderEdit(ctx context.Context, orgID string, req *edits.Request, in *editInputs) (engine.Result, error) {
	if req.Cutout {
		cut, err := s.Matte.Remove(ctx, in.Sources[0].Img, in.SourceFaces(0))
		if err != nil {
			return engine.Result{}, err
		}
		in.Cutout = cut
	}
	res, err := req.Render(ctx, s.Engine, &in.Inputs)
	if err == nil || req.Pixels || apierr.Is(err, apierr.InvalidRequest) {
		return res, err
	}
	for i, src := range req.Sources {
		if _, derr := s.EditImages.Decode(ctx, orgID, src.Field, in.srcs[i]); derr != nil {
			return engine.Result{}, derr
		}
	}
	return engine.Result{}, err
}

func pictureOf(img imageinput.Image) edits.Picture {
	return edits.Picture{Data: img.Data, Img: img.Img, Width: img.Width, Height: img.Height, Format: img.Format}
}

// savedFace is the address of the picture of the organization's saved
// face id: its first original picture, or its thumbnail, from the assets
// read model. Errors: a 404 naming faceId, a 503 when the assets service,
// asked about a face just created, does not answer, or a database
// failure.
func (s *Service) savedFace(ctx context.Context, orgID, id string) (string, error) {
	const field = "faceId"
	ref := assetview.Ref{Kind: assetview.Face, ID: id, Field: field}
	recs, err := s.records(ctx, orgID, []assetview.Ref{ref})
	if err != nil {
		return "", err
	}
	rec, ok := recs[ref]
	if !ok {
		return "", apierr.New(apierr.NotFound, "faceId: face not found").With("fields", map[string]string{field: "not found"})
	}
	var d events.FaceChanged
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return "", fmt.Errorf("face %s in the read model: %w", rec.ID, err)
	}
	if len(d.ImageURLs) > 0 {
		return d.ImageURLs[0], nil
	}
	return d.ThumbnailURL, nil
}
