package adjust

import (
	"fmt"

	"github.com/davidbyttow/govips/v2/vips"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/encode"
)

// MaxOutputPixels caps an upscale's result: 40 MP is a 4× upscale of
// about 1580×1580, far past any thumbnail, and what one request may make
// the service hold and encode.
const MaxOutputPixels = 40_000_000

// CheckUpscale is the 400 naming scale when a w×h picture enlarged by
// scale (2 or 4) would exceed MaxOutputPixels or the scale is neither;
// nil otherwise.
func CheckUpscale(w, h, scale int) error {
	if scale != 2 && scale != 4 {
		return apierr.Field("scale", `must be "2x" or "4x"`)
	}
	if w <= 0 || h <= 0 {
		return apierr.Field("imageUrl", "the picture is empty")
	}
	if out := int64(w) * int64(h) * int64(scale*scale); out > MaxOutputPixels {
		return apierr.Field("scale", fmt.Sprintf("%dx of a %d×%d picture would be %d×%d (%.1f MP), above the %d MP limit",
			scale, w, h, w*scale, h*scale, float64(out)/1e6, MaxOutputPixels/1_000_000))
	}
	return nil
}

// Sharpening after the enlargement, as libvips' selective unsharp mask on
// L* (vips_sharpen). It is edge-aware: differences below sharpenFlat (in
// L* units) are flat areas and noise and are left alone, larger ones are
// edges and get steepened with slope sharpenEdge. The mask's sigma grows
// with the scale, because an edge is blurred over about as many pixels as
// it was enlarged.
const (
	sharpenSigmaPerScale = 0.5
	sharpenFlat          = 2
	sharpenEdge          = 2
)

// Upscale enlarges an encoded JPEG or PNG scale times (2 or 4) with
// libvips' resize asked for the Lanczos3 kernel, then sharpens its edges,
// all in libvips in one streaming pass, and returns the same format (a PNG
// keeps its transparency; govips resizes it premultiplied, so no dark
// fringe grows along transparent edges). A picture too large to enlarge
// gets CheckUpscale's error.
//
// libvips 8.14, the version the service is built against, uses the
// kernel only to shrink: it enlarges through its bicubic interpolator
// whatever kernel is asked (measured: Lanczos3 and cubic give identical
// pixels). A true Lanczos3 enlargement would have to run in Go over whole
// frames, and a 4× result is up to 40 MP.
func Upscale(data []byte, scale int) (encode.Picture, error) {
	ref, typ, err := load(data)
	if err != nil {
		return encode.Picture{}, err
	}
	defer ref.Close()
	if err := CheckUpscale(ref.Width(), ref.Height(), scale); err != nil {
		return encode.Picture{}, err
	}
	if err := toSRGB8(ref); err != nil {
		return encode.Picture{}, err
	}
	if err := ref.Resize(float64(scale), vips.KernelLanczos3); err != nil {
		return encode.Picture{}, fmt.Errorf("edit: enlarge: %w", err)
	}
	if err := ref.Sharpen(sharpenSigmaPerScale*float64(scale), sharpenFlat, sharpenEdge); err != nil {
		return encode.Picture{}, fmt.Errorf("edit: sharpen: %w", err)
	}
	if err := toSRGB8(ref); err != nil {
		return encode.Picture{}, err
	}
	return export(ref, typ)
}
