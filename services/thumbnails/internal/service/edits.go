package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"

	"github.com/google/uuid"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/imageinput"
	"hookline.dev/pkg/imaging"
	"hookline.dev/pkg/principal"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/edits/adjust"
	"hookline.dev/services/thumbnails/internal/edits/backdrop"
	"hookline.dev/services/thumbnails/internal/edits/combine"
	"hookline.dev/services/thumbnails/internal/edits/faceswap"
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

// editInputs are an edit's loaded pictures.
type editInputs struct {
	srcs  []imageinput.Image
	faces [][]vision.Face // per source, detected when the edit uses them
	// face swap: the face picture and its largest face; the target face.
	face         imageinput.Image
	sFace, tFace vision.Face
	refs         []imageinput.Image
	parentID     string
}

// Edit runs one edit (ARCHITECTURE §7): validation, then the pictures are
// loaded and checked, all before any credit is reserved, so a bad request
// is a 400 that costs nothing even at a zero balance. Free edits are
// stored at once; paid ones run the credit saga, and a retry of the same
// request (Idempotency-Key) returns the picture it made.
func (s *Service) Edit(ctx context.Context, p principal.Principal, op thumbnail.Op, in thumbnail.EditInput) (Edited, error) {
	spec, err := thumbnail.ValidateEdit(op, in, s.Engine.Name() != localEngine)
	if err != nil {
		return Edited{}, err
	}
	var pd *paid
	if op.Credits() > 0 {
		pd = newPaid(p, op.Operation(), 1)
		if done, err := s.replay(ctx, pd); err != nil || len(done) > 0 {
			t, err := first(done, err)
			return Edited{Thumbnail: t, Credits: op.Credits()}, err
		}
	}
	inp, err := s.editInputs(ctx, p.OrgID, spec)
	if err != nil {
		return Edited{}, err
	}
	t := thumbnail.Thumbnail{Kind: thumbnail.Edit, Prompt: spec.Prompt, Aspect: spec.Aspect, Operation: op, Params: spec.Params,
		ParentID: inp.parentID, FaceIDs: []string{}, Engine: localEngine}
	if spec.FaceID != "" {
		t.FaceIDs = []string{spec.FaceID}
	}
	if spec.Provider {
		t.Engine = s.Engine.Name()
	}
	render := func(ctx context.Context) (engine.Result, error) { return s.renderEdit(ctx, p.OrgID, spec, inp) }
	if pd == nil {
		t.ID, t.OrgID = uuid.NewString(), p.OrgID
		t.Seed = seedOf(t.ID)
		res, err := render(ctx)
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

// editInputs loads what spec names and checks what only the pictures
// can tell: the faces of a face swap, the size of an upscale.
func (s *Service) editInputs(ctx context.Context, orgID string, spec thumbnail.EditSpec) (editInputs, error) {
	var in editInputs
	load := s.EditImages.Load
	if !usesPixels(spec) {
		load = s.EditImages.Check
	}
	for _, src := range spec.Sources {
		img, err := load(ctx, orgID, src.Field, src.URL)
		if err != nil {
			return in, err
		}
		in.srcs = append(in.srcs, img)
	}
	refs, err := s.EditImages.LoadAll(ctx, orgID, "referenceImageUrls", spec.References)
	if err != nil {
		return in, err
	}
	in.refs = refs
	if err := s.parentOf(ctx, orgID, &in); err != nil {
		return in, err
	}
	if usesFaces(spec) {
		for _, img := range in.srcs {
			in.faces = append(in.faces, s.Faces.Detect(img.Img))
		}
	}
	switch spec.Op {
	case thumbnail.OpUpscale:
		if err := adjust.CheckUpscale(in.srcs[0].Width, in.srcs[0].Height, spec.Scale); err != nil {
			return in, err
		}
	case thumbnail.OpFaceSwap:
		return in, s.swapFaces(ctx, orgID, spec, &in)
	}
	return in, nil
}

// usesPixels says whether an edit works on decoded pictures in Go.
// Color-enhance and upscale run on libvips from the file's bytes, so
// their source is only checked up to its header (a corrupt one is told
// apart after libvips fails, see libvipsEdit).
func usesPixels(spec thumbnail.EditSpec) bool {
	return spec.Op != thumbnail.OpColorEnhance && spec.Op != thumbnail.OpUpscale
}

// usesFaces says whether an edit places anything by the faces of its
// sources: of the filters, only the background blur does.
func usesFaces(spec thumbnail.EditSpec) bool {
	if spec.Op == thumbnail.OpFilter {
		return spec.Filter.Kind == adjust.FilterBlurBackground
	}
	return usesPixels(spec) && !spec.Provider
}

// parentOf sets the parent of the edit: the caller's thumbnail whose
// picture the (first) source is.
func (s *Service) parentOf(ctx context.Context, orgID string, in *editInputs) error {
	if in.srcs[0].Key == "" {
		return nil
	}
	t, err := s.Store.ThumbnailByImage(ctx, orgID, in.srcs[0].Key)
	switch {
	case errors.Is(err, thumbnail.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	in.parentID = t.ID
	return nil
}

// swapFaces loads the face to put in (a URL, or a saved face's original
// picture) and finds the largest face of both pictures: a picture without
// one is a 400 naming its field.
func (s *Service) swapFaces(ctx context.Context, orgID string, spec thumbnail.EditSpec, in *editInputs) error {
	field, url := "faceImageUrl", spec.FaceImageURL
	if spec.FaceID != "" {
		field = "faceId"
		ref := assetview.Ref{Kind: assetview.Face, ID: spec.FaceID, Field: field}
		recs, err := s.Store.Assets(ctx, orgID, []assetview.Ref{ref})
		if err != nil {
			return err
		}
		rec, ok := recs[ref]
		if !ok {
			return apierr.New(apierr.NotFound, "faceId: face not found").With("fields", map[string]string{field: "not found"})
		}
		var d events.FaceChanged
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return fmt.Errorf("face %s in the read model: %w", rec.ID, err)
		}
		url = d.ThumbnailURL
		if len(d.ImageURLs) > 0 {
			url = d.ImageURLs[0]
		}
	}
	img, err := s.EditImages.Load(ctx, orgID, field, url)
	if err != nil {
		return err
	}
	in.face = img
	var ok bool
	if in.tFace, ok = faceswap.Largest(in.faces[0]); !ok {
		return apierr.Field("imageUrl", "no face was found in the picture to put the face on")
	}
	if in.sFace, ok = faceswap.Largest(s.Faces.Detect(img.Img)); !ok {
		return apierr.Field(field, "no face was found in the face picture")
	}
	return nil
}

// renderEdit draws the edit of spec from its loaded inputs.
func (s *Service) renderEdit(ctx context.Context, orgID string, spec thumbnail.EditSpec, in editInputs) (engine.Result, error) {
	if spec.Provider {
		return s.providerEdit(ctx, spec, in)
	}
	src := in.srcs[0]
	var faces []vision.Face
	if len(in.faces) > 0 {
		faces = in.faces[0]
	}
	keepPNG := src.Format == "png"
	var img image.Image
	switch spec.Op {
	case thumbnail.OpColorEnhance:
		return s.libvipsEdit(ctx, orgID, spec.Sources[0].Field, src, func() (adjust.Output, error) {
			return adjust.ColorEnhance(src.Data, spec.Preset, spec.Intensity)
		})
	case thumbnail.OpUpscale:
		return s.libvipsEdit(ctx, orgID, spec.Sources[0].Field, src, func() (adjust.Output, error) { return adjust.Upscale(src.Data, spec.Scale) })
	case thumbnail.OpFilter:
		img = adjust.ApplyFilter(src.Img, spec.Filter, faces)
	case thumbnail.OpBackgroundRemove:
		cut, err := s.Matte.Remove(ctx, src.Img, faces)
		if err != nil {
			return engine.Result{}, err
		}
		return result(adjust.Encode(cut, true))
	case thumbnail.OpBackgroundReplace:
		cut, err := s.Matte.Remove(ctx, src.Img, faces)
		if err != nil {
			return engine.Result{}, err
		}
		img, keepPNG = backdrop.Replace(cut, spec.Background), false
	case thumbnail.OpFaceSwap:
		img = faceswap.Swap(src.Img, in.tFace, in.face.Img, in.sFace)
	case thumbnail.OpEdit:
		// The aspect crop is the program's last step, so that it follows
		// the faces through the program's own mirrors and crops.
		out, err := spec.Program.CroppedTo(string(spec.Aspect)).Apply(src.Img, faces, vision.Saliency(src.Img))
		if err != nil {
			return engine.Result{}, err
		}
		return result(adjust.Encode(out, keepPNG))
	case thumbnail.OpCombine:
		aspect := spec.Aspect
		if aspect == "" {
			aspect = engine.Landscape
		}
		c, err := combine.Combine(src.Img, in.srcs[1].Img, spec.Layout, string(aspect), faces, in.faces[1])
		if err != nil {
			return engine.Result{}, err
		}
		return result(adjust.Encode(c, false))
	default:
		return engine.Result{}, fmt.Errorf("edit: unknown operation %q", spec.Op)
	}
	if spec.Aspect != "" && ctx.Err() == nil {
		img = imaging.Crop(img, string(spec.Aspect), faces, vision.Saliency(img))
	}
	return result(adjust.Encode(img, keepPNG))
}

// libvipsEdit runs an edit on a source Check accepted. When libvips
// fails, the source is decoded the way Load would have: a corrupt picture
// is the caller's 400 (nothing is charged: these edits are free), any
// other failure is ours.
func (s *Service) libvipsEdit(ctx context.Context, orgID, field string, src imageinput.Image, run func() (adjust.Output, error)) (engine.Result, error) {
	out, err := run()
	if err == nil || apierr.Is(err, apierr.InvalidRequest) {
		return result(out, err)
	}
	if _, derr := s.EditImages.Decode(ctx, orgID, field, src); derr != nil {
		return engine.Result{}, derr
	}
	return engine.Result{}, err
}

// providerEdit asks the configured image provider for an edit the local
// grammar does not cover: the source as the parent of a variation steered
// by the prompt, with the second picture (combine) and the references as
// references.
func (s *Service) providerEdit(ctx context.Context, spec thumbnail.EditSpec, in editInputs) (engine.Result, error) {
	aspect := spec.Aspect
	if aspect == "" {
		aspect = engine.Landscape
	}
	req := engine.Request{Prompt: spec.Prompt, Tweak: spec.Prompt, Aspect: aspect,
		Parent: &engine.Picture{Data: in.srcs[0].Data, Img: in.srcs[0].Img}}
	req.References = pictures(append(in.srcs[1:], in.refs...))
	return s.Engine.Vary(ctx, req)
}

// result turns an encoded edit into an engine result.
func result(o adjust.Output, err error) (engine.Result, error) {
	if err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Data: o.Data, ContentType: o.ContentType, Width: o.Width, Height: o.Height}, nil
}
