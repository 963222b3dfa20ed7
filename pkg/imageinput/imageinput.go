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

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/imagecheck"
	"hookline.dev/pkg/s3store"
	"hookline.dev/pkg/safefetch"
)

// MaxURLLength bounds an image URL accepted from a request.
const MaxURLLength = 2048

// loadConcurrency bounds the parallel loads of LoadAll: each holds up to
// 5 MB plus its decoded pixels.
const loadConcurrency = 4

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
}

// Image is a verified, decoded image.
type Image struct {
	// URL is the address the image was loaded from, as given.
	URL string
	// Data holds the file's bytes, at most imagecheck.MaxBytes.
	Data []byte
	// Img is the decoded image.
	Img image.Image
	// Format is imagecheck.FormatJPEG or imagecheck.FormatPNG.
	Format string
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

// Load fetches rawURL for the organization orgID and verifies it. field
// names the request field in errors (e.g. "imageUrls[2]").
func (s *Source) Load(ctx context.Context, orgID, field, rawURL string) (Image, error) {
	if reason := CheckURL(rawURL); reason != "" {
		return Image{}, invalid(field, rawURL, reason)
	}
	if s.Store != nil {
		if key, ok := s.Store.KeyFromPublicURL(rawURL); ok {
			return s.loadOwn(ctx, orgID, field, rawURL, key)
		}
		if s.looksOwn(rawURL) {
			// Under our storage address but not a plain object URL (query,
			// dot segments, ...): never hand it to the fetcher, which could
			// reach storage on the caller's behalf.
			return Image{}, invalid(field, rawURL, "is not a valid address of an uploaded image")
		}
	}
	return s.loadExternal(ctx, field, rawURL)
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

func (s *Source) loadOwn(ctx context.Context, orgID, field, rawURL, key string) (Image, error) {
	// Objects of other organizations are reported exactly like missing
	// ones, so the answer reveals nothing about them.
	if orgID == "" || !strings.HasPrefix(key, s3store.OrgPrefix(orgID)) {
		return Image{}, invalid(field, rawURL, "was not uploaded")
	}
	info, err := s.Store.Stat(ctx, key)
	if errors.Is(err, s3store.ErrNotFound) {
		return Image{}, invalid(field, rawURL, "was not uploaded")
	}
	if err != nil {
		return Image{}, fmt.Errorf("imageinput: stat %s: %w", key, err)
	}
	// Size first, from the stat: an oversized object is refused without
	// downloading it.
	if info.Size <= 0 {
		return Image{}, invalid(field, rawURL, imagecheck.ErrEmpty.Error())
	}
	if info.Size > imagecheck.MaxBytes {
		return Image{}, invalid(field, rawURL, imagecheck.ErrTooLarge.Error())
	}
	rc, err := s.Store.Get(ctx, key)
	if errors.Is(err, s3store.ErrNotFound) {
		return Image{}, invalid(field, rawURL, "was not uploaded")
	}
	if err != nil {
		return Image{}, fmt.Errorf("imageinput: get %s: %w", key, err)
	}
	defer func() { _ = rc.Close() }()
	// The object may have been replaced since the stat (the upload URL
	// stays valid for minutes), so the cap applies to the read too.
	data, err := io.ReadAll(io.LimitReader(rc, imagecheck.MaxBytes+1))
	if err != nil {
		return Image{}, fmt.Errorf("imageinput: read %s: %w", key, err)
	}
	img, err := s.verify(ctx, field, rawURL, data)
	if err != nil {
		return Image{}, err
	}
	img.Key = key
	return img, nil
}

func (s *Source) loadExternal(ctx context.Context, field, rawURL string) (Image, error) {
	if s.Fetcher == nil {
		return Image{}, invalid(field, rawURL, "only uploaded images are accepted")
	}
	resp, err := s.Fetcher.Get(ctx, rawURL)
	if err != nil {
		if ctx.Err() != nil {
			return Image{}, ctx.Err()
		}
		return Image{}, invalid(field, rawURL, FetchReason(err))
	}
	return s.verify(ctx, field, rawURL, resp.Body)
}

func (s *Source) verify(ctx context.Context, field, rawURL string, data []byte) (Image, error) {
	release, err := acquireDecode(ctx)
	if err != nil {
		return Image{}, err
	}
	defer release()
	img, format, err := imagecheck.Verify(data)
	if err != nil {
		return Image{}, invalid(field, rawURL, checkReason(err))
	}
	return Image{URL: rawURL, Data: data, Img: shrink(img, s.MaxSide), Format: format}, nil
}

// checkReason turns an imagecheck error into a short client-facing reason.
func checkReason(err error) string {
	for _, s := range []error{imagecheck.ErrEmpty, imagecheck.ErrTooLarge, imagecheck.ErrNotImage, imagecheck.ErrUndecodable} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if errors.Is(err, imagecheck.ErrDimensions) {
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

// CheckURL returns why s is not an acceptable image URL, or "" when it is:
// an absolute http(s) URL with a host, at most MaxURLLength characters. It
// needs no network and suits request validation.
func CheckURL(s string) string {
	if s == "" {
		return "is required"
	}
	if len(s) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "must be an absolute http or https URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "must be an http or https URL"
	}
	return ""
}

// LoadAll loads urls concurrently, naming them field[i] in errors. Every
// URL's fault is reported at once in one InvalidRequest; an internal
// failure is returned alone. The images are in the order of urls.
func (s *Source) LoadAll(ctx context.Context, orgID, field string, urls []string) ([]Image, error) {
	imgs := make([]Image, len(urls))
	errs := make([]error, len(urls))
	sem := make(chan struct{}, loadConcurrency)
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			imgs[i], errs[i] = s.Load(ctx, orgID, fmt.Sprintf("%s[%d]", field, i), u)
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
			return nil, err
		}
		if fs, ok := ae.Details["fields"].(map[string]string); ok {
			for k, v := range fs {
				fields.Add(k, v)
			}
		}
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	return imgs, nil
}
