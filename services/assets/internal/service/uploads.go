package service

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/services/assets/internal/upload"
)

// Presigned is an upload address.
type Presigned struct {
	UploadURL string
	PublicURL string
	ExpiresAt time.Time
}

// Presign validates every request (naming failures prefix(i)+field) and
// signs one PUT per file, valid for UploadTTL, with the Content-Type and
// the declared fileSize as Content-Length part of the signature: storage
// refuses a body of any other length.
func (s *Service) Presign(ctx context.Context, orgID string, reqs []upload.Request, prefix func(i int) string) ([]Presigned, error) {
	f := apierr.Fields{}
	plans := make([]upload.Plan, len(reqs))
	for i, r := range reqs {
		plans[i] = r.Validate(f, prefix(i))
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	// The expiry is taken before signing, so the promised time is never
	// later than the real one.
	expires := time.Now().UTC().Add(s.UploadTTL).Truncate(time.Second)
	out := make([]Presigned, len(plans))
	for i, p := range plans {
		key := upload.Key(s3store.UploadPrefix(orgID), uuid.NewString(), p)
		u, err := s.Blobs.PresignPut(ctx, key, p.ContentType, p.Size, s.UploadTTL)
		if err != nil {
			return nil, fmt.Errorf("service: presign upload: %w", err)
		}
		out[i] = Presigned{UploadURL: u, PublicURL: s.Blobs.PublicURL(key), ExpiresAt: expires}
	}
	return out, nil
}
