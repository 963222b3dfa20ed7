package edits

import (
	"context"

	"hookline.dev/pkg/imaging"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/edits/adjust"
	"hookline.dev/services/thumbnails/internal/edits/backdrop"
	"hookline.dev/services/thumbnails/internal/generate/engine"
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
// size.
type BackgroundRemove struct{ priced }

// Parse implements Op.
func (BackgroundRemove) Parse(b *Body, _ bool) (*Request, error) {
	p := newForm(b, "imageUrl")
	p.req.Prompt = "background-remove: transparent background"
	p.req.Applied = []string{"background-remove"}
	p.req.Pixels, p.req.Faces = true, true
	p.req.work = perPixel(cutWork)
	return p.done(removeRun{})
}

type removeRun struct{}

func (removeRun) render(ctx context.Context, env Env, in *Inputs) (engine.Result, error) {
	cut, err := env.Cut(ctx, in.Sources[0].Img, in.faces(0))
	if err != nil {
		return engine.Result{}, err
	}
	return result(adjust.Encode(cut, true))
}

// BackgroundReplace is POST /thumbnails/edit/background-replace: the
// subject cut out and put on a background drawn from backgroundPrompt
// (package backdrop), cropped to aspectRatio around the faces when given.
// A prompt outside the grammar goes to the image provider when one is
// configured.
type BackgroundReplace struct{ priced }

// Parse implements Op.
func (BackgroundReplace) Parse(b *Body, provider bool) (*Request, error) {
	p := newForm(b, "imageUrl")
	p.aspect()
	p.prompt("backgroundPrompt")
	p.req.Pixels, p.req.Faces = true, true
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
	aspect     engine.Aspect
}

func (r replaceRun) render(ctx context.Context, env Env, in *Inputs) (engine.Result, error) {
	faces := in.faces(0)
	cut, err := env.Cut(ctx, in.Sources[0].Img, faces)
	if err != nil {
		return engine.Result{}, err
	}
	img := backdrop.Replace(cut, r.background)
	if r.aspect != "" && ctx.Err() == nil {
		img = imaging.Crop(img, string(r.aspect), faces, vision.Saliency(img))
	}
	return result(adjust.Encode(img, false))
}
