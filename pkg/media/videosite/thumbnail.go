package videosite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the site's thumbnails are JPEG
	"strings"

	"hookline.dev/pkg/platform/safefetch"
)

// DefaultImageBase is the site's image host.
const DefaultImageBase = "https://i.ytimg.com"

// ErrNoThumbnail: the image host has none of the qualities of a video.
var ErrNoThumbnail = errors.New("videosite: no thumbnail")

// Thumbnail is a video's own thumbnail.
type Thumbnail struct {
	// Quality is maxres, high, medium or standard.
	Quality       string
	Width, Height int
	// URL is where it was fetched; Data the JPEG.
	URL  string
	Data []byte
}

// thumbnailQualities are tried in this order: the best first.
var thumbnailQualities = []struct{ quality, name string }{
	{"maxres", "maxresdefault"}, {"high", "hqdefault"}, {"medium", "mqdefault"}, {"standard", "sddefault"},
}

// placeholder is the size of the grey image the host answers for a
// quality a video does not have.
const placeholderW, placeholderH = 120, 90

// Thumbnail fetches the best available thumbnail of the site video id
// from <ImageBase>/vi/<id>/<name>.jpg. A missing quality (404, or the
// grey 120×90 placeholder) is skipped. Errors: ErrInvalidURL for a
// malformed id, ErrNoThumbnail when every quality is missing,
// ErrUnavailable when the host fails, ErrForbidden when the fetcher
// refuses it.
func (c *Client) Thumbnail(ctx context.Context, id string) (Thumbnail, error) {
	if !ValidID(id) {
		return Thumbnail{}, fmt.Errorf("%w: malformed video id", ErrInvalidURL)
	}
	base := strings.TrimRight(c.cfg.ImageBase, "/")
	if base == "" {
		base = DefaultImageBase
	}
	for _, q := range thumbnailQualities {
		u := base + "/vi/" + id + "/" + q.name + ".jpg"
		resp, err := c.fetch.Get(ctx, u)
		var se *safefetch.StatusError
		switch {
		case errors.As(err, &se) && se.Code == 404:
			continue
		case err != nil:
			return Thumbnail{}, fetchErr("thumbnail", err)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(resp.Body))
		if err != nil || format != "jpeg" {
			return Thumbnail{}, fmt.Errorf("%w: the image host answered something that is not a JPEG", ErrUnavailable)
		}
		if cfg.Width == placeholderW && cfg.Height == placeholderH {
			continue
		}
		return Thumbnail{Quality: q.quality, Width: cfg.Width, Height: cfg.Height, URL: u, Data: resp.Body}, nil
	}
	return Thumbnail{}, ErrNoThumbnail
}
