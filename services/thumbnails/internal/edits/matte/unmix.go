package matte

import (
	"image"
	"math"

	"hookline.dev/services/thumbnails/internal/edits/plane"
)

// unmix builds the cut-out from the picture and its alpha. At the edge a
// pixel's colour I is a blend αF + (1−α)B of the subject's colour F and
// the old background's B; keeping I would carry a fringe of the old
// background onto the new one. B is estimated as the mean of the nearby
// pure background, and F solved from the blend; where that is unstable
// (α small) F leans on the nearby pure subject colour. r is the radius of
// the window searched for pure colours. Pixels whose side is known (nil:
// none) keep their alpha.
func unmix(full *image.RGBA, alpha plane.Plane, r int, known []label) *image.NRGBA {
	w, h := alpha.W, alpha.H
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	// The means are only needed around the edge pixels.
	edge := image.Rectangle{}
	for y := range h {
		for x, a := range alpha.V[y*w : (y+1)*w] {
			if a > 0 && a < 1 {
				edge = edge.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	area := edge.Inset(-r - 1).Intersect(image.Rect(0, 0, w, h))
	var m bandMeans
	for y := range h {
		if y >= area.Min.Y && y < area.Max.Y && y >= m.rows.Max.Y {
			m = meansOf(full, alpha, area, y, r)
		}
		src := full.Pix[y*full.Stride:]
		dst := out.Pix[y*out.Stride:]
		for x := range w {
			a := alpha.V[y*w+x]
			s, d := src[4*x:4*x+4:4*x+4], dst[4*x:4*x+4:4*x+4]
			j := -1
			if image.Pt(x, y).In(area) {
				j = (y-m.ext.Min.Y)*m.ext.Dx() + x - m.ext.Min.X
				if m.fgWeight.V[j] >= minShare && m.bgWeight.V[j] >= minShare && (known == nil || known[y*w+x] == free) {
					a = colourLineAlpha(a, s, m.fg, m.bg, j)
				}
			}
			if a <= 0 {
				// Transparent: colour carries nothing, and zeros compress.
				continue
			}
			d[0], d[1], d[2], d[3] = s[0], s[1], s[2], uint8(a*255+0.5)
			if a >= 1 || j < 0 || m.bgWeight.V[j] == 0 {
				continue // solid, or no pure background nearby to unmix from
			}
			for c := range 3 {
				f := (float32(s[c]) - (1-a)*m.bg[c].V[j]) / a
				if m.fgWeight.V[j] > 0 && a < 0.5 {
					t := a / 0.5
					f = t*f + (1-t)*m.fg[c].V[j]
				}
				d[c] = uint8(min(max(f, 0), 255) + 0.5)
			}
		}
	}
	return out
}

// unmixRows is how many rows of the edge area get their colour means at a
// time. The means take about 48 bytes a pixel while they are computed, so
// over the whole area of a subject that fills a 40 MP frame they would
// outweigh the picture several times; a band of rows costs a few rows of
// that, for recomputing the r rows above and below each band.
const unmixRows = 256

// bandMeans are the colour means of the pure subject and the pure
// background around the pixels of rows, over planes covering ext (rows
// and the r rows either side of them, within the edge area).
type bandMeans struct {
	rows, ext          image.Rectangle
	fg, bg             [3]plane.Plane
	fgWeight, bgWeight plane.Plane
}

// meansOf computes the means of the band of area starting at row y. Every
// window of a row in the band lies within ext, and ext is cut by area's
// edges exactly where the windows are, so the means are those of the whole
// area's.
func meansOf(full *image.RGBA, alpha plane.Plane, area image.Rectangle, y, r int) bandMeans {
	m := bandMeans{rows: image.Rect(area.Min.X, y, area.Max.X, min(y+unmixRows, area.Max.Y))}
	m.ext = image.Rect(area.Min.X, max(area.Min.Y, y-r), area.Max.X, min(area.Max.Y, m.rows.Max.Y+r))
	m.fg, m.fgWeight = weightedMeans(full, alpha, m.ext, r, func(a float32) bool { return a >= 0.995 })
	m.bg, m.bgWeight = weightedMeans(full, alpha, m.ext, r, func(a float32) bool { return a <= 0.005 })
	return m
}

// minShare is the least fraction of an edge pixel's window that pure
// subject and pure background must each fill for its alpha to be
// re-estimated from their colours.
const minShare = 0.1

// colourLineAlpha re-estimates an edge pixel's alpha a from its colour s:
// where the nearby pure subject F and background B differ clearly, the
// pixel's position between them along the line B→F is its alpha. This
// catches what the guided filter leaves: a rim of pixels that are mostly
// old background but got alpha near 1, which would show as a halo.
func colourLineAlpha(a float32, s []uint8, fg, bg [3]plane.Plane, j int) float32 {
	var dot, n2 float32
	for c := range 3 {
		d := fg[c].V[j] - bg[c].V[j]
		dot += (float32(s[c]) - bg[c].V[j]) * d
		n2 += d * d
	}
	// Confidence grows with the contrast between the two colours, in
	// 8-bit units.
	conf := float32(smoothstep((math.Sqrt(float64(n2)) - 24) / 48))
	if conf == 0 {
		return a
	}
	line := min(max(dot/n2, 0), 1)
	return a + conf*(line-a)
}

// weightedMeans is, per pixel of area, the mean colour of the pixels in
// its window (within area) whose alpha passes keep, and the fraction of
// the window they fill (0: none, the mean is meaningless). The planes
// cover area, origin at its corner.
func weightedMeans(full *image.RGBA, alpha plane.Plane, area image.Rectangle, r int, keep func(float32) bool) ([3]plane.Plane, plane.Plane) {
	w, h := area.Dx(), area.Dy()
	weight := plane.New(w, h)
	var sums [3]plane.Plane
	for c := range 3 {
		sums[c] = plane.New(w, h)
	}
	for y := range h {
		pix := full.Pix[(y+area.Min.Y)*full.Stride+4*area.Min.X:]
		for x := range w {
			i := y*w + x
			if keep(alpha.V[(y+area.Min.Y)*alpha.W+x+area.Min.X]) {
				weight.V[i] = 1
				for c := range 3 {
					sums[c].V[i] = float32(pix[4*x+c])
				}
			}
		}
	}
	weight = plane.BoxMean(weight, r)
	for c := range 3 {
		sums[c] = plane.BoxMean(sums[c], r)
		for i, wt := range weight.V {
			if wt > 0 {
				sums[c].V[i] /= wt
			}
		}
	}
	return sums, weight
}
