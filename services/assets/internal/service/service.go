// Package service runs the assets use cases: it validates requests with the
// domain packages, loads and verifies images through the shared
// imageinput verifier, runs the image algorithms (face detection, style
// analysis, brand import), writes objects to the bucket and records to
// Postgres with their outbox events.
//
// Objects are written before the record that names them and removed again
// when the record cannot be written, so a failed request leaves nothing
// behind; objects a committed change replaced are removed after the
// commit. A crash between the two leaves at most unreferenced objects,
// never a record pointing at a missing one.
//
// The service owns the interfaces of what it uses (Store, Blobs, Images,
// Fetcher, Detector); the adapters are internal/postgres, pkg/platform/s3store,
// pkg/media/imageinput, pkg/platform/safefetch and pkg/media/vision/dlib, wired by internal/app.
package service

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"image"
	"io"
	"log/slog"
	"sync"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/clock"
	"hookline.dev/pkg/platform/safefetch"
)

// Source names the service in event envelopes.
const Source = "assets"

// Store is the assets database (*postgres.Store), one part per record
// kind. Every write commits together with the outbox events its Events
// builds.
type Store interface {
	FaceStore
	StyleStore
	BrandStore
	CollectionStore
}

// Events builds the outbox events of a change from the record as the store
// writes it: after the change, or as it was when deleted.
type Events[T any] func(rec T) ([]events.Envelope, error)

// Blobs is the bucket (*s3store.Store). Errors are storage failures.
type Blobs interface {
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Remove deletes key; a missing key is not an error.
	Remove(ctx context.Context, key string) error
	// PresignPut returns a URL that accepts one PUT of key until ttl
	// passes, of exactly contentType and size bytes.
	PresignPut(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (string, error)
	// PublicURL is the address that serves key, "" for "".
	PublicURL(key string) string
}

// Images loads and verifies the pictures a request names by URL
// (*imageinput.Source): the organization's own objects, or external URLs
// through the safe fetcher.
type Images interface {
	// Load errors: an apierr.InvalidRequest naming field, or an internal
	// failure.
	Load(ctx context.Context, orgID, field, rawURL string) (imageinput.Image, error)
	// LoadAll loads urls, in their order. Errors: one
	// apierr.InvalidRequest naming every bad URL as field[i], or an
	// internal failure.
	LoadAll(ctx context.Context, orgID, field string, urls []string) ([]imageinput.Image, error)
}

// Fetcher reads the web pages a brand import names (*safefetch.Fetcher).
type Fetcher interface {
	// Get fetches rawURL. Errors wrap safefetch.ErrForbiddenAddress,
	// ErrInvalidURL or another safefetch error when the address is at
	// fault, or carry the network error.
	Get(ctx context.Context, rawURL string) (*safefetch.Response, error)
}

// Detector finds faces (*dlib.Model): the faces in img, most confident
// first, with their landmarks where it can place them; none when it shows
// no face.
type Detector interface {
	Detect(img image.Image) []vision.Face
}

// Service is the assets application. Fields are set once before use.
type Service struct {
	Store    Store
	Blobs    Blobs
	Images   Images
	Fetcher  Fetcher
	Detector Detector
	// UploadTTL is how long a presigned upload URL stays valid.
	UploadTTL time.Duration
	Log       *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time { return clock.Now(s.Now) }

func (s *Service) log() *slog.Logger { return cmp.Or(s.Log, slog.Default()) }

// URL is the public URL of an object key, "" for "".
func (s *Service) URL(key string) string { return s.Blobs.PublicURL(key) }

// URLs maps keys to public URLs.
func (s *Service) URLs(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = s.URL(k)
	}
	return out
}

func newEvent(ctx context.Context, typ, orgID string, data any) ([]events.Envelope, error) {
	env, err := events.New(ctx, typ, Source, orgID, data)
	if err != nil {
		return nil, err
	}
	return []events.Envelope{env}, nil
}

// revision returns a short random path segment for objects written by an
// update, so they never overwrite the objects the current record names.
func revision() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "r" + hex.EncodeToString(b[:])
}

// blob is an object to write.
type blob struct {
	key         string
	data        []byte
	contentType string
}

// putAll writes blobs concurrently. On failure it removes what it wrote.
func (s *Service) putAll(ctx context.Context, blobs []blob) error {
	errs := make([]error, len(blobs))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, b := range blobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = s.Blobs.Put(ctx, b.key, bytes.NewReader(b.data), int64(len(b.data)), b.contentType)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			keys := make([]string, len(blobs))
			for i, b := range blobs {
				keys[i] = b.key
			}
			s.removeAll(ctx, keys)
			return err
		}
	}
	return nil
}

// removeAll deletes objects, best effort: a leftover object costs storage,
// not correctness, so failures are logged rather than returned.
func (s *Service) removeAll(ctx context.Context, keys []string) {
	ctx = context.WithoutCancel(ctx)
	for _, k := range keys {
		if k == "" {
			continue
		}
		if err := s.Blobs.Remove(ctx, k); err != nil {
			s.log().WarnContext(ctx, "removing object", "key", k, "err", err)
		}
	}
}

// replaced returns the keys of before that after no longer uses.
func replaced(before, after []string) []string {
	keep := make(map[string]bool, len(after))
	for _, k := range after {
		keep[k] = true
	}
	var out []string
	for _, k := range before {
		if !keep[k] {
			out = append(out, k)
		}
	}
	return out
}
