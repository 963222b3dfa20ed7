package service

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"runtime"
	"sync"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/services/assets/internal/face"
)

// FaceStore keeps faces. Every method may also return a database failure.
type FaceStore interface {
	// InsertFace stores f with the events mk builds.
	InsertFace(ctx context.Context, f face.Face, mk Events[face.Face]) error
	// Face errors: face.ErrNotFound (also another organization's).
	Face(ctx context.Context, orgID, id string) (face.Face, error)
	// Faces returns a page, newest first, and the total.
	Faces(ctx context.Context, orgID string, offset, limit int) ([]face.Face, int, error)
	// UpdateFace writes what change makes of the face, under a row lock,
	// with mk's events, and returns the face before and after. Errors:
	// face.ErrNotFound, or change's.
	UpdateFace(ctx context.Context, orgID, id string, change func(face.Face) (face.Face, error), mk Events[face.Face]) (before, after face.Face, err error)
	// DeleteFace removes a face with mk's events and returns it. Errors:
	// face.ErrNotFound.
	DeleteFace(ctx context.Context, orgID, id string, mk Events[face.Face]) (face.Face, error)
}

// facePrepared is the outcome of the image work of a face: the objects to
// write and their keys.
type facePrepared struct {
	blobs    []blob
	keys     []string
	thumbKey string
}

// prepareFace verifies, detects and crops. Nothing is written: a request
// with any bad photo fails before storage or database see anything.
func (s *Service) prepareFace(ctx context.Context, orgID, prefix string, urls []string) (facePrepared, error) {
	imgs, err := s.Images.LoadAll(ctx, orgID, "imageUrls", urls)
	if err != nil {
		return facePrepared{}, err
	}
	found := make([][]vision.Face, len(imgs))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, img := range imgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			found[i] = s.Detector.Detect(img.Img)
		})
	}
	wg.Wait()
	var none []int
	for i, f := range found {
		if len(f) == 0 {
			none = append(none, i)
		}
	}
	if len(none) > 0 {
		return facePrepared{}, face.NoFace(urls, none)
	}

	var p facePrepared
	for i, img := range imgs {
		key := fmt.Sprintf("%s%d.%s", prefix, i, img.Ext())
		p.keys = append(p.keys, key)
		p.blobs = append(p.blobs, blob{key: key, data: img.Data, contentType: img.ContentType()})
	}
	thumb, err := cropJPEG(imgs[0], found[0][0])
	if err != nil {
		return facePrepared{}, err
	}
	p.thumbKey = prefix + "thumb.jpg"
	p.blobs = append(p.blobs, blob{key: p.thumbKey, data: thumb, contentType: "image/jpeg"})
	return p, nil
}

// cropJPEG cuts the square face thumbnail from the first photo's most
// confident face, framed by its landmarks (vision.SquareCrop).
func cropJPEG(img imageinput.Image, f vision.Face) ([]byte, error) {
	crop := vision.SquareCrop(img.Img, f, face.ThumbnailSize)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, crop, &jpeg.Options{Quality: 90}); err != nil {
		return nil, fmt.Errorf("service: encode face thumbnail: %w", err)
	}
	return buf.Bytes(), nil
}

func facePrefix(orgID, id, rev string) string {
	p := s3store.OrgPrefix(orgID) + "faces/" + id + "/"
	if rev != "" {
		p += rev + "/"
	}
	return p
}

func (s *Service) faceEvent(ctx context.Context, typ string) Events[face.Face] {
	return func(f face.Face) ([]events.Envelope, error) {
		return newEvent(ctx, typ, f.OrgID, s.facePayload(f))
	}
}

// facePayload is the face as its created and updated events (and a
// records answer) describe it.
func (s *Service) facePayload(f face.Face) events.FaceChanged {
	return events.FaceChanged{FaceID: f.ID, Name: f.Name, ImageURLs: s.URLs(f.ImageKeys), ThumbnailURL: s.URL(f.ThumbnailKey)}
}

// CreateFace creates a face from 1..10 photos that each show a face.
func (s *Service) CreateFace(ctx context.Context, orgID string, d face.Draft) (face.Face, error) {
	d, err := d.Validate()
	if err != nil {
		return face.Face{}, err
	}
	id := uuid.NewString()
	p, err := s.prepareFace(ctx, orgID, facePrefix(orgID, id, ""), d.ImageURLs)
	if err != nil {
		return face.Face{}, err
	}
	if err := s.putAll(ctx, p.blobs); err != nil {
		return face.Face{}, err
	}
	now := s.now()
	f := face.Face{ID: id, OrgID: orgID, Name: d.Name, ImageKeys: p.keys, ThumbnailKey: p.thumbKey, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.InsertFace(ctx, f, s.faceEvent(ctx, events.AssetsFaceCreated)); err != nil {
		s.removeAll(ctx, f.Keys())
		return face.Face{}, err
	}
	return f, nil
}

// Face returns one face of the organization.
func (s *Service) Face(ctx context.Context, orgID, id string) (face.Face, error) {
	return s.Store.Face(ctx, orgID, id)
}

// Faces lists the organization's faces, newest first.
func (s *Service) Faces(ctx context.Context, orgID string, offset, limit int) ([]face.Face, int, error) {
	return s.Store.Faces(ctx, orgID, offset, limit)
}

// UpdateFace renames a face and/or replaces its photos (verified and
// detected like on create).
func (s *Service) UpdateFace(ctx context.Context, orgID, id string, p face.Patch) (face.Face, error) {
	p, err := p.Validate()
	if err != nil {
		return face.Face{}, err
	}
	var prep *facePrepared
	if p.ImageURLs != nil {
		// Fail fast on an unknown id before doing the image work.
		if _, err := s.Store.Face(ctx, orgID, id); err != nil {
			return face.Face{}, err
		}
		pp, err := s.prepareFace(ctx, orgID, facePrefix(orgID, id, revision()), *p.ImageURLs)
		if err != nil {
			return face.Face{}, err
		}
		if err := s.putAll(ctx, pp.blobs); err != nil {
			return face.Face{}, err
		}
		prep = &pp
	}
	before, after, err := s.Store.UpdateFace(ctx, orgID, id, func(f face.Face) (face.Face, error) {
		if p.Name != nil {
			f.Name = *p.Name
		}
		if prep != nil {
			f.ImageKeys, f.ThumbnailKey = prep.keys, prep.thumbKey
		}
		f.UpdatedAt = s.now()
		return f, nil
	}, s.faceEvent(ctx, events.AssetsFaceUpdated))
	if err != nil {
		if prep != nil {
			s.removeAll(ctx, append(prep.keys, prep.thumbKey))
		}
		return face.Face{}, err
	}
	s.removeAll(ctx, replaced(before.Keys(), after.Keys()))
	return after, nil
}

// DeleteFace deletes a face and its stored photos.
func (s *Service) DeleteFace(ctx context.Context, orgID, id string) error {
	f, err := s.Store.DeleteFace(ctx, orgID, id, func(f face.Face) ([]events.Envelope, error) {
		return newEvent(ctx, events.AssetsFaceDeleted, f.OrgID, events.FaceDeleted{FaceID: f.ID})
	})
	if err != nil {
		return err
	}
	s.removeAll(ctx, f.Keys())
	return nil
}
