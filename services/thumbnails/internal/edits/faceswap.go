package edits

import (
	"context"
	"strings"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/edits/faceswap"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// FaceSwap is POST /thumbnails/edit/face-swap: the largest face of
// imageUrl replaced by the face of faceImageUrl (an address) or faceId (a
// saved face), exactly one of the two.
type FaceSwap struct{ priced }

// Parse implements Op.
func (FaceSwap) Parse(b *Body, _ bool) (*Request, error) {
	p := newForm(b, "imageUrl")
	imageURL, faceID := b.String("faceImageUrl"), b.String("faceId")
	r := &swapRun{}
	switch {
	case imageURL != nil && faceID != nil:
		p.f.Add("faceImageUrl", "send exactly one of faceImageUrl and faceId, not both")
		p.f.Add("faceId", "send exactly one of faceImageUrl and faceId, not both")
	case imageURL == nil && faceID == nil:
		p.f.Add("faceImageUrl", "send exactly one of faceImageUrl and faceId")
		p.f.Add("faceId", "send exactly one of faceImageUrl and faceId")
	case imageURL != nil:
		if r.imageURL = strings.TrimSpace(*imageURL); r.imageURL == "" {
			p.f.Add("faceImageUrl", "must not be empty")
		}
		p.req.Params["faceImageUrl"] = r.imageURL
		p.req.Later = []Source{{Field: "faceImageUrl", URL: r.imageURL}}
	default:
		r.faceID = thumbnail.EditID(p.f, "faceId", *faceID)
		p.req.Params["faceId"] = r.faceID
		p.req.FaceIDs = []string{r.faceID}
		p.req.loads = 1
	}
	p.req.Prompt = "face-swap: the largest face replaced"
	p.req.Pixels, p.req.Faces = true, true
	p.req.work = perPixel(29)
	return p.done(r)
}

// swapRun is a face swap; check loads the face to put in and finds the
// faces to swap.
type swapRun struct {
	imageURL, faceID string
	face             Picture
	target, source   vision.Face
}

// check loads the face to put in (an address, or a saved face's picture)
// and finds the largest face of both pictures: a picture without one (with
// its landmarks, which the service's dlib detector always places) is a 400
// naming its field.
func (r *swapRun) check(ctx context.Context, env Env, in *Inputs) error {
	field, url := "faceImageUrl", r.imageURL
	if r.faceID != "" {
		field = "faceId"
		var err error
		if url, err = env.SavedFace(ctx, r.faceID); err != nil {
			return err
		}
	}
	var err error
	if r.face, err = env.Load(ctx, field, url); err != nil {
		return err
	}
	var ok bool
	if r.target, ok = faceswap.Largest(in.faces(0)); !ok {
		return apierr.Field("imageUrl", "no face was found in the picture to put the face on")
	}
	if r.source, ok = faceswap.Largest(env.Faces(r.face.Img)); !ok {
		return apierr.Field(field, "no face was found in the face picture")
	}
	return nil
}

func (r *swapRun) render(ctx context.Context, _ Env, in *Inputs) (encode.Picture, error) {
	src := in.Sources[0]
	out, err := faceswap.Swap(ctx, src.Img, r.target, r.face.Img, r.source)
	if err != nil {
		return encode.Picture{}, err
	}
	return encode.Encode(out, src.png())
}
