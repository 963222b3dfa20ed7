package service

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/services/thumbnails/internal/generate/template"
)

// Templates lists the catalogue in its order (of one category when
// category is not "").
func (s *Service) Templates(ctx context.Context, category string, offset, limit int) ([]template.Template, int, error) {
	return s.Store.Templates(ctx, category, offset, limit)
}

// PreviewKey is where the preview of version v of a template lives: a
// public object of no organization.
func PreviewKey(id string, v int) string {
	return s3store.SharedKey("templates", fmt.Sprintf("%s-v%d.jpg", id, v))
}

// RenderPreviews draws the preview of every template that has none, or an
// older one than template.PreviewVersion, and records it. Listing the
// catalogue does not wait for it: a template without a preview lists with
// previewUrl null.
func (s *Service) RenderPreviews(ctx context.Context) (int, error) {
	todo, err := s.Store.TemplatesWithoutPreview(ctx, template.PreviewVersion)
	if err != nil {
		return 0, err
	}
	for i, t := range todo {
		res, err := s.Previews.Preview(ctx, t.Name, t.Layout, t.Aspect)
		if err != nil {
			return i, fmt.Errorf("preview of template %s: %w", t.ID, err)
		}
		key := PreviewKey(t.ID, template.PreviewVersion)
		if err := s.Blobs.Put(ctx, key, bytes.NewReader(res.Data), int64(len(res.Data)), res.ContentType); err != nil {
			return i, err
		}
		if err := s.Store.SetPreview(ctx, t.ID, key, template.PreviewVersion); err != nil {
			return i, err
		}
	}
	return len(todo), nil
}

// PreviewWorker renders the missing previews at start-up, retrying after
// retry while it fails (storage not reachable yet), then returns; it fits
// platform.Serve's workers and never holds back readiness.
func (s *Service) PreviewWorker(retry time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := s.RenderPreviews(ctx)
			if err == nil {
				if n > 0 {
					s.log().InfoContext(ctx, "rendered template previews", "count", n)
				}
				return nil
			}
			if ctx.Err() != nil {
				return nil
			}
			s.log().WarnContext(ctx, "rendering template previews", "rendered", n, "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(retry):
			}
		}
	}
}
