// Package edits is the registry of the image edits served under POST
// /thumbnails/edit…: one type per operation, each knowing its endpoint
// name, its price, its body (a plain struct, decoded strictly by the
// HTTP edge) and the rules of its fields, what must be loaded for it and
// how it runs. The HTTP edge registers one route per entry of All and the
// service runs every entry through one path, so an edit is added as its
// type, its body and one line in All.
//
// A body's JSON names are the API's field names: the bodies are the wire
// schema of the edits, kept beside the rules that read them so that the
// two cannot drift (the OpenAPI document is checked against them).
//
// A run is handed everything it needs: the service loads the pictures,
// finds their faces and cuts a subject out before the run, as the
// Request asks, so the pixel work reads top-down. The pixel work is the
// family packages' (adjust, instruct, combine, faceswap, matte,
// backdrop); this package says which of them an edit calls, with what.
package edits

import (
	"context"
	"image"

	"hookline.dev/pkg/media/imagecheck"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Op is one edit operation.
type Op interface {
	// Name is the op's path under /thumbnails/edit ("edit" is that path
	// itself) and the operation its results record.
	Name() thumbnail.Op
	// Credits is what one run costs (the spec's credit table).
	Credits() int
	// Body is a new, empty body of the op for the transport to decode a
	// request into: a pointer to the op's body struct, whose fields
	// (strings and lists of strings, nil when not sent) are its schema.
	Body() Body
}

// Body is an op's request body.
type Body interface {
	// Parse validates the body: every field problem at once in one 400
	// naming the fields, then the prompt against the op's grammar (400
	// unsupported_prompt). provider says an image provider is configured;
	// the ops with a free-form prompt hand it what their grammar does not
	// cover.
	Parse(provider bool) (*Request, error)
}

// All lists the edits, in the order the API documents them.
func All() []Op {
	return []Op{
		Edit{priced{"edit", 1}},
		FaceSwap{priced{"face-swap", 1}},
		BackgroundRemove{priced{"background-remove", 0}},
		BackgroundReplace{priced{"background-replace", 1}},
		ColorEnhance{priced{"color-enhance", 0}},
		Upscale{priced{"upscale", 0}},
		Filter{priced{"filter", 0}},
		Combine{priced{"combine", 1}},
	}
}

// priced is what every op answers the same way, set in its line of All:
// its name and its price.
type priced struct {
	name    thumbnail.Op
	credits int
}

// Name implements Op.
func (p priced) Name() thumbnail.Op { return p.name }

// Credits implements Op.
func (p priced) Credits() int { return p.credits }

// Path is op's endpoint: its name under /thumbnails/edit, and that path
// itself for the op named "edit".
func Path(op Op) string {
	if op.Name() == "edit" {
		return "/thumbnails/edit"
	}
	return "/thumbnails/edit/" + string(op.Name())
}

// Operation names op in billing's usage history.
func Operation(op Op) string { return "thumbnails." + string(op.Name()) }

// Request is a validated edit: what its result records, what must be
// loaded for it, and the run that draws it.
type Request struct {
	// Sources are the pictures edited, with the fields that named them.
	Sources []Source
	// References are the pictures a provider edit is also shown
	// (referenceImageUrls); they are loaded, and so checked, in any case.
	References []string
	// Face is the face picture a swap puts in, nil for the other ops. The
	// service loads it into Inputs.Face, with its faces, before the run's
	// check; an address in the request is checked with the sources, so
	// that a bad one is refused before any work, and budgeted at its size.
	Face *FaceRef
	// Aspect is "" when the result keeps its source's shape.
	Aspect thumbnail.Aspect
	// Prompt is what the result records: the request's prompt, or a
	// description of the operation.
	Prompt string
	// Params are the parameters recorded with the result.
	Params map[string]string
	// Applied is what the run does, in the grammar's words, in order:
	// each operation a prompt named ("vintage", "film grain"), or the
	// operation and its parameters for an edit without a prompt. Read it
	// with AppliedBy.
	Applied []string
	// FaceIDs are the saved faces the result records.
	FaceIDs []string
	// Provider says the configured image provider draws the result: the
	// prompt is outside the op's grammar.
	Provider bool
	// Pixels says the sources are decoded in Go. Without it they are
	// checked up to their header only, and libvips decodes them as it
	// runs.
	Pixels bool
	// Faces says the faces of every source are detected before the run.
	Faces bool
	// Cutout says the run draws on the first source's subject cut out
	// (Inputs.Cutout), which the service makes as the run starts.
	Cutout bool
	// work is the run's working memory for sources of px pixels in all
	// (see Memory).
	work func(px int64) int64
	run  run
}

// FaceRef names the face picture of a swap: an address (Field
// faceImageUrl, URL set) or a saved face (Field faceId, SavedID set),
// whose address the service learns from the assets records.
type FaceRef struct {
	Source
	SavedID string
}

// Memory is what running r on sources of the given sizes holds at its
// peak beyond the decoded sources themselves: the copies, planes and
// encoded result of the run, in bytes a source pixel measured for each
// operation on pictures whose subject fills the frame (the costly case
// of the steps that follow the subject's outline) and rounded up, and a
// saved face's picture, whose address only the assets records give, at
// the largest decode accepted. The service acquires it, with the decodes
// of the sources, the references and a face picture named by address,
// from the process's image memory budget before decoding anything.
func (r *Request) Memory(sources []Picture) int64 {
	var px int64
	for _, s := range sources {
		px += int64(s.Width) * int64(s.Height)
	}
	need := r.work(px)
	if r.Face != nil && r.Face.SavedID != "" {
		need += imagecheck.MaxDecodeBytes
	}
	return need
}

// AppliedBy is what r, a request of op, applies: r.Applied, or op's
// name when the op has nothing to add to it (a face swap).
func (r *Request) AppliedBy(op Op) []string {
	if len(r.Applied) > 0 {
		return r.Applied
	}
	return []string{string(op.Name())}
}

// perPixel is the working memory of a run that holds n bytes a source
// pixel.
func perPixel(n int64) func(px int64) int64 {
	return func(px int64) int64 { return n * px }
}

// Source is an input picture and the request field that named it.
type Source struct {
	Field, URL string
}

// Inputs are a request's loaded pictures.
type Inputs struct {
	// Sources are the pictures of Request.Sources, in order.
	Sources []Picture
	// Faces are each source's faces when Request.Faces, else nil.
	Faces [][]vision.Face
	// References are the pictures of Request.References.
	References []Picture
	// Face is the picture of Request.Face and its faces, nil for none.
	Face *FacePicture
	// Cutout is the first source with its background transparent when
	// Request.Cutout, else nil.
	Cutout *image.NRGBA
}

// FacePicture is a loaded face picture and the faces found in it.
type FacePicture struct {
	Picture
	Faces []vision.Face
}

// SourceFaces returns source i's faces, nil when they were not detected.
func (in *Inputs) SourceFaces(i int) []vision.Face {
	if i < len(in.Faces) {
		return in.Faces[i]
	}
	return nil
}

// Picture is a loaded picture.
type Picture struct {
	// Data is the file.
	Data []byte
	// Img is the decoded picture; nil for a source checked only up to its
	// header (Request.Pixels false).
	Img image.Image
	// Width and Height are the picture's size as its header gives it.
	Width, Height int
	// Format is imagecheck.FormatJPEG or imagecheck.FormatPNG.
	Format string
}

// png says the picture is a PNG: the edits that keep their source's
// format answer one.
func (p Picture) png() bool { return p.Format == imagecheck.FormatPNG }

// Check checks what only the loaded pictures can tell (the size of an
// upscale, the faces of a swap). Errors: a 400 naming the field.
func (r *Request) Check(in *Inputs) error {
	if c, ok := r.run.(checker); ok {
		return c.check(in)
	}
	return nil
}

// Render draws the result from the pictures Check accepted; provider is
// the configured image provider, which a Provider request asks. Errors:
// a 400 for a picture the run cannot read, ctx's, or the provider's and
// the family packages' failures.
func (r *Request) Render(ctx context.Context, provider engine.Varier, in *Inputs) (engine.Result, error) {
	return r.run.render(ctx, provider, in)
}

// run is the part of a request that differs by operation.
type run interface {
	render(ctx context.Context, provider engine.Varier, in *Inputs) (engine.Result, error)
}

// checker is a run with checks of its own on the loaded pictures.
type checker interface {
	check(in *Inputs) error
}

// result is an encoded picture as an edit's result.
func result(p encode.Picture, err error) (engine.Result, error) {
	if err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Data: p.Data, ContentType: p.ContentType, Width: p.Width, Height: p.Height}, nil
}
