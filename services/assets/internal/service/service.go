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
package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/imageinput"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/s3store"
	"hookline.dev/pkg/safefetch"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/assets/internal/postgres"
)

// Source names the service in event envelopes.
const Source = "assets"

// Service is the assets application. Fields are set once before use.
type Service struct {
	Store    *postgres.Store
	Blobs    *s3store.Store
	Images   *imageinput.Source
	Fetcher  *safefetch.Fetcher
	Detector *vision.Detector
	// UploadTTL is how long a presigned upload URL stays valid.
	UploadTTL time.Duration
	Log       *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time { return pgkit.Now(s.Now) }

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// URL is the public URL of an object key, "" for "".
func (s *Service) URL(key string) string {
	if key == "" {
		return ""
	}
	return s.Blobs.PublicURL(key)
}

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
