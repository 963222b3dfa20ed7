// Package imagecheck is the shared gate for user-uploaded images. Every
// service that takes an image a client uploaded (faces, styles, brand
// assets, thumbnail references) runs it through here before anything else
// touches it, so all of them accept and refuse exactly the same files:
// JPEG or PNG, at most 5 MB, with sane dimensions and shape, decodable
// within a bounded amount of memory, and fully decodable.
//
// Errors are sentinels wrapped with detail; callers test them with
// errors.Is and answer 400 invalid_request naming the offending URL. The
// messages are safe to show to clients.
package imagecheck

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
)

// Limits on what is accepted.
const (
	// MaxBytes is the largest accepted file, 5 MiB, as the API spec
	// promises clients.
	MaxBytes = 5 << 20
	// MaxSide bounds each dimension in pixels.
	MaxSide = 10_000
	// MaxPixels bounds width×height. A few kilobytes of PNG can claim
	// gigapixel dimensions and make the decoder allocate for all of them,
	// so the header is checked against this before any pixel is decoded.
	// 40 MP covers any camera photo a user would upload.
	MaxPixels = 40_000_000
	// MaxDecodeBytes bounds the memory the decoder may allocate for one
	// image, estimated from its headers (see Header.DecodeBytes): 4 bytes
	// a pixel at MaxPixels, so every 8-bit baseline image within the pixel
	// limit passes, while a 16-bit, interlaced or progressive file pays for
	// its heavier decoding with fewer pixels. A 500 KB 16-bit PNG of 40 MP
	// would otherwise take 320 MB.
	MaxDecodeBytes = 4 * MaxPixels
	// MaxAspect bounds the ratio of the longer side to the shorter. Work
	// on a picture follows its shape as much as its pixels: a 1×10000
	// strip holds 10,000 pixels, but covering a 1280×720 frame with it
	// means enlarging it 1280 times across, a 16-gigapixel intermediate.
	// No photograph, logo or face is longer than a banner's 20:1.
	MaxAspect = 20
)

// Format names, as returned by Sniff and Verify. They match the names the
// standard library's image package registers.
const (
	FormatJPEG = "jpeg"
	FormatPNG  = "png"
)

// Sentinel errors. Each error returned by this package wraps exactly one.
var (
	// ErrEmpty means the object has no bytes.
	ErrEmpty = errors.New("image file is empty")
	// ErrTooLarge means the object is over MaxBytes.
	ErrTooLarge = errors.New("image file is larger than 5 MB")
	// ErrNotImage means the object does not start with JPEG or PNG magic
	// bytes, whatever its name or declared content type says.
	ErrNotImage = errors.New("file is not a JPEG or PNG image")
	// ErrUndecodable means the object starts like a JPEG or PNG but its
	// data is corrupt, truncated or uses an unsupported variant.
	ErrUndecodable = errors.New("image data cannot be decoded")
	// ErrDimensions means a side is 0 or over MaxSide, or the pixel count
	// is over MaxPixels.
	ErrDimensions = errors.New("image dimensions are out of range")
	// ErrDecodeMemory means decoding the image would take more than
	// MaxDecodeBytes.
	ErrDecodeMemory = errors.New("image would need too much memory to decode")
	// ErrAspectRatio means one side is more than MaxAspect times the
	// other.
	ErrAspectRatio = errors.New("image aspect ratio is out of range")
)

var (
	jpegMagic = []byte{0xFF, 0xD8, 0xFF}
	pngMagic  = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}
)

// SniffLen is how many leading bytes Sniff needs to recognise every
// accepted format; fetch at least this many when checking an object's head.
const SniffLen = 8

// Sniff identifies a JPEG or PNG from the first bytes of a file by magic
// number only; it reports ok false for anything else, including a head too
// short to tell. It never trusts file names or declared content types,
// which the uploader controls.
func Sniff(head []byte) (format string, ok bool) {
	switch {
	case bytes.HasPrefix(head, pngMagic):
		return FormatPNG, true
	case bytes.HasPrefix(head, jpegMagic):
		return FormatJPEG, true
	default:
		return "", false
	}
}

// ContentType returns the MIME type for a format returned by Sniff or
// Verify, or "application/octet-stream" for anything else.
func ContentType(format string) string {
	switch format {
	case FormatJPEG:
		return "image/jpeg"
	case FormatPNG:
		return "image/png"
	default:
		return "application/octet-stream"
	}
}

// CheckHead is the cheap first-use check of a stored object, done from its
// stat and first SniffLen bytes before downloading it: size in 1..MaxBytes
// and JPEG or PNG magic. It returns the format, or an error wrapping
// ErrEmpty, ErrTooLarge or ErrNotImage.
func CheckHead(size int64, head []byte) (format string, err error) {
	switch {
	case size <= 0:
		return "", ErrEmpty
	case size > MaxBytes:
		return "", fmt.Errorf("%w (%d bytes)", ErrTooLarge, size)
	}
	format, ok := Sniff(head)
	if !ok {
		return "", ErrNotImage
	}
	return format, nil
}

// Header is what an image's headers promise, read without decoding a
// pixel.
type Header struct {
	// Format is FormatJPEG or FormatPNG.
	Format        string
	Width, Height int
	// DecodeBytes estimates what the standard decoder allocates for the
	// pixels: the output image at its real sample size (16-bit PNG takes 8
	// bytes a pixel), plus the pass images of an interlaced PNG and the
	// coefficients a progressive JPEG keeps (4 bytes a sample).
	DecodeBytes int64
}

// ReadHeader is the cheap part of Verify: it refuses, in order, an empty
// file (ErrEmpty), one over MaxBytes (ErrTooLarge), one without JPEG or PNG
// magic (ErrNotImage), one whose header cannot be read (ErrUndecodable),
// out-of-range dimensions (ErrDimensions), a shape beyond MaxAspect
// (ErrAspectRatio) and a decode over MaxDecodeBytes (ErrDecodeMemory). Nothing is allocated for pixels, so callers can
// budget memory with DecodeBytes before calling Decode.
func ReadHeader(data []byte) (Header, error) {
	format, err := CheckHead(int64(len(data)), data)
	if err != nil {
		return Header{}, err
	}
	// The format's own decoder is called rather than image.Decode, so that
	// a format registered by some other import can never slip through.
	decodeConfig := jpeg.DecodeConfig
	if format == FormatPNG {
		decodeConfig = png.DecodeConfig
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return Header{}, fmt.Errorf("%w: %w", ErrUndecodable, err)
	}
	if err := checkDimensions(cfg.Width, cfg.Height); err != nil {
		return Header{}, err
	}
	h := Header{Format: format, Width: cfg.Width, Height: cfg.Height}
	if format == FormatPNG {
		h.DecodeBytes = pngDecodeBytes(data, cfg)
	} else if h.DecodeBytes, err = jpegDecodeBytes(data, cfg); err != nil {
		return Header{}, err
	}
	if h.DecodeBytes > MaxDecodeBytes {
		return Header{}, fmt.Errorf("%w: %d MB (at most %d MB; 16-bit, interlaced and progressive images need more per pixel)",
			ErrDecodeMemory, h.DecodeBytes/1_000_000, MaxDecodeBytes/1_000_000)
	}
	return h, nil
}

// Decode decodes data whose header ReadHeader accepted as h. It refuses
// corrupt pixel data, and pixel data that disagrees with the header, with
// ErrUndecodable.
func Decode(data []byte, h Header) (image.Image, error) {
	decode := jpeg.Decode
	if h.Format == FormatPNG {
		decode = png.Decode
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUndecodable, err)
	}
	if b := img.Bounds(); b.Dx() != h.Width || b.Dy() != h.Height {
		// Header and pixel data disagree: treat as corrupt rather than
		// hand a caller dimensions it was not promised.
		return nil, fmt.Errorf("%w: decoded %dx%d, header says %dx%d",
			ErrUndecodable, b.Dx(), b.Dy(), h.Width, h.Height)
	}
	return img, nil
}

// Verify fully checks an uploaded file and returns the decoded image and
// its format: ReadHeader, then Decode.
func Verify(data []byte) (image.Image, string, error) {
	h, err := ReadHeader(data)
	if err != nil {
		return nil, "", err
	}
	img, err := Decode(data, h)
	if err != nil {
		return nil, "", err
	}
	return img, h.Format, nil
}

func checkDimensions(w, h int) error {
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide || w*h > MaxPixels {
		return fmt.Errorf("%w: %dx%d (each side 1..%d, at most %d pixels)",
			ErrDimensions, w, h, MaxSide, MaxPixels)
	}
	if max(w, h) > MaxAspect*min(w, h) {
		return fmt.Errorf("%w: %dx%d (the longer side at most %d times the shorter)",
			ErrAspectRatio, w, h, MaxAspect)
	}
	return nil
}
