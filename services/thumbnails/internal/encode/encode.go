// Package encode writes the pictures the edits make: the encoded picture
// and the one choice of formats behind it (JPEG at quality 90, PNG at zlib
// level 1), so that a Go-drawn edit and a libvips-streamed one write their
// files alike.
//
// The package is pure image code: no HTTP, storage or database.
package encode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"

	"hookline.dev/services/thumbnails/internal/libvips"
)

// The content types of a Picture.
const (
	ContentTypeJPEG = "image/jpeg"
	ContentTypePNG  = "image/png"
)

// JPEGQuality is the quality of every JPEG an edit writes. At 90 libvips
// also keeps full-resolution chroma, which thumbnails need for crisp
// coloured text.
const JPEGQuality = 90

// PNGLevel is the zlib level of every PNG an edit writes. On a
// thumbnail-sized cut-out, level 1 (with per-row filters) is much quicker
// than the default level 6 for a slightly larger file: an edit is waited
// for, its storage is cheap.
const PNGLevel = 1

// Picture is an encoded picture: the file and what it is.
type Picture struct {
	Data []byte
	// ContentType is ContentTypeJPEG or ContentTypePNG.
	ContentType   string
	Width, Height int
}

// Encode encodes img: as PNG with its transparency when png is true,
// otherwise as JPEG at JPEGQuality with any transparency flattened onto
// white (a cut-out saved as JPEG looks as it did on a white page, where
// black would swallow dark hair and clothes).
//
// PNG is written by Go's encoder at PNGLevel, JPEG by libvips.EncodeJPEG.
func Encode(img image.Image, png bool) (Picture, error) {
	b := img.Bounds()
	out := Picture{Width: b.Dx(), Height: b.Dy()}
	if out.Width == 0 || out.Height == 0 {
		return Picture{}, errors.New("edit: encode: empty picture")
	}
	var err error
	if png {
		out.ContentType = ContentTypePNG
		out.Data, err = encodePNG(img)
	} else {
		out.ContentType = ContentTypeJPEG
		out.Data, err = OpaqueJPEG(onWhite(img))
	}
	if err != nil {
		return Picture{}, err
	}
	return out, nil
}

var finalPNG = png.Encoder{CompressionLevel: png.BestSpeed}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := finalPNG.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("edit: encode PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// OpaqueJPEG encodes an opaque picture at the origin as a JPEG at
// JPEGQuality.
func OpaqueJPEG(opaque *image.RGBA) ([]byte, error) {
	data, err := libvips.EncodeJPEG(opaque, JPEGQuality)
	if err != nil {
		return nil, fmt.Errorf("edit: %w", err)
	}
	return data, nil
}

// onWhite returns img as an opaque image.RGBA at the origin, its
// transparent parts composited over white. The PNG encoder writes an
// opaque image without an alpha channel, which keeps the staging small.
func onWhite(img image.Image) *image.RGBA {
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	// image/draw has fast paths from every decoder's image type.
	draw.Draw(m, m.Rect, img, b.Min, draw.Src)
	for i := 0; i < len(m.Pix); i += 4 {
		if a := m.Pix[i+3]; a != 255 {
			// Premultiplied: over white is c + (255 - a).
			w := 255 - a
			m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = m.Pix[i]+w, m.Pix[i+1]+w, m.Pix[i+2]+w, 255
		}
	}
	return m
}
