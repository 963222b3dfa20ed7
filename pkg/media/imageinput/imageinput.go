// Package imageinput is the shared verifier for image URLs that clients put
// in requests (face photos, style references, brand logos, thumbnail
// references). Every service that accepts an image URL loads it through a
// Source, so all of them accept and refuse exactly the same inputs
// (ARCHITECTURE §5):
//
//   - a URL under our public storage URL must name an object of the caller's
//     own organization (orgs/<orgId>/...); it is stat'ed first (missing, empty
//     or over 5 MB is refused before a byte is read), then read from storage
//     directly and checked for JPEG/PNG magic bytes and decodability;
//   - any other URL goes through the safe fetcher (http(s) only, no
//     loopback, private, link-local or metadata addresses, redirects
//     re-checked, size and time capped) and is then checked the same way.
//
// Decoding is budgeted from the headers before a pixel is decoded: one
// image may take at most imagecheck.MaxDecodeBytes and one request
// (LoadAll) MaxRequestDecodeBytes in total. A Source with a Budget
// acquires each decode's memory from it for the time of the decode (and
// the shrink), waiting its turn behind the other decodes of the process;
// one without leaves that to its caller, which budgets the whole work
// on the pictures from Check's headers before it calls Decode.
//
// A stored upload refused for its content (empty, too large, not an image,
// undecodable, too big to decode) is deleted: nothing can ever accept it,
// and under orgs/ it would stay publicly readable.
//
// Every refusal that is the URL's fault is an apierr.InvalidRequest whose
// details.fields name the request field and the URL, e.g.
// {"imageUrls[2]": "https://x/y.png: file is not a JPEG or PNG image"}.
// Failures of our own storage are returned as plain (internal) errors.
package imageinput

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net/url"
	"strings"
	"sync"

	"hookline.dev/pkg/media/imagecheck"
	"hookline.dev/pkg/media/membudget"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/platform/safefetch"
)

// loadConcurrency bounds the parallel fetches and decodes of LoadAll;
// the memory of the decodes is bounded by the Budget.
const loadConcurrency = 4

// MaxRequestDecodeBytes bounds the decoded size of all images of one
// LoadAll: four images at the per-image limit. It keeps one request from
// occupying the process's decode budget for long.
const MaxRequestDecodeBytes = 4 * imagecheck.MaxDecodeBytes

// Source loads and verifies images named by URL.
type Source struct {
	// Store is our bucket; URLs under its public URL are read from it.
	Store *s3store.Store
	// Fetcher fetches every other URL. Nil refuses external URLs.
	Fetcher *safefetch.Fetcher
	// MaxSide, when positive, bounds the longer side of Image.Img: larger
	// images are box-filtered down right after decoding (Data keeps the
	// original file). A request naming ten 40 MP images then holds ten
	// small bitmaps instead of gigabytes; callers that only measure or
	// detect (palettes, faces) lose nothing.
	MaxSide int
	// Budget, when set, is the process's image memory: each decode
	// acquires its bytes (imagecheck.Header.DecodeBytes) from it for the
	// time of the decode and the shrink, so a caller whose pictures are
	// shrunk at once holds only their small bitmaps afterwards. Nil leaves
	// the budgeting to the caller (see Check).
	Budget *membudget.Budget
}

// Image is a verified, decoded image.
type Image struct {
	// URL is the address the image was loaded from, as given.
	URL string
	// Data holds the file's bytes, at most imagecheck.MaxBytes.
	Data []byte
	// Img is the decoded image; nil for an image Check accepted.
	Img image.Image
	// Width and Height are the image's size as its header gives it (Img
	// may be shrunk, see Source.MaxSide).
	Width, Height int
	// Format is imagecheck.FormatJPEG or imagecheck.FormatPNG.
	Format string
	// DecodeBytes is the memory decoding the image takes, estimated from
	// its header (imagecheck.Header.DecodeBytes).
	DecodeBytes int64
	// Key is the object key when the URL names one of our objects, else "".
	Key string
}

// ContentType is the MIME type of the image's format.
func (i Image) ContentType() string { return imagecheck.ContentType(i.Format) }

// Ext is the file extension of the image's format, without a dot.
func (i Image) Ext() string {
	if i.Format == imagecheck.FormatPNG {
		return "png"
	}
	return "jpg"
}

// invalid is the 400 for one URL of one field.
func invalid(field, rawURL, reason string) error {
	return apierr.Invalid(field+": "+rawURL+": "+reason, map[string]string{field: rawURL + ": " + reason})
}

// fetched is an image read and accepted up to its headers.
type fetched struct {
	url, key string
	data     []byte
	header   imagecheck.Header
}

// Load fetches rawURL for the organization orgID and verifies it. field
// names the request field in errors (e.g. "imageUrls[2]").
func (s *Source) Load(ctx context.Context, orgID, field, rawURL string) (Image, error) {
	f, err := s.fetch(ctx, orgID, field, rawURL)
	if err != nil {
		return Image{}, err
	}
	return s.decode(ctx, orgID, field, f)
}

// fetch reads rawURL and checks it up to its headers.
func (s *Source) fetch(ctx context.Context, orgID, field, rawURL string) (fetched, error) {
	if reason := imagecheck.CheckURL(rawURL); reason != "" {
		return fetched{}, invalid(field, rawURL, reason)
	}
	if s.Store != nil {
		if key, ok := s.Store.KeyFromPublicURL(rawURL); ok {
			return s.fetchOwn(ctx, orgID, field, rawURL, key)
		}
		if s.looksOwn(rawURL) {
			// Under our storage address but not a plain object URL (query,
			// dot segments, ...): never hand it to the fetcher, which could
			// reach storage on the caller's behalf.
			return fetched{}, invalid(field, rawURL, "is not a valid address of an uploaded image")
		}
	}
	return s.fetchExternal(ctx, field, rawURL)
}

// looksOwn reports whether rawURL points at our storage's public base at
// all, whatever else is wrong with it.
func (s *Source) looksOwn(rawURL string) bool {
	base, err := url.Parse(strings.TrimSuffix(s.Store.PublicURL("x"), "x"))
	if err != nil {
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Host, base.Host) && strings.HasPrefix(u.EscapedPath(), strings.TrimSuffix(base.EscapedPath(), "/"))
}

func (s *Source) fetchOwn(ctx context.Context, orgID, field, rawURL, key string) (fetched, error) {
	// Objects of other organizations are reported exactly like missing
	// ones, so the answer reveals nothing about them.
	if orgID == "" || !strings.HasPrefix(key, s3store.OrgPrefix(orgID)) {
		return fetched{}, invalid(field, rawURL, "was not uploaded")
	}
	f := fetched{url: rawURL, key: key}
	info, err := s.Store.Stat(ctx, key)
	if errors.Is(err, s3store.ErrNotFound) {
		return fetched{}, invalid(field, rawURL, "was not uploaded")
	}
	if err != nil {
		return fetched{}, fmt.Errorf("imageinput: stat %s: %w", key, err)
	}
	// Size first, from the stat: an oversized object is refused without
	// downloading it.
	if info.Size <= 0 {
		return fetched{}, s.refuse(ctx, orgID, field, f, imagecheck.ErrEmpty)
	}
	if info.Size > imagecheck.MaxBytes {
		return fetched{}, s.refuse(ctx, orgID, field, f, imagecheck.ErrTooLarge)
	}
	rc, err := s.Store.Get(ctx, key)
	if errors.Is(err, s3store.ErrNotFound) {
		return fetched{}, invalid(field, rawURL, "was not uploaded")
	}
	if err != nil {
		return fetched{}, fmt.Errorf("imageinput: get %s: %w", key, err)
	}
	defer func() { _ = rc.Close() }()
	// The object may have been replaced since the stat (the upload URL
	// stays valid for minutes), so the cap applies to the read too.
	if f.data, err = io.ReadAll(io.LimitReader(rc, imagecheck.MaxBytes+1)); err != nil {
		return fetched{}, fmt.Errorf("imageinput: read %s: %w", key, err)
	}
	if f.header, err = imagecheck.ReadHeader(f.data); err != nil {
		return fetched{}, s.refuse(ctx, orgID, field, f, err)
	}
	return f, nil
}

func (s *Source) fetchExternal(ctx context.Context, field, rawURL string) (fetched, error) {
	if s.Fetcher == nil {
		return fetched{}, invalid(field, rawURL, "only uploaded images are accepted")
	}
	resp, err := s.Fetcher.Get(ctx, rawURL)
	if err != nil {
		if ctx.Err() != nil {
			return fetched{}, ctx.Err()
		}
		return fetched{}, invalid(field, rawURL, FetchReason(err))
	}
	f := fetched{url: rawURL, data: resp.Body}
	if f.header, err = imagecheck.ReadHeader(f.data); err != nil {
		return fetched{}, invalid(field, rawURL, checkReason(err))
	}
	return f, nil
}

// decode decodes an image fetch accepted, within the Budget if any.
func (s *Source) decode(ctx context.Context, orgID, field string, f fetched) (Image, error) {
	if s.Budget != nil {
		release, err := s.Budget.Acquire(ctx, f.header.DecodeBytes)
		if err != nil {
			return Image{}, MemoryError(field, f.header.DecodeBytes, s.Budget.Size(), err)
		}
		defer release()
	}
	img, err := imagecheck.Decode(f.data, f.header)
	if err != nil {
		return Image{}, s.refuse(ctx, orgID, field, f, err)
	}
	im := f.checked()
	im.Img = shrink(img, s.MaxSide)
	return im, nil
}

// checked is the Image of a fetch accepted up to its header.
func (f fetched) checked() Image {
	return Image{URL: f.url, Data: f.data, Format: f.header.Format, Key: f.key, Width: f.header.Width, Height: f.header.Height,
		DecodeBytes: f.header.DecodeBytes}
}

// Check is Load without decoding the pixels: the image is fetched and
// verified up to its header (format, byte size, dimensions and shape,
// decode memory) and Img is nil. It is for callers that budget the
// memory of their work from the headers before decoding (Decode), and
// for those whose own decoder reads the pixels (libvips): when that
// decoder fails, Decode tells a corrupt picture, refused as Load refuses
// it, from the caller's own fault.
func (s *Source) Check(ctx context.Context, orgID, field, rawURL string) (Image, error) {
	f, err := s.fetch(ctx, orgID, field, rawURL)
	if err != nil {
		return Image{}, err
	}
	return f.checked(), nil
}

// Decode decodes an image Check accepted, as Load would have: a picture
// whose pixels are corrupt is the same 400 (and a stored upload is
// removed).
func (s *Source) Decode(ctx context.Context, orgID, field string, img Image) (Image, error) {
	f := fetched{url: img.URL, key: img.Key, data: img.Data}
	var err error
	if f.header, err = imagecheck.ReadHeader(f.data); err != nil {
		return Image{}, s.refuse(ctx, orgID, field, f, err)
	}
	return s.decode(ctx, orgID, field, f)
}

// refuse is the 400 for an image whose content cannot be accepted. A
// stored upload is deleted first (see the package comment); failing to
// delete it is our fault and is returned as an internal error.
func (s *Source) refuse(ctx context.Context, orgID, field string, f fetched, cause error) error {
	if f.key != "" && strings.HasPrefix(f.key, s3store.UploadPrefix(orgID)) {
		if err := s.Store.Remove(context.WithoutCancel(ctx), f.key); err != nil {
			return fmt.Errorf("imageinput: remove refused upload %s: %w", f.key, err)
		}
	}
	return invalid(field, f.url, checkReason(cause))
}

// checkReason turns an imagecheck error into a short client-facing reason.
func checkReason(err error) string {
	for _, s := range []error{imagecheck.ErrEmpty, imagecheck.ErrTooLarge, imagecheck.ErrNotImage, imagecheck.ErrUndecodable} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if errors.Is(err, imagecheck.ErrDimensions) || errors.Is(err, imagecheck.ErrAspectRatio) || errors.Is(err, imagecheck.ErrDecodeMemory) {
		return err.Error()
	}
	return "image cannot be read"
}

// FetchReason turns a safefetch error into a client-facing reason that does
// not echo resolved addresses or internal details. Services that fetch
// other documents from user URLs (web pages, manifests) use it too, so
// refusals read alike everywhere.
func FetchReason(err error) string {
	switch {
	case errors.Is(err, safefetch.ErrScheme):
		return "must be an http or https URL"
	case errors.Is(err, safefetch.ErrInvalidURL):
		return "is not a valid URL"
	case errors.Is(err, safefetch.ErrForbiddenAddress):
		return "points to an address that may not be fetched (loopback, private, link-local or internal)"
	case errors.Is(err, safefetch.ErrTooManyRedirects):
		return "redirects too many times"
	case errors.Is(err, safefetch.ErrTooLarge):
		return imagecheck.ErrTooLarge.Error()
	case errors.Is(err, safefetch.ErrStatus):
		return "could not be fetched: the server answered with an error status"
	default:
		return "could not be fetched"
	}
}

// LoadAll loads urls concurrently, naming them field[i] in errors: it is
// CheckAll, then DecodeAll. The images are in the order of urls.
func (s *Source) LoadAll(ctx context.Context, orgID, field string, urls []string) ([]Image, error) {
	imgs, err := s.CheckAll(ctx, orgID, field, urls)
	if err != nil {
		return nil, err
	}
	return s.DecodeAll(ctx, orgID, field, imgs)
}

// CheckAll is Check of every URL, concurrently, naming them field[i] in
// errors. Every URL's fault is reported at once in one InvalidRequest; an
// internal failure is returned alone. Images that together would take
// more than MaxRequestDecodeBytes to decode are refused, naming field,
// from their headers. The images are in the order of urls.
func (s *Source) CheckAll(ctx context.Context, orgID, field string, urls []string) ([]Image, error) {
	imgs := make([]Image, len(urls))
	if err := forEach(len(urls), func(i int) (err error) {
		imgs[i], err = s.Check(ctx, orgID, name(field, i), urls[i])
		return err
	}); err != nil {
		return nil, err
	}
	var total int64
	for _, img := range imgs {
		total += img.DecodeBytes
	}
	if total > MaxRequestDecodeBytes {
		return nil, apierr.Field(field, fmt.Sprintf("the images together would need %d MB of memory to decode; at most %d MB per request",
			total/1_000_000, MaxRequestDecodeBytes/1_000_000))
	}
	return imgs, nil
}

// DecodeAll is Decode of every image CheckAll accepted, concurrently,
// with CheckAll's errors.
func (s *Source) DecodeAll(ctx context.Context, orgID, field string, imgs []Image) ([]Image, error) {
	out := make([]Image, len(imgs))
	if err := forEach(len(imgs), func(i int) (err error) {
		out[i], err = s.Decode(ctx, orgID, name(field, i), imgs[i])
		return err
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// name is the field of the i-th URL of the list field.
func name(field string, i int) string { return fmt.Sprintf("%s[%d]", field, i) }

// forEach runs fn for 0..n-1, loadConcurrency at a time. The fields of
// every InvalidRequest are merged into one; any other error is returned
// alone.
func forEach(n int, fn func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, loadConcurrency)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = fn(i)
		})
	}
	wg.Wait()
	fields := apierr.Fields{}
	for _, err := range errs {
		if err == nil {
			continue
		}
		var ae *apierr.Error
		if !errors.As(err, &ae) {
			return err
		}
		fs, ok := ae.Details["fields"].(map[string]string)
		if !ok {
			return err
		}
		for k, v := range fs {
			fields.Add(k, v)
		}
	}
	return fields.Err()
}
