package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/s3store"
)

// extractDeadline bounds looking up a video's thumbnail.
const extractDeadline = 15 * time.Second

// Extracted is a hosted video's own thumbnail, copied into our bucket.
type Extracted struct {
	VideoID, Quality string
	Width, Height    int
	// Key is our copy; SourceURL where it was fetched.
	Key, SourceURL string
}

// ExtractVideoSite finds a site video's own thumbnail at the best quality
// the image host has (maxres, high, medium, standard) and keeps a copy.
// Free.
func (s *Service) ExtractVideoSite(ctx context.Context, p principal.Principal, videoSiteURL *string) (Extracted, error) {
	const field = "videoSiteUrl"
	if videoSiteURL == nil || strings.TrimSpace(*videoSiteURL) == "" {
		return Extracted{}, apierr.Field(field, "required")
	}
	src, err := videosite.Parse(strings.TrimSpace(*videoSiteURL))
	if err != nil || src.Kind != videosite.KindSite {
		return Extracted{}, apierr.Field(field, "not a video-site address (watch, short link, shorts, embed or live)")
	}
	ctx, cancel := context.WithTimeout(ctx, extractDeadline)
	defer cancel()
	th, err := s.Videos.Thumbnail(ctx, src.VideoID)
	switch {
	case errors.Is(err, videosite.ErrNoThumbnail):
		return Extracted{}, apierr.New(apierr.NotFound, "the video has no thumbnail at the image host").With("videoId", src.VideoID)
	case errors.Is(err, videosite.ErrInvalidURL):
		return Extracted{}, apierr.Field(field, "not a valid video id")
	case errors.Is(err, videosite.ErrForbidden):
		return Extracted{}, apierr.Wrap(apierr.Unavailable, "the image host may not be fetched", err).With("source", "imageHost")
	case errors.Is(err, videosite.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return Extracted{}, apierr.Wrap(apierr.Unavailable, "the video site's image host could not be reached; try again", err).With("source", "imageHost")
	case err != nil:
		return Extracted{}, fmt.Errorf("video thumbnail: %w", err)
	}
	key := s3store.OrgPrefix(p.OrgID) + "thumbnails/videosite/" + src.VideoID + "-" + th.Quality + ".jpg"
	if err := s.Blobs.Put(ctx, key, bytes.NewReader(th.Data), int64(len(th.Data)), "image/jpeg"); err != nil {
		return Extracted{}, err
	}
	return Extracted{VideoID: src.VideoID, Quality: th.Quality, Width: th.Width, Height: th.Height, Key: key, SourceURL: th.URL}, nil
}
