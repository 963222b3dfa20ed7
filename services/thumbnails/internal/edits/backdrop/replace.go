package backdrop

import (
	"image"

	"hookline.dev/services/thumbnails/internal/edits/plane"
)

// Light wrap: a subject placed on a new background looks pasted when its
// edges keep the old light. Within a few pixels of its outline, part of
// the new background (blurred) is mixed into the subject, fading to
// nothing where the subject is solid over the whole window.
const (
	// wrapFraction is the wrap's width as a fraction of the longer side.
	wrapFraction = 0.008
	// wrapStrength is the share of background light right at the outline.
	wrapStrength = 0.45
)

// Replace composes the cut-out over the background drawn at its size and
// returns the opaque result, with cut's bounds. Where cut is transparent
// the result is the background; where it is opaque over a whole light-wrap
// window it is the cut-out's colour unchanged.
func Replace(cut *image.NRGBA, bg Background) *image.NRGBA {
	w, h := cut.Rect.Dx(), cut.Rect.Dy()
	back := bg.Render(w, h)
	out := image.NewNRGBA(cut.Rect)
	if w == 0 || h == 0 {
		return out
	}
	r := max(1, int(wrapFraction*float64(max(w, h))+0.5))
	alpha := plane.New(w, h)
	for y := range h {
		row := cut.Pix[y*cut.Stride:]
		for x := range w {
			alpha.V[y*w+x] = float32(row[4*x+3]) / 255
		}
	}
	cover := plane.BoxMean(alpha, r)
	light := plane.Channels(back)
	for c := range 3 {
		light[c] = plane.BoxMean(light[c], r)
	}
	for y := range h {
		src := cut.Pix[y*cut.Stride:]
		bk := back.Pix[y*back.Stride:]
		dst := out.Pix[y*out.Stride:]
		for x := range w {
			i := y*w + x
			a := alpha.V[i]
			s, b, d := src[4*x:4*x+4:4*x+4], bk[4*x:4*x+4:4*x+4], dst[4*x:4*x+4:4*x+4]
			d[3] = 255
			if a == 0 {
				d[0], d[1], d[2] = b[0], b[1], b[2]
				continue
			}
			wrap := wrapStrength * (1 - cover.V[i])
			for c := range 3 {
				f := float32(s[c])*(1-wrap) + 255*light[c].V[i]*wrap
				v := a*f + (1-a)*float32(b[c])
				d[c] = uint8(min(max(v, 0), 255) + 0.5)
			}
		}
	}
	return out
}
