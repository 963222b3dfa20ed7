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
	for y0 := 0; y0 < h; y0 += replaceRows {
		wrapBand(out, cut, back, y0, min(y0+replaceRows, h), r)
	}
	return out
}

// replaceRows is how many rows are composed at a time. The wrap's window
// means take about 40 bytes a pixel while they are computed; over a
// whole 40 MP picture they would outweigh the picture several times, so
// they are computed for a band of rows (and the r rows either side that
// its windows reach) at a time.
const replaceRows = 256

// wrapBand composes rows y0..y1 of out. Its planes cover those rows and
// the r rows either side within the picture: every window of a row in
// the band lies within them, cut by the picture's edges where the
// picture's own windows are, so the band's means are the whole picture's.
func wrapBand(out, cut *image.NRGBA, back *image.RGBA, y0, y1, r int) {
	w, h := cut.Rect.Dx(), cut.Rect.Dy()
	top, bottom := max(0, y0-r), min(h, y1+r)
	alpha := plane.New(w, bottom-top)
	for y := top; y < bottom; y++ {
		row := cut.Pix[y*cut.Stride:]
		for x := range w {
			alpha.V[(y-top)*w+x] = float32(row[4*x+3]) / 255
		}
	}
	cover := plane.BoxMean(alpha, r)
	light := plane.Channels(back.SubImage(image.Rect(0, top, w, bottom)).(*image.RGBA)) // an *image.RGBA's sub-image is one
	for c := range 3 {
		light[c] = plane.BoxMean(light[c], r)
	}
	for y := y0; y < y1; y++ {
		src := cut.Pix[y*cut.Stride:]
		bk := back.Pix[y*back.Stride:]
		dst := out.Pix[y*out.Stride:]
		for x := range w {
			i := (y-top)*w + x
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
}
