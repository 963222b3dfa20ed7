// Package tesseract reads the words of a picture with the Tesseract OCR
// engine (libtesseract through its C API, English LSTM model). It is
// tuned for what thumbnails carry: a few big words over a photo. The
// engine is not shown the photo: a grey copy whose tones are stretched to
// the full range is split into light and dark ink by local contrast, only
// the ink shapes that line up like letters are kept, and each line of
// letters is read on its own, black on white and enlarged, in the
// "single line" page segmentation mode (ink.go). Photographic texture is
// what makes Tesseract both slow and wrong on thumbnails; without it a
// 640×360 picture reads in a fraction of the time.
//
// A Reader keeps a small pool of engine handles, each initialised once
// (loading the model is the expensive part), and lends one to each Read;
// it is safe for concurrent use.
package tesseract

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	xdraw "golang.org/x/image/draw"
)

// DefaultDir is where Debian's tesseract-ocr-eng installs the English
// model (eng.traineddata).
const DefaultDir = "/usr/share/tesseract-ocr/5/tessdata"

// lang is the model read with.
const lang = "eng"

// psmLine is Tesseract's page segmentation mode 7: the picture is one
// line of text. The engine is shown one line at a time (ink.go), so it
// need not look for lines, and skipping that layout analysis is cheaper.
const psmLine = 7

// ppi is the resolution the pictures are declared at: Tesseract sizes
// its noise filters from it, and thumbnails have none of their own.
const ppi = 72

// engineVars are set on every handle. The engine is shown black glyphs
// on white only (see ink.go), so it need not try each line inverted.
var engineVars = [][2]string{{"tessedit_do_invert", "0"}}

// Word is a word read: its text, its box in the picture's coordinates
// and the engine's confidence in it (0..100).
type Word struct {
	Text       string
	Box        image.Rectangle
	Confidence float64
}

// MinConfidence is the least confidence of a word Read returns: below
// it the engine is mostly naming texture (on the evaluation photos, the
// shapes it reads without any text there score under it).
const MinConfidence = 80

// ErrClosed is returned by Read after Close.
var ErrClosed = errors.New("tesseract: reader closed")

// Reader reads words. Its zero value is not usable: use New.
type Reader struct {
	dir  string
	free chan *handle
	// slots holds one token per handle that may still be opened; a Read
	// that finds no free handle takes a token and opens one.
	slots chan struct{}

	mu     sync.Mutex
	all    []*handle
	closed bool
}

// New is a reader of the English model in dir ("" for the library's
// default, which honours TESSDATA_PREFIX), with at most size handles (0
// or less: GOMAXPROCS, since a recognition keeps one core busy). The
// first handle is opened now, so a missing model is reported here; the
// others are opened when concurrent reads first need them.
func New(dir string, size int) (*Reader, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, lang+".traineddata")); err != nil {
			return nil, fmt.Errorf("tesseract: no English model in %s: %w", dir, err)
		}
	}
	if size <= 0 {
		size = runtime.GOMAXPROCS(0)
	}
	r := &Reader{dir: dir, free: make(chan *handle, size), slots: make(chan struct{}, size)}
	for range size - 1 {
		r.slots <- struct{}{}
	}
	h, err := open(dir, lang, psmLine, engineVars)
	if err != nil {
		return nil, err
	}
	r.all = append(r.all, h)
	r.free <- h
	return r, nil
}

// Read returns the words of img the engine is confident in (at least
// MinConfidence, holding a letter or digit), in the engine's reading
// order, with boxes in img's coordinates. Text 15 to 100 px tall reads
// best: callers shrink large pictures first (it is faster too).
// Errors: ctx's while waiting for a handle or between lines, ErrClosed, a model that
// fails to load for a new handle, or a recognition the engine reports
// as failed.
func (r *Reader) Read(ctx context.Context, img image.Image) ([]Word, error) {
	h, err := r.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { r.free <- h }()
	b := img.Bounds()
	var all []Word
	for _, page := range Ink(Normalise(img)) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		words, err := h.read(zoom(page, lineZoom), ppi)
		if err != nil {
			return nil, err
		}
		for _, w := range words {
			if w.Text == "|" && confident(words) {
				// A bar on a line of words is an I ("I TRIED"): the
				// engine, seeing it stand alone, names it a pipe.
				w.Text = "I"
			}
			if w.Box.Empty() || w.Confidence < MinConfidence || !legible(w.Text) {
				continue
			}
			w.Box = unzoom(w.Box, lineZoom).Add(page.Rect.Min).Add(b.Min)
			all = append(all, w)
		}
	}
	return dedupe(all), nil
}

// lineZoom is how many times a line's page is enlarged for the engine.
// At the working sizes headline capitals are 20–60 px tall; at the lower
// end the engine misses the narrow space of tight, heavy capitals
// ("APROBLEM"), and on the blurred mobile copy it drops words. Twice as
// large, it reads them (bench/RESULTS.md has the cost).
const lineZoom = 2

// zoom is page enlarged k times, with its origin at (0, 0).
func zoom(page *image.Gray, k int) *image.Gray {
	z := image.NewGray(image.Rect(0, 0, k*page.Rect.Dx(), k*page.Rect.Dy()))
	xdraw.BiLinear.Scale(z, z.Rect, page, page.Rect, xdraw.Src, nil)
	return z
}

// unzoom maps a box on a page enlarged k times back to the page (from
// its origin).
func unzoom(r image.Rectangle, k int) image.Rectangle {
	return image.Rect(r.Min.X/k, r.Min.Y/k, (r.Max.X+k-1)/k, (r.Max.Y+k-1)/k)
}

// confident reports whether words hold a word Read keeps.
func confident(words []Word) bool {
	return slices.ContainsFunc(words, func(w Word) bool { return w.Confidence >= MinConfidence && legible(w.Text) })
}

// dedupe drops a word whose box mostly lies on a more confident word's:
// the same letters seen in both polarities (a fill and its outline).
func dedupe(words []Word) []Word {
	var out []Word
	for i, w := range words {
		shadowed := false
		for j, o := range words {
			if i == j || o.Confidence < w.Confidence || (o.Confidence == w.Confidence && j > i) {
				continue
			}
			if in := w.Box.Intersect(o.Box); 2*area(in) > area(w.Box) {
				shadowed = true
				break
			}
		}
		if !shadowed {
			out = append(out, w)
		}
	}
	return out
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

func (r *Reader) acquire(ctx context.Context) (*handle, error) {
	select {
	case h := <-r.free:
		return r.check(h)
	default:
	}
	select {
	case h := <-r.free:
		return r.check(h)
	case <-r.slots:
		h, err := open(r.dir, lang, psmLine, engineVars)
		if err != nil {
			r.slots <- struct{}{}
			return nil, err
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			h.close()
			return nil, ErrClosed
		}
		r.all = append(r.all, h)
		return h, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// check returns h unless the reader is closed.
func (r *Reader) check(h *handle) (*handle, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.free <- h
		return nil, ErrClosed
	}
	return h, nil
}

// Close frees the handles. It waits for reads in progress to give theirs
// back; reads after it fail with ErrClosed.
func (r *Reader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	all := r.all
	r.mu.Unlock()
	for range all {
		(<-r.free).close()
	}
	return nil
}

// legible reports whether s holds a letter or a digit: the engine reads
// specks and edges as punctuation.
func legible(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
