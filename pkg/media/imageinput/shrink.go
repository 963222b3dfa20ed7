package imageinput

import (
	"image"

	"hookline.dev/pkg/media/vision"
)

// shrink returns img box-filtered so that its longer side is at most
// maxSide, or img itself when it is small enough (or maxSide ≤ 0). The
// result is an *image.RGBA at the origin, made a strip of rows at a time
// (vision.RGBA8): the full-size picture is never copied.
func shrink(img image.Image, maxSide int) image.Image {
	b := img.Bounds()
	if maxSide <= 0 || max(b.Dx(), b.Dy()) <= maxSide || b.Empty() {
		return img
	}
	return vision.RGBA8(img, maxSide)
}
