package edits

import (
	"context"

	"hookline.dev/pkg/imaging"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/thumbnails/internal/edits/backdrop"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

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
	p.req.work = perPixel(16)
	return p.done(removeRun{})
}

type removeRun struct{}

func (removeRun) render(ctx context.Context, env Env, in *Inputs) (encode.Picture, error) {
	cut, err := env.Cut(ctx, in.Sources[0].Img, in.faces(0))
	if err != nil {
		return encode.Picture{}, err
	}
	return encode.Encode(cut, true)
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
	p.req.work = perPixel(23)
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

func (r replaceRun) render(ctx context.Context, env Env, in *Inputs) (encode.Picture, error) {
	faces := in.faces(0)
	cut, err := env.Cut(ctx, in.Sources[0].Img, faces)
	if err != nil {
		return encode.Picture{}, err
	}
	img := backdrop.Replace(cut, r.background)
	if r.aspect != "" && ctx.Err() == nil {
		img = imaging.Crop(img, string(r.aspect), faces, vision.Saliency(img))
	}
	return encode.Encode(img, false)
}
