// Package imagecheck is the shared gate for user-uploaded images. Every
// service that takes an image a client uploaded (faces, styles, brand
// assets, thumbnail references) runs it through here before anything else
// touches it, so all of them accept and refuse exactly the same files:
// JPEG or PNG, at most 5 MB, with sane dimensions, and fully decodable.
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

// Verify fully checks an uploaded file and returns the decoded image and
// its format. In order, it refuses: an empty file (ErrEmpty), one over
// MaxBytes (ErrTooLarge), one without JPEG or PNG magic (ErrNotImage), one
// whose header cannot be read (ErrUndecodable), one whose header declares
// out-of-range dimensions (ErrDimensions; checked before decoding so that a
// decompression bomb allocates nothing), and one whose pixel data cannot be
// decoded (ErrUndecodable).
func Verify(data []byte) (image.Image, string, error) {
	format, err := CheckHead(int64(len(data)), data)
	if err != nil {
		return nil, "", err
	}
	decodeConfig, decode := jpeg.DecodeConfig, jpeg.Decode
	if format == FormatPNG {
		decodeConfig, decode = png.DecodeConfig, png.Decode
	}
	// The format's own decoder is called rather than image.Decode, so that
	// a format registered by some other import can never slip through.
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrUndecodable, err)
	}
	if err := checkDimensions(cfg.Width, cfg.Height); err != nil {
		return nil, "", err
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrUndecodable, err)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		// Header and pixel data disagree: treat as corrupt rather than
		// hand a caller dimensions it was not promised.
		return nil, "", fmt.Errorf("%w: decoded %dx%d, header says %dx%d",
			ErrUndecodable, b.Dx(), b.Dy(), cfg.Width, cfg.Height)
	}
	return img, format, nil
}

func checkDimensions(w, h int) error {
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide || w*h > MaxPixels {
		return fmt.Errorf("%w: %dx%d (each side 1..%d, at most %d pixels)",
			ErrDimensions, w, h, MaxSide, MaxPixels)
	}
	return nil
}
