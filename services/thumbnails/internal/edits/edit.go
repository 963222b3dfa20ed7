package edits

import (
	"context"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/edits/instruct"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Edit is POST /thumbnails/edit: a prompt in the instruct grammar
// (brighter, mirror, add text…), the result cropped to aspectRatio when
// given. A prompt outside the grammar goes to the image provider when one
// is configured, with referenceImageUrls.
type Edit struct{ priced }

// Body implements Op.
func (Edit) Body() Body { return &EditBody{} }

// EditBody is the body of edit.
type EditBody struct {
	ImageURL           *string  `json:"imageUrl"`
	AspectRatio        *string  `json:"aspectRatio"`
	Prompt             *string  `json:"prompt"`
	ReferenceImageURLs []string `json:"referenceImageUrls"`
}

// Parse implements Body.
func (b *EditBody) Parse(provider bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	p.aspect(b.AspectRatio)
	p.prompt("prompt", b.Prompt)
	p.req.References = thumbnail.EditReferences(p.f, b.ReferenceImageURLs)
	p.req.Pixels, p.req.Faces = true, true
	p.req.work = perPixel(16)
	return p.orProvider(provider, func(prompt string) (run, []string, error) {
		prog, err := instruct.Parse(prompt)
		return editRun{program: prog, aspect: p.req.Aspect}, prog.CroppedTo(string(p.req.Aspect)).Applied(), err
	})
}

type editRun struct {
	program instruct.Program
	aspect  thumbnail.Aspect
}

func (r editRun) render(_ context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	src := in.Sources[0]
	// The aspect crop is the program's last step, so that it follows the
	// faces through the program's own mirrors and crops.
	out, err := r.program.CroppedTo(string(r.aspect)).Apply(src.Img, in.SourceFaces(0), vision.Saliency(src.Img))
	if err != nil {
		return engine.Result{}, err
	}
	return result(encode.Encode(out, src.png()))
}
