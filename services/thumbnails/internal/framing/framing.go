// Package framing crops a picture to a shape around what matters in it:
// the faces when there are any (all of them when they fit, else the
// largest), otherwise the centre of its spectral-residual saliency. The
// crop is the largest window of that shape; its pixels are the source's,
// never resampled.
package framing

import (
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/vision"
)

// Ratio is the width/height of an aspect ratio name ("16:9", "9:16").
func Ratio(aspect string) float64 {
	if aspect == "9:16" {
		return 9.0 / 16
	}
	return 16.0 / 9
}

// Crop returns the largest crop of img with the aspect ("16:9" or "9:16")
// around the faces or, without faces, the saliency (vision.Saliency of img).
func Crop(img image.Image, aspect string, faces []vision.Face, saliency []float64) *image.NRGBA {
	r := Window(img.Bounds(), Ratio(aspect), faces, saliency)
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

// Window is the largest rectangle inside b with width/height ratio,
// placed so that what matters is inside it and as central as it can be.
func Window(b image.Rectangle, ratio float64, faces []vision.Face, saliency []float64) image.Rectangle {
	w, h := b.Dx(), b.Dy()
	cw, ch := w, int(math.Round(float64(w)/ratio))
	if float64(w)/float64(h) > ratio {
		cw, ch = int(math.Round(float64(h)*ratio)), h
	}
	cw, ch = max(1, min(cw, w)), max(1, min(ch, h))
	cx, cy := focus(b, faces, saliency, cw, ch)
	x0 := min(max(int(math.Round(cx))-cw/2, b.Min.X), b.Max.X-cw)
	y0 := min(max(int(math.Round(cy))-ch/2, b.Min.Y), b.Max.Y-ch)
	return image.Rect(x0, y0, x0+cw, y0+ch)
}

// focus is the point the window centres on: the centre of all faces when
// they fit in a cw×ch window, else the largest face's; without faces the
// saliency centroid (the map squared, so the peaks dominate); without
// either the centre of b.
func focus(b image.Rectangle, faces []vision.Face, saliency []float64, cw, ch int) (float64, float64) {
	if len(faces) > 0 {
		all := faces[0].Rect
		largest := faces[0].Rect
		for _, f := range faces[1:] {
			all = all.Union(f.Rect)
			if f.Rect.Dx()*f.Rect.Dy() > largest.Dx()*largest.Dy() {
				largest = f.Rect
			}
		}
		pick := largest
		if all.Dx() <= cw && all.Dy() <= ch {
			pick = all
		}
		return float64(pick.Min.X+pick.Max.X) / 2, float64(pick.Min.Y+pick.Max.Y) / 2
	}
	n := vision.SaliencySize
	if len(saliency) == n*n {
		var sx, sy, sw float64
		for y := range n {
			for x := range n {
				v := saliency[y*n+x] * saliency[y*n+x]
				sx += v * (float64(x) + 0.5)
				sy += v * (float64(y) + 0.5)
				sw += v
			}
		}
		if sw > 0 {
			return float64(b.Min.X) + sx/sw*float64(b.Dx())/float64(n), float64(b.Min.Y) + sy/sw*float64(b.Dy())/float64(n)
		}
	}
	return float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2
}
