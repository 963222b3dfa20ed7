package providerkit

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// JPEGQuality is the quality thumbnails are stored at.
const JPEGQuality = 88

// Bounds on a provider's picture, checked from its header before any
// pixel is decoded: providers answer a few megapixels, and a corrupt or
// hostile answer must not make the decoder allocate gigabytes.
const (
	maxSide   = 8192
	maxPixels = 40_000_000
)

// ErrBadPicture means a provider's picture is not a JPEG or PNG that
// decodes within the bounds above.
var ErrBadPicture = errors.New("provider picture cannot be decoded")

// Fit turns a provider's picture into the thumbnail the request asked
// for: cover-cropped around its centre to aspect a, resized to exactly
// a.Size() and encoded as JPEG at JPEGQuality. Providers draw at their own
// sizes (1536×1024, 1344×768), never at 1280×720. Errors wrap
// ErrBadPicture.
func Fit(data []byte, a thumbnail.Aspect) (engine.Result, error) {
	src, err := decode(data)
	if err != nil {
		return engine.Result{}, err
	}
	w, h := a.Size()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, cover(src.Bounds(), w, h), draw.Src, nil)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return engine.Result{}, fmt.Errorf("encode thumbnail: %w", err)
	}
	return engine.Result{Data: out.Bytes(), ContentType: "image/jpeg", Width: w, Height: h}, nil
}

// Picture decodes a provider's base64 picture (standard alphabet, or
// URL-safe as proto JSON allows) and fits it to a. Its errors are plain:
// an answer the adapter cannot use is a provider fault, not a refusal.
func (e *Endpoint) Picture(b64 string, a thumbnail.Aspect) (engine.Result, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		if raw, err = base64.URLEncoding.DecodeString(b64); err != nil {
			return engine.Result{}, fmt.Errorf("%s: %w: base64: %w", e.provider, ErrBadPicture, err)
		}
	}
	res, err := Fit(raw, a)
	if err != nil {
		return engine.Result{}, fmt.Errorf("%s: %w", e.provider, err)
	}
	return res, nil
}

// decode reads a JPEG or PNG, refusing oversized headers before decoding.
func decode(data []byte) (image.Image, error) {
	decodeConfig, decodeImage := jpeg.DecodeConfig, jpeg.Decode
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		decodeConfig, decodeImage = png.DecodeConfig, png.Decode
	case !bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return nil, fmt.Errorf("%w: neither JPEG nor PNG", ErrBadPicture)
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPicture, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxSide || cfg.Height > maxSide || cfg.Width*cfg.Height > maxPixels {
		return nil, fmt.Errorf("%w: %d×%d is out of range", ErrBadPicture, cfg.Width, cfg.Height)
	}
	img, err := decodeImage(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPicture, err)
	}
	return img, nil
}

// cover is the largest rectangle of aspect w:h centred in b: the part of
// the picture kept when it fills a w×h frame without bars.
func cover(b image.Rectangle, w, h int) image.Rectangle {
	sw, sh := b.Dx(), b.Dy()
	cw, ch := sw, sh
	if sw*h > sh*w { // wider than the frame: crop the sides
		cw = max(1, sh*w/h)
	} else { // taller: crop top and bottom
		ch = max(1, sw*h/w)
	}
	x0 := b.Min.X + (sw-cw)/2
	y0 := b.Min.Y + (sh-ch)/2
	return image.Rect(x0, y0, x0+cw, y0+ch)
}
