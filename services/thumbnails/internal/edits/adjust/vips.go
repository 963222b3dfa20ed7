// Package adjust holds the thumbnail edits that cost no credits and need no
// model: colour enhancement, upscaling and the filters of a small prompt
// grammar. Their results are written as every edit's are (package
// encode).
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
	"errors"
	"fmt"

	"github.com/davidbyttow/govips/v2/vips"

	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/libvips"
)

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
func export(ref *vips.ImageRef, typ vips.ImageType) (encode.Picture, error) {
	out := encode.Picture{Width: ref.Width(), Height: ref.Height()}
	var err error
	if typ == vips.ImageTypePNG {
		out.ContentType = encode.ContentTypePNG
		out.Data, _, err = ref.ExportPng(&vips.PngExportParams{
			StripMetadata: true,
			Compression:   encode.PNGLevel,
			Filter:        vips.PngFilterAll,
		})
	} else {
		out.ContentType = encode.ContentTypeJPEG
		out.Data, _, err = ref.ExportJpeg(&vips.JpegExportParams{StripMetadata: true, Quality: encode.JPEGQuality})
	}
	if err != nil {
		return encode.Picture{}, fmt.Errorf("edit: encode: %w", err)
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
