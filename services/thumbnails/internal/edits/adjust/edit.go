// Package adjust holds the thumbnail edits that cost no credits and need no
// model: colour enhancement, upscaling and the filters of a small prompt
// grammar, plus the encoding of any edited picture.
//
// The two edits that take an encoded picture and give one back are on the
// performance path. Upscale runs entirely in libvips, which decodes,
// enlarges, sharpens and encodes in one streaming pass. Color-enhance
// decodes and encodes with libvips and maps the pixels in between
// through a colour table: the preset's exact CIE Lab math sampled on a
// lattice, which costs less than half of libvips' own Lab conversions.
// The filters work on decoded Go images, because several of them need
// what the service already holds for the picture (its faces, its
// saliency) and none of them is a libvips primitive.
//
// The package is pure image code: no HTTP, storage or database.
package adjust

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"

	"github.com/davidbyttow/govips/v2/vips"

	"hookline.dev/pkg/imaging/libvips"
)

// The content types of an Output.
const (
	ContentTypeJPEG = "image/jpeg"
	ContentTypePNG  = "image/png"
)

// jpegQuality is the quality of every JPEG this package writes. At 90
// libvips also keeps full-resolution chroma, which thumbnails need for
// crisp coloured text.
const jpegQuality = 90

// Output is an encoded picture.
type Output struct {
	Data []byte
	// ContentType is ContentTypeJPEG or ContentTypePNG.
	ContentType   string
	Width, Height int
}

// ErrFormat is returned for an input that is neither JPEG nor PNG. The
// service's image input only lets those two through, so it means a
// caller skipped that check.
var ErrFormat = errors.New("edit: the picture is neither JPEG nor PNG")

// load decodes a JPEG or PNG into libvips, as it is stored: no rotation by
// EXIF orientation, so the result has the size the rest of the service
// (which decodes with Go) sees.
func load(data []byte) (*vips.ImageRef, vips.ImageType, error) {
	libvips.Start()
	typ := vips.DetermineImageType(data)
	if typ != vips.ImageTypeJPEG && typ != vips.ImageTypePNG {
		return nil, typ, ErrFormat
	}
	// fail: corrupt pixel data is an error, never a grey patch (the
	// service checked only the header).
	ref, err := vips.LoadImageFromBuffer(data, vips.NewImportParams())
	if err != nil {
		return nil, typ, fmt.Errorf("edit: decode: %w", err)
	}
	return ref, typ, nil
}

// export encodes an 8-bit sRGB image as typ: a PNG (alpha kept) or a
// JPEG (which has none, as its source was a JPEG). Metadata is dropped,
// as the picture is a new one.
func export(ref *vips.ImageRef, typ vips.ImageType) (Output, error) {
	out := Output{Width: ref.Width(), Height: ref.Height()}
	var err error
	if typ == vips.ImageTypePNG {
		out.ContentType = ContentTypePNG
		out.Data, _, err = ref.ExportPng(&vips.PngExportParams{
			StripMetadata: true,
			Compression:   pngLevel,
			Filter:        vips.PngFilterAll,
		})
	} else {
		out.ContentType = ContentTypeJPEG
		out.Data, _, err = ref.ExportJpeg(&vips.JpegExportParams{StripMetadata: true, Quality: jpegQuality})
	}
	if err != nil {
		return Output{}, fmt.Errorf("edit: encode: %w", err)
	}
	return out, nil
}

// toSRGB8 brings a decoded picture to 8-bit sRGB with or without an
// alpha band: grey, 16-bit and palette PNGs arrive in other forms.
func toSRGB8(ref *vips.ImageRef) error {
	if ref.Interpretation() != vips.InterpretationSRGB {
		if err := ref.ToColorSpace(vips.InterpretationSRGB); err != nil {
			return fmt.Errorf("edit: to sRGB: %w", err)
		}
	}
	if ref.BandFormat() != vips.BandFormatUchar {
		if err := ref.Cast(vips.BandFormatUchar); err != nil {
			return fmt.Errorf("edit: to 8 bits: %w", err)
		}
	}
	return nil
}

// Encode encodes img: as PNG with its transparency when png is true,
// otherwise as JPEG at quality 90 with any transparency flattened onto
// white (a cut-out saved as JPEG looks as it did on a white page, where
// black would swallow dark hair and clothes).
//
// PNG is written by Go's encoder at its fastest level (see pngLevel),
// JPEG by libvips.EncodeJPEG.
func Encode(img image.Image, png bool) (Output, error) {
	b := img.Bounds()
	out := Output{Width: b.Dx(), Height: b.Dy()}
	if out.Width == 0 || out.Height == 0 {
		return Output{}, errors.New("edit: encode: empty picture")
	}
	var err error
	if png {
		out.ContentType = ContentTypePNG
		out.Data, err = encodePNG(img)
	} else {
		out.ContentType = ContentTypeJPEG
		out.Data, err = encodeJPEG(onWhite(img))
	}
	if err != nil {
		return Output{}, err
	}
	return out, nil
}

// pngLevel is the zlib level of every PNG this package writes. On a
// thumbnail-sized cut-out, level 1 (with per-row filters) is much quicker
// than the default level 6 for a slightly larger file: an edit is waited
// for, its storage is cheap.
const pngLevel = 1

var finalPNG = png.Encoder{CompressionLevel: png.BestSpeed}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := finalPNG.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("edit: encode PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// encodeJPEG encodes an opaque picture at the origin.
func encodeJPEG(opaque *image.RGBA) ([]byte, error) {
	data, err := libvips.EncodeJPEG(opaque, jpegQuality)
	if err != nil {
		return nil, fmt.Errorf("edit: %w", err)
	}
	return data, nil
}

// onWhite returns img as an opaque image.RGBA at the origin, its
// transparent parts composited over white. The PNG encoder writes an
// opaque image without an alpha channel, which keeps the staging small.
func onWhite(img image.Image) *image.RGBA {
	m := toRGBA(img)
	for i := 0; i < len(m.Pix); i += 4 {
		if a := m.Pix[i+3]; a != 255 {
			// Premultiplied: over white is c + (255 - a).
			w := 255 - a
			m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = m.Pix[i]+w, m.Pix[i+1]+w, m.Pix[i+2]+w, 255
		}
	}
	return m
}
