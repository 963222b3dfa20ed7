package compose

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of input pictures

	"github.com/davidbyttow/govips/v2/vips"
)

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

// coverUpTo is thumb into Go memory, at w×h or, for a smaller picture,
// the largest crop of it with that shape: libvips shrinks on load, but it
// enlarges slowly on one thread, and a face crop (256 px from the assets
// service) is usually drawn larger. enlarge finishes the job.
func coverUpTo(data []byte, w, h int, keepAlpha bool) (*image.RGBA, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width >= w && cfg.Height >= h {
		// A header Go cannot read is libvips' to judge.
		return thumbRGBA(data, w, h, keepAlpha)
	}
	k := min(float64(cfg.Width)/float64(w), float64(cfg.Height)/float64(h))
	return thumbRGBA(data, max(1, int(float64(w)*k)), max(1, int(float64(h)*k)), keepAlpha)
}

// enlarge scales img up to w×h bilinearly (img itself when it is that
// size already), in fixed point: x/image/draw's general kernel costs
// much more for the same result.
func enlarge(img *image.RGBA, w, h int) *image.RGBA {
	sw, sh := img.Rect.Dx(), img.Rect.Dy()
	if sw == w && sh == h {
		return img
	}
	big := image.NewRGBA(image.Rect(0, 0, w, h))
	// Per output column: the left source column and the right one's
	// weight out of 256.
	x0s, fxs := make([]int, w), make([]uint32, w)
	for x := range w {
		sx := min(max((float64(x)+0.5)*float64(sw)/float64(w)-0.5, 0), float64(sw-1))
		x0s[x] = int(sx)
		fxs[x] = uint32((sx - float64(int(sx))) * 256)
	}
	for y := range h {
		sy := min(max((float64(y)+0.5)*float64(sh)/float64(h)-0.5, 0), float64(sh-1))
		y0 := int(sy)
		y1 := min(y0+1, sh-1)
		fy := uint32((sy - float64(y0)) * 256)
		top, bot := img.Pix[y0*img.Stride:], img.Pix[y1*img.Stride:]
		out := big.Pix[y*big.Stride:]
		for x := range w {
			a := x0s[x] * 4
			b := min(x0s[x]+1, sw-1) * 4
			fx := fxs[x]
			for k := 0; k < 4; k++ {
				t := uint32(top[a+k])*(256-fx) + uint32(top[b+k])*fx
				u := uint32(bot[a+k])*(256-fx) + uint32(bot[b+k])*fx
				out[x*4+k] = uint8((t*(256-fy) + u*fy) >> 16) //nolint:gosec // G115: weights sum to 1<<16, so the mean of 8-bit samples
			}
		}
	}
	return big
}

func thumbRGBA(data []byte, w, h int, keepAlpha bool) (*image.RGBA, error) {
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
			d[0], d[1], d[2], d[3] = premul(s[0], s[3]), premul(s[1], s[3]), premul(s[2], s[3]), s[3]
		}
		return img, nil
	}
	for i := 0; i < w*h; i++ {
		s, d := raw[i*3:i*3+3:i*3+3], img.Pix[i*4:i*4+4:i*4+4]
		d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 255
	}
	return img, nil
}

// premul is v scaled by alpha a.
func premul(v, a uint8) uint8 {
	return uint8(uint32(v) * uint32(a) / 255) //nolint:gosec // G115: product of two 8-bit values over 255
}
