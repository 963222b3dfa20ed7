// Package providerfake holds local HTTP fakes of the hosted image
// providers, for tests of the adapters and of the service running with a
// provider engine. Each fake follows its provider's documented wire format
// strictly: a wrong path, a missing or wrong key, an unknown field, a bad
// value or an undecodable input image is answered with the provider's own
// error status and body, as the real API would, so an adapter that
// drifts from the format fails its tests. A valid call is answered with a
// real picture (distinct for every call) unless a test queued another
// answer with FailNext or StallNext. Every call is recorded for Calls.
package providerfake

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"hookline.dev/pkg/ai/vendorapi/contract"

	_ "golang.org/x/image/webp" // providers take WebP inputs; the fakes must decode it
)

// base is the part both fakes share: the server, the key it expects, the
// vendor contract every answer is checked against, the models retired,
// the queue of scripted answers and the record of calls.
type base[C any] struct {
	t        testing.TB
	srv      *httptest.Server
	key      string
	contract *contract.Contract
	quit     chan struct{}
	mu       sync.Mutex
	retired  map[string]bool
	queue    []scripted
	calls    []C
	draw     func(w, h int, prompt string) image.Image
}

// scripted is an answer a test queued in place of a picture.
type scripted struct {
	stall  bool
	broken bool // outside the vendor's contract on purpose
	status int
	header http.Header
	body   string
}

func (b *base[C]) start(t testing.TB, keyPrefix string, c *contract.Contract, h http.HandlerFunc) {
	t.Helper()
	b.t, b.contract, b.retired = t, c, map[string]bool{}
	var k [12]byte
	_, _ = rand.Read(k[:])
	b.key = keyPrefix + hex.EncodeToString(k[:])
	b.quit = make(chan struct{})
	b.srv = httptest.NewServer(h)
	// Cleanups run last first: release stalled handlers, then close, which
	// waits for them.
	t.Cleanup(b.srv.Close)
	t.Cleanup(func() { close(b.quit) })
}

// URL is the fake's origin, the adapter's base URL.
func (b *base[C]) URL() string { return b.srv.URL }

// Key is the only API key the fake accepts.
func (b *base[C]) Key() string { return b.key }

// FailNext makes the next valid call answer status and body (an error
// body, a refusal, or any answer a test needs) instead of a picture.
// Calls are queued: two FailNext calls script the next two answers.
func (b *base[C]) FailNext(status int, body string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, scripted{status: status, body: body})
}

// FailNextWith is FailNext with response headers (Retry-After).
func (b *base[C]) FailNextWith(status int, header http.Header, body string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, scripted{status: status, header: header, body: body})
}

// BreakNext makes the next valid call answer status and body, which
// break the vendor's contract on purpose: for tests of an adapter's
// defences against an answer the vendor should never give.
func (b *base[C]) BreakNext(status int, body string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, scripted{status: status, body: body, broken: true})
}

// StallNext makes the next valid call hang without answering until the
// client gives up (its timeout) or the test ends.
func (b *base[C]) StallNext() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, scripted{stall: true})
}

// Retire makes the vendor forget model, as on the day it shuts a model
// down: lookups and calls naming it answer the vendor's "not found".
func (b *base[C]) Retire(model string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.retired[model] = true
}

// Restore undoes Retire.
func (b *base[C]) Restore(model string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.retired, model)
}

func (b *base[C]) isRetired(model string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.retired[model]
}

// Draw replaces the fake's picture (a seeded gradient) with what draw
// makes of the canvas size and the prompt, for tests that look at where
// a model put things.
func (b *base[C]) Draw(draw func(w, h int, prompt string) image.Image) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw = draw
}

// picture is the answer's picture: the test's drawing, or the seeded
// gradient.
func (b *base[C]) picture(w, h int, seed, prompt string) image.Image {
	b.mu.Lock()
	draw := b.draw
	b.mu.Unlock()
	if draw != nil {
		return draw(w, h, prompt)
	}
	return picture(w, h, seed)
}

// reply writes an answer of operation op after checking it against the
// vendor's contract: a fake that answers what the vendor never would
// fails the test.
func (b *base[C]) reply(w http.ResponseWriter, op string, status int, body []byte) {
	if problems := b.contract.CheckResponse(op, status, body); len(problems) > 0 {
		b.t.Errorf("providerfake: the %s answer (%d) breaks the %s contract: %s", op, status, b.contract.Vendor, strings.Join(problems, "; "))
	}
	writeBody(w, status, body)
}

// Calls returns every call received so far, in order.
func (b *base[C]) Calls() []C {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]C(nil), b.calls...)
}

// record stores a call and returns its number, from 1.
func (b *base[C]) record(c C) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, c)
	return len(b.calls)
}

// answer plays the next scripted answer, if any, and reports whether it
// did. The status it reports is 0 for a stall.
func (b *base[C]) answer(w http.ResponseWriter, r *http.Request, op string) (status int, played bool) {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.mu.Unlock()
		return 0, false
	}
	s := b.queue[0]
	b.queue = b.queue[1:]
	b.mu.Unlock()
	if s.stall {
		// The server notices the client leaving only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-b.quit:
		}
		return 0, true
	}
	for k, v := range s.header {
		w.Header()[k] = v
	}
	if s.broken || !json.Valid([]byte(s.body)) {
		// What a proxy in front of the vendor may answer (an HTML 503, a
		// cut-off body): outside the vendor's contract by nature.
		writeBody(w, s.status, []byte(s.body))
		return s.status, true
	}
	b.reply(w, op, s.status, []byte(s.body))
	return s.status, true
}

// Outcome is how a fake answered a call.
type Outcome struct {
	// Status is what the fake answered (0 for a stall).
	Status int
	// Problem is why the fake refused the request itself, as the real API
	// would; empty when the request was valid.
	Problem string
}

// Upload is an input image the fake received and decoded.
type Upload struct {
	ContentType   string // as declared by the request
	Format        string // as decoded: jpeg, png or webp
	Width, Height int
}

// decodeUpload checks an input image the way the providers do: its
// declared type is an image type they take and its data decodes as that
// type. The reason is empty when it is fine.
func decodeUpload(contentType string, data []byte) (Upload, string) {
	u := Upload{ContentType: contentType}
	want, ok := map[string]string{"image/png": "png", "image/jpeg": "jpeg", "image/webp": "webp"}[contentType]
	if !ok {
		return u, "unsupported mimetype ('" + contentType + "'); supported: image/jpeg, image/png, image/webp"
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return u, "the image data could not be decoded: " + err.Error()
	}
	if format != want {
		return u, "the image data is " + format + ", declared " + contentType
	}
	u.Format, u.Width, u.Height = format, img.Bounds().Dx(), img.Bounds().Dy()
	return u, ""
}

// picture draws a w×h picture that differs for every seed: a diagonal
// gradient between two seed-chosen colours with a band across it.
func picture(w, h int, seed string) image.Image {
	f := fnv.New64a()
	_, _ = f.Write([]byte(seed))
	s := f.Sum(nil)
	c0 := color.RGBA{s[0], s[1], s[2], 255}
	c1 := color.RGBA{s[3], s[4], s[5], 255}
	band := (int(s[6])<<8|int(s[7]))%max(1, h/2) + h/4
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		row := img.Pix[y*img.Stride:]
		inBand := y > band && y < band+h/8
		for x := range w {
			t := (x + y) * 255 / (w + h)
			for i, pair := range [3][2]uint8{{c0.R, c1.R}, {c0.G, c1.G}, {c0.B, c1.B}} {
				v := uint8((int(pair[0])*(255-t) + int(pair[1])*t) / 255) //nolint:gosec // G115: a weighted mean of two 8-bit values, t in 0..255
				if inBand {
					v = 255 - v
				}
				row[4*x+i] = v
			}
			row[4*x+3] = 255
		}
	}
	return img
}

// encode writes img as png or jpeg.
func encode(img image.Image, format string) []byte {
	var buf bytes.Buffer
	if format == "jpeg" {
		_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	} else {
		_ = png.Encode(&buf, img)
	}
	return buf.Bytes()
}

// replyJSON is reply of v's JSON.
func (b *base[C]) replyJSON(w http.ResponseWriter, op string, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	b.reply(w, op, status, body)
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// unknownField extracts the field name from encoding/json's
// DisallowUnknownFields error, or "" for any other error.
func unknownField(err error) string {
	const prefix = `json: unknown field "`
	s := err.Error()
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix) : len(s)-1]
	}
	return ""
}

// PNG is a w×h PNG picture that differs for every seed, for tests that
// need real input images.
func PNG(w, h int, seed string) []byte { return encode(picture(w, h, seed), "png") }

// JPEG is PNG's JPEG twin.
func JPEG(w, h int, seed string) []byte { return encode(picture(w, h, seed), "jpeg") }
