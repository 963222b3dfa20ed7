package edits

import (
	"context"
	"image"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/backdrop"
	"hookline.dev/services/thumbnails/internal/edits/matte"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// cutWork is the cut-out's working memory (package matte, classical) in
// bytes a source pixel: its full-size copy, labels, alpha, unmixed result
// and region masks. It is the collector's live heap (GODEBUG=gctrace=1)
// during one background-remove of a 40 MP picture, a face filling the
// frame (27 bytes a pixel beyond its decode) and a zero-filled PNG (31),
// rounded up (issue 30; bench/RESULTS.md). The former 16 left a 40 MP
// removal holding half as much again as it acquired.
const cutWork = 32

// BackgroundRemove is POST /thumbnails/edit/background-remove: the
// subject cut out (package matte), a transparent PNG of the source's
// size. A picture from which no subject can be told apart is 400 naming
// imageUrl (see subjectOf), never the picture unchanged.
type BackgroundRemove struct{ priced }

// Body implements Op.
func (BackgroundRemove) Body() Body { return &BackgroundRemoveBody{} }

// BackgroundRemoveBody is the body of background-remove.
type BackgroundRemoveBody struct {
	ImageURL *string `json:"imageUrl"`
}

// Parse implements Body.
func (b *BackgroundRemoveBody) Parse(bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	p.req.Prompt = "background-remove: transparent background"
	p.req.Applied = []string{"background-remove"}
	p.req.Pixels, p.req.Faces, p.req.Cutout = true, true, true
	p.req.work = perPixel(cutWork)
	return p.done(removeRun{})
}

type removeRun struct{}

func (removeRun) render(_ context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	cut, err := subjectOf(in)
	if err != nil {
		return engine.Result{}, err
	}
	return result(encode.Encode(cut, true))
}

// subjectOf is the cut-out of the run's source, or, when the remover
// separated nothing (matte.Separated: it left the picture whole or took
// all of it), a 400 naming imageUrl. Like a face swap without a face, the
// request cannot be done on that picture; the run fails, so a paid edit's
// reservation is refunded and a free one stores nothing. A cut-out that
// separated something has transparent pixels, so its PNG has an alpha
// channel.
func subjectOf(in *Inputs) (*image.NRGBA, error) {
	if !matte.Separated(in.Cutout) {
		return nil, apierr.Field("imageUrl", "no subject could be told apart from the background; nothing was charged")
	}
	return in.Cutout, nil
}

// BackgroundReplace is POST /thumbnails/edit/background-replace: the
// subject cut out and put on a background drawn from backgroundPrompt
// (package backdrop), cropped to aspectRatio around the faces when given.
// A prompt outside the grammar goes to the image provider when one is
// configured. A picture without a subject to cut is background-remove's
// 400, refunded.
type BackgroundReplace struct{ priced }

// Body implements Op.
func (BackgroundReplace) Body() Body { return &BackgroundReplaceBody{} }

// BackgroundReplaceBody is the body of background-replace.
type BackgroundReplaceBody struct {
	ImageURL         *string `json:"imageUrl"`
	AspectRatio      *string `json:"aspectRatio"`
	BackgroundPrompt *string `json:"backgroundPrompt"`
}

// Parse implements Body.
func (b *BackgroundReplaceBody) Parse(provider bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	p.aspect(b.AspectRatio)
	p.prompt("backgroundPrompt", b.BackgroundPrompt)
	p.req.Pixels, p.req.Faces, p.req.Cutout = true, true, true
	p.req.work = perPixel(cutWork + 7) // the backdrop, the crop's saliency and the JPEG
	return p.orProvider(provider, func(prompt string) (run, []string, error) {
		bg, err := backdrop.Parse(prompt)
		applied := bg.Applied()
		if p.req.Aspect != "" {
			applied = append(applied, "crop to "+string(p.req.Aspect))
		}
		return replaceRun{background: bg, aspect: p.req.Aspect}, applied, err
	})
}

type replaceRun struct {
	background backdrop.Background
	aspect     thumbnail.Aspect
}

func (r replaceRun) render(ctx context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	cut, err := subjectOf(in)
	if err != nil {
		return engine.Result{}, err
	}
	img := backdrop.Replace(cut, r.background)
	if r.aspect != "" && ctx.Err() == nil {
		img = imaging.Crop(img, string(r.aspect), in.SourceFaces(0), vision.Saliency(img))
	}
	return result(encode.Encode(img, false))
}
