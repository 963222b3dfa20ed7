package service

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"sync/atomic"

	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/generate/engine"
)

// Memory (issue 21): the pictures a request works on dwarf everything
// else the process holds, so every request acquires from the process's
// image budget (Service.Memory) what its pictures and its work will hold,
// once, from the pictures' headers and before any credit is reserved:
//
//   - an edit and a critique acquire, before decoding anything, their
//     full-size pictures' decodes plus their operation's working memory
//     (edits.Request.Memory, critiquePerPixel);
//   - the pictures of a generation, a variation and a text overlay are
//     shrunk to 2048 px as they are decoded: each decode acquires its own
//     bytes for the time it takes (the Images source's budget), before the
//     request holds anything; the drawing then acquires its canvas
//     (composeMemory) and the shrunk pictures it keeps.
//
// A request never waits for memory while it holds some: two requests each
// holding half the budget and waiting for more would wait for each other
// until the budget's wait runs out. A request larger than the whole
// budget is a 400 naming its picture; one that waited the budget's wait
// in vain a 503 with Retry-After. Neither has reserved anything.

// composeMemory is what drawing one thumbnail holds beyond its input
// pictures: the 1280 px canvas and its text and face layers, and libvips'
// shrink-on-load of a background picture.
const composeMemory = 48 << 20

// critiquePerPixel is the critique's working memory in bytes a pixel of
// the picture, beyond its decode: the measurements' luma and saliency
// planes at full size.
const critiquePerPixel = 5

// hold acquires n bytes of the image memory for a request's work on the
// picture(s) of field and returns what gives them back (and, for large
// work, starts a collection). Errors: a 400 naming field (n is more than
// the whole budget), a 503 unavailable with details.retryAfter (the
// budget stayed full), or ctx's.
func (s *Service) hold(ctx context.Context, field string, n int64) (release func(), err error) {
	if s.Memory == nil {
		return func() {}, nil
	}
	r, err := s.Memory.Acquire(ctx, n)
	if err != nil {
		return nil, imageinput.MemoryError(field, n, s.Memory.Size(), err)
	}
	return func() {
		r()
		if n >= collectAfter {
			collect()
		}
	}, nil
}

// collectAfter is the work whose garbage is collected as soon as it is
// given back. The request that waited for that memory allocates its own
// at once; left to itself the collector would start only when the heap
// holds both, and the process would peak at the budget plus a whole
// request's garbage.
const collectAfter = 64 << 20

// collecting says a collection started by collect is running.
var collecting atomic.Bool

// collect starts a collection unless one it started is still running.
func collect() {
	if collecting.CompareAndSwap(false, true) {
		go func() {
			defer collecting.Store(false)
			runtime.GC()
		}()
	}
}

// holdDrawing acquires the memory of drawing pd's jobs, parallel at a
// time, over the pictures already loaded for them (kept is the shrunk
// pictures' memory; field names them in a 400).
func (s *Service) holdDrawing(ctx context.Context, pd *paid, field string) (release func(), err error) {
	seen := map[image.Image]bool{}
	var kept int64
	for _, j := range pd.jobs {
		for _, p := range requestPictures(j.req) {
			if p.Img != nil && !seen[p.Img] {
				seen[p.Img] = true
				kept += bitmapBytes(p.Img)
			}
		}
	}
	return s.hold(ctx, field, kept+composeMemory*int64(min(len(pd.jobs), itemConcurrency)))
}

// requestPictures lists the pictures an engine request carries.
func requestPictures(r engine.Request) []engine.Picture {
	ps := append([]engine.Picture{}, r.References...)
	for _, f := range r.Faces {
		ps = append(ps, f.Crop)
	}
	if r.Parent != nil {
		ps = append(ps, *r.Parent)
	}
	if r.Brand != nil && r.Brand.Logo != nil {
		ps = append(ps, *r.Brand.Logo)
	}
	return ps
}

// bitmapBytes bounds the memory of a decoded picture's pixels: 8 bytes a
// pixel for 16-bit samples, 4 for any other (YCbCr, grey and paletted
// pictures take less).
func bitmapBytes(img image.Image) int64 {
	b := img.Bounds()
	px := int64(b.Dx()) * int64(b.Dy())
	switch img.(type) {
	case *image.RGBA64, *image.NRGBA64, *image.Gray16:
		return 8 * px
	}
	return 4 * px
}

// largest is the index of the largest of imgs by decode.
func largest(imgs []imageinput.Image) int {
	i := 0
	for j, img := range imgs {
		if img.DecodeBytes > imgs[i].DecodeBytes {
			i = j
		}
	}
	return i
}

// decodes is the memory of decoding imgs.
func decodes(imgs []imageinput.Image) int64 {
	var n int64
	for _, img := range imgs {
		n += img.DecodeBytes
	}
	return n
}

// within runs render under the work deadline: past it the engines stop
// at their next check of ctx, and the failure is the 503 of work that
// took too long (refunded by the caller like any failed drawing).
func (s *Service) within(ctx context.Context, render func(context.Context) (engine.Result, error)) (engine.Result, error) {
	if s.WorkTimeout <= 0 {
		return render(ctx)
	}
	wctx, cancel := context.WithTimeout(ctx, s.WorkTimeout)
	defer cancel()
	res, err := render(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
		err = apierr.Wrap(apierr.Unavailable, fmt.Sprintf("drawing the picture took longer than the %s this service allows and was stopped; nothing was charged",
			s.WorkTimeout), err)
	}
	return res, err
}
