package edits

import (
	"context"
	"strings"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/faceswap"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// FaceSwap is POST /thumbnails/edit/face-swap: the largest face of
// imageUrl replaced by the face of faceImageUrl (an address) or faceId (a
// saved face), exactly one of the two.
type FaceSwap struct{ priced }

// Body implements Op.
func (FaceSwap) Body() Body { return &FaceSwapBody{} }

// FaceSwapBody is the body of face-swap.
type FaceSwapBody struct {
	ImageURL     *string `json:"imageUrl"`
	FaceImageURL *string `json:"faceImageUrl"`
	FaceID       *string `json:"faceId"`
}

// Parse implements Body.
func (b *FaceSwapBody) Parse(bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	imageURL, faceID := b.FaceImageURL, b.FaceID
	r := &swapRun{}
	switch {
	case imageURL != nil && faceID != nil:
		p.f.Add("faceImageUrl", "send exactly one of faceImageUrl and faceId, not both")
		p.f.Add("faceId", "send exactly one of faceImageUrl and faceId, not both")
	case imageURL == nil && faceID == nil:
		p.f.Add("faceImageUrl", "send exactly one of faceImageUrl and faceId")
		p.f.Add("faceId", "send exactly one of faceImageUrl and faceId")
	case imageURL != nil:
		url := strings.TrimSpace(*imageURL)
		if url == "" {
			p.f.Add("faceImageUrl", "must not be empty")
		}
		p.req.Params["faceImageUrl"] = url
		p.req.Face = &FaceRef{Source: Source{Field: "faceImageUrl", URL: url}}
		r.field = "faceImageUrl"
	default:
		id := thumbnail.EditID(p.f, "faceId", *faceID)
		p.req.Params["faceId"] = id
		p.req.FaceIDs = []string{id}
		p.req.Face = &FaceRef{Source: Source{Field: "faceId"}, SavedID: id}
		r.field = "faceId"
	}
	p.req.Prompt = "face-swap: the largest face replaced"
	p.req.Pixels, p.req.Faces = true, true
	p.req.work = perPixel(29)
	return p.done(r)
}

// swapRun is a face swap of the face picture named by field; check
// finds the faces to swap.
type swapRun struct {
	field          string
	target, source vision.Face
}

// check finds the largest face of the picture to edit and of the face
// picture: a picture without one (with its landmarks, which the
// service's dlib detector always places) is a 400 naming its field.
func (r *swapRun) check(in *Inputs) error {
	var ok bool
	if r.target, ok = faceswap.Largest(in.SourceFaces(0)); !ok {
		return apierr.Field("imageUrl", "no face was found in the picture to put the face on")
	}
	if r.source, ok = faceswap.Largest(in.Face.Faces); !ok {
		return apierr.Field(r.field, "no face was found in the face picture")
	}
	return nil
}

func (r *swapRun) render(ctx context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	src := in.Sources[0]
	out, err := faceswap.Swap(ctx, src.Img, r.target, in.Face.Img, r.source)
	if err != nil {
		return engine.Result{}, err
	}
	return result(encode.Encode(out, src.png()))
}
