package service

import (
	"container/list"
	"context"
	"image"
	"sync"

	"hookline.dev/services/thumbnails/internal/edits/matte"
)

// Cutouts remembers the cut-outs of saved faces, so that a face used in
// generation after generation is cut out once: the remover costs far more
// than the drawing it serves. Entries are keyed by the face's id and the
// URL of its picture (a new picture is a new URL), the least recently
// used dropped beyond the bound. A Cutouts is safe for concurrent use.
type Cutouts struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cutoutEntry, most recent first
	byKey map[string]*list.Element
}

type cutoutEntry struct {
	key string
	// mask is nil when no face was found in the picture: the engine then
	// keeps its own way, and the detector need not run again.
	mask *image.Alpha
}

// NewCutouts holds up to n cut-outs (at least one). A 256 px face crop's
// cut-out is 64 KB.
func NewCutouts(n int) *Cutouts {
	return &Cutouts{max: max(1, n), order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *Cutouts) get(key string) (*image.Alpha, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cutoutEntry).mask, true //nolint:forcetypeassert // the list holds only entries
}

func (c *Cutouts) put(key string, mask *image.Alpha) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		e.Value.(*cutoutEntry).mask = mask //nolint:forcetypeassert // the list holds only entries
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&cutoutEntry{key: key, mask: mask})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cutoutEntry).key) //nolint:forcetypeassert // the list holds only entries
	}
}

// Len is how many cut-outs are held.
func (c *Cutouts) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// cutout is the person in a saved face's picture: the remover seeded by
// the faces the detector finds there, nil when it finds none (or the
// service has no remover). key names the picture for the cache.
func (s *Service) cutout(ctx context.Context, key string, img image.Image) (*image.Alpha, error) {
	if s.Matte == nil || s.Faces == nil {
		return nil, nil
	}
	if s.Cutouts != nil {
		if m, ok := s.Cutouts.get(key); ok {
			return m, nil
		}
	}
	var mask *image.Alpha
	if faces := s.Faces.Detect(img); len(faces) > 0 {
		cut, err := s.Matte.Remove(ctx, img, faces)
		if err != nil {
			return nil, err
		}
		mask = matte.Coverage(cut)
	}
	if s.Cutouts != nil {
		s.Cutouts.put(key, mask)
	}
	return mask, nil
}
