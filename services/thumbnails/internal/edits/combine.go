package edits

import (
	"context"

	"hookline.dev/services/thumbnails/internal/edits/combine"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Combine is POST /thumbnails/edit/combine: two pictures laid out by a
// prompt of the combine grammar (side by side, before and after, versus,
// picture-in-picture) on a 16:9 canvas, or 9:16 with aspectRatio. A
// prompt outside the grammar goes to the image provider when one is
// configured.
type Combine struct{ priced }

// Body implements Op.
func (Combine) Body() Body { return &CombineBody{} }

// CombineBody is the body of combine.
type CombineBody struct {
	ImageURL1   *string `json:"imageUrl1"`
	ImageURL2   *string `json:"imageUrl2"`
	AspectRatio *string `json:"aspectRatio"`
	Prompt      *string `json:"prompt"`
}

// Parse implements Body.
func (b *CombineBody) Parse(provider bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl1", b.ImageURL1)
	p.source("imageUrl2", b.ImageURL2)
	p.aspect(b.AspectRatio)
	p.prompt("prompt", b.Prompt)
	p.req.Pixels, p.req.Faces = true, true
	p.req.work = perPixel(8)
	return p.orProvider(provider, func(prompt string) (run, []string, error) {
		l, err := combine.Parse(prompt)
		return combineRun{layout: l, aspect: p.req.Aspect}, l.Applied(), err
	})
}

type combineRun struct {
	layout combine.Layout
	aspect thumbnail.Aspect
}

func (r combineRun) render(_ context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	aspect := r.aspect
	if aspect == "" {
		aspect = thumbnail.Landscape
	}
	c, err := combine.Combine(in.Sources[0].Img, in.Sources[1].Img, r.layout, string(aspect), in.SourceFaces(0), in.SourceFaces(1))
	if err != nil {
		return engine.Result{}, err
	}
	return result(encode.Encode(c, false))
}
