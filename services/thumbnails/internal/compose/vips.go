package compose

import (
	"bytes"
	"fmt"
	"image"
	"sync"

	"github.com/davidbyttow/govips/v2/vips"
	"golang.org/x/image/tiff"
)

var startOnce sync.Once

// startVips starts libvips once per process. Its operation cache is kept
// off (every load is a new buffer, so it would never hit) and each
// operation runs on few threads: the service composes several
// thumbnails at once on two cores, so parallelism comes from requests,
// not from inside one image.
func startVips(concurrency int) {
	startOnce.Do(func() {
		vips.LoggingSettings(nil, vips.LogLevelWarning)
		vips.Startup(&vips.Config{
			ConcurrencyLevel: concurrency,
			MaxCacheFiles:    0,
			MaxCacheMem:      0,
			MaxCacheSize:     0,
		})
	})
}

// thumb decodes an input image (JPEG or PNG) and cover-crops it to w×h
// around its centre with libvips' shrink-on-load, as 8-bit sRGB. With
// keepAlpha false, transparency is flattened onto black; with it, an alpha
// channel is kept or added (a face crop may come already cut out).
func thumb(data []byte, w, h int, keepAlpha bool) (*vips.ImageRef, error) {
	ref, err := vips.LoadThumbnailFromBuffer(data, w, h, vips.InterestingCentre, vips.SizeBoth, nil)
	if err != nil {
		return nil, fmt.Errorf("compose: load image: %w", err)
	}
	if err := normalise(ref, keepAlpha); err != nil {
		ref.Close()
		return nil, err
	}
	return ref, nil
}

func normalise(ref *vips.ImageRef, keepAlpha bool) error {
	if err := ref.ToColorSpace(vips.InterpretationSRGB); err != nil {
		return fmt.Errorf("compose: to sRGB: %w", err)
	}
	if ref.BandFormat() != vips.BandFormatUchar {
		if err := ref.Cast(vips.BandFormatUchar); err != nil {
			return fmt.Errorf("compose: cast: %w", err)
		}
	}
	switch {
	case ref.HasAlpha() && !keepAlpha:
		if err := ref.Flatten(&vips.Color{}); err != nil {
			return fmt.Errorf("compose: flatten: %w", err)
		}
	case !ref.HasAlpha() && keepAlpha:
		if err := ref.AddAlpha(); err != nil {
			return fmt.Errorf("compose: add alpha: %w", err)
		}
	}
	return nil
}

// loadCover is thumb into Go memory.
func loadCover(data []byte, w, h int, keepAlpha bool) (*image.RGBA, error) {
	ref, err := thumb(data, w, h, keepAlpha)
	if err != nil {
		return nil, err
	}
	defer ref.Close()
	return toRGBA(ref)
}

// blurCover is loadCover for a background: the picture is shrunk to a
// quarter, blurred there (cheap, and the blur hides the resampling), and
// scaled back up to w×h.
func blurCover(data []byte, w, h int, sigma float64) (*image.RGBA, error) {
	const down = 4
	ref, err := thumb(data, w/down, h/down, false)
	if err != nil {
		return nil, err
	}
	defer ref.Close()
	if sigma > 0.3 {
		if err := ref.GaussianBlur(sigma); err != nil {
			return nil, fmt.Errorf("compose: blur: %w", err)
		}
	}
	if err := ref.ResizeWithVScale(float64(w)/float64(ref.Width()), float64(h)/float64(ref.Height()), vips.KernelLinear); err != nil {
		return nil, fmt.Errorf("compose: resize: %w", err)
	}
	return toRGBA(ref)
}

// toRGBA copies a uchar sRGB image with 3 or 4 bands into Go memory.
func toRGBA(ref *vips.ImageRef) (*image.RGBA, error) {
	w, h, bands := ref.Width(), ref.Height(), ref.Bands()
	raw, err := ref.ToBytes()
	if err != nil {
		return nil, fmt.Errorf("compose: read pixels: %w", err)
	}
	if bands != 3 && bands != 4 || len(raw) < w*h*bands {
		return nil, fmt.Errorf("compose: unexpected pixels: %d bands, %d bytes for %d×%d", bands, len(raw), w, h)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if bands == 4 {
		// Premultiply, as image.RGBA holds it.
		for i := 0; i < w*h; i++ {
			s, d := raw[i*4:i*4+4:i*4+4], img.Pix[i*4:i*4+4:i*4+4]
			a := uint32(s[3])
			d[0] = uint8(uint32(s[0]) * a / 255)
			d[1] = uint8(uint32(s[1]) * a / 255)
			d[2] = uint8(uint32(s[2]) * a / 255)
			d[3] = s[3]
		}
		return img, nil
	}
	for i := 0; i < w*h; i++ {
		s, d := raw[i*3:i*3+3:i*3+3], img.Pix[i*4:i*4+4:i*4+4]
		d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 255
	}
	return img, nil
}

// encodeJPEG hands the finished, opaque canvas to libvips as an
// uncompressed TIFF (a header in front of the pixels, so the copy costs
// next to nothing) and encodes it with libjpeg at quality q.
func encodeJPEG(canvas *image.RGBA, q int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(canvas.Pix) + 1024)
	if err := tiff.Encode(&buf, canvas, &tiff.Options{Compression: tiff.Uncompressed}); err != nil {
		return nil, fmt.Errorf("compose: stage canvas: %w", err)
	}
	ref, err := vips.LoadImageFromBuffer(buf.Bytes(), nil)
	if err != nil {
		return nil, fmt.Errorf("compose: load canvas: %w", err)
	}
	defer ref.Close()
	if err := ref.ExtractBand(0, 3); err != nil {
		return nil, fmt.Errorf("compose: drop alpha: %w", err)
	}
	out, _, err := ref.ExportJpeg(&vips.JpegExportParams{StripMetadata: true, Quality: q})
	if err != nil {
		return nil, fmt.Errorf("compose: encode: %w", err)
	}
	return out, nil
}
