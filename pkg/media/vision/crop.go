package vision

import (
	"image"
	"image/draw"
	"math"

	"hookline.dev/pkg/media/colour"
)

// cropMargin is how much larger than the face the crop is: 1.6× brings in
// hair, ears and some neck, which is what a face thumbnail is expected to
// show. On the evaluation portraits framed by their landmarks, 1.5 already
// cuts the astronaut's hair and the camera man's chin (which the landmarks
// place too high on his turned face); 1.7 shrinks the faces for nothing
// more.
const cropMargin = 1.6

// hullForehead lifts the brows of a face's outline to the hairline, as the
// cut-outs do (Landmarks.Hull).
const hullForehead = 0.35

// SquareCrop returns a size×size thumbnail of the face f in img: a square
// about 1.6 times the face's outline from chin to hairline when f carries
// landmarks, else 1.6 times its box, centred on the face, slid (never
// squashed) to stay inside the image and shrunk if the image is too small
// to hold it. The result is an *image.RGBA with bounds (0,0)-(size,size).
//
// If f does not overlap img the centre square of img is used instead, so a
// stale face never yields an empty thumbnail. A non-positive size or an
// empty image yields an empty image.
func SquareCrop(img image.Image, f Face, size int) image.Image {
	if img == nil || size <= 0 {
		return image.NewRGBA(image.Rectangle{})
	}
	b := img.Bounds()
	if b.Empty() {
		return image.NewRGBA(image.Rectangle{})
	}
	r := cropSquare(b, f)
	src := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	// draw.Draw has fast paths for every decoder output type and yields
	// premultiplied pixels, the correct space to average in.
	draw.Draw(src, src.Bounds(), img, r.Min, draw.Src)
	return resizeSquare(src, size)
}

// cropSquare is the square of the non-empty bounds b that SquareCrop
// shows of f. With landmarks the face is its outline from chin to
// hairline, which follows the face where a detector's box may sit on a
// turned face's cheek or take in what the face is next to; without, the
// detector's box, which hugs brows to chin.
func cropSquare(b image.Rectangle, f Face) image.Rectangle {
	limit := min(b.Dx(), b.Dy())
	face := f.Rect
	if f.Landmarks != nil {
		face = outline(f.Landmarks.Hull(hullForehead))
	}
	var cx, cy, side int
	if r := face.Intersect(b); r.Empty() {
		cx, cy, side = (b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2, limit
	} else {
		cx, cy = (r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2
		side = int(math.Ceil(cropMargin * float64(max(face.Dx(), face.Dy()))))
	}
	side = max(1, min(side, limit))
	x0 := clamp(cx-side/2, b.Min.X, b.Max.X-side)
	y0 := clamp(cy-side/2, b.Min.Y, b.Max.Y-side)
	return image.Rect(x0, y0, x0+side, y0+side)
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// tap is one source sample contributing to an output pixel.
type tap struct {
	idx int
	w   float32
}

// filterTaps returns, for each of dst output positions along one axis, the
// source samples and weights to blend. Shrinking uses exact area coverage
// (a box filter), which avoids the aliasing bilinear sampling shows when
// reducing a photo several times; enlarging uses bilinear interpolation,
// where a box filter would look blocky.
func filterTaps(src, dst int) [][]tap {
	taps := make([][]tap, dst)
	scale := float64(src) / float64(dst)
	if scale >= 1 {
		for i := range dst {
			lo, hi := float64(i)*scale, float64(i+1)*scale
			first, last := int(math.Floor(lo)), min(src, int(math.Ceil(hi)))
			for j := first; j < last; j++ {
				cover := math.Min(hi, float64(j+1)) - math.Max(lo, float64(j))
				if cover > 0 {
					taps[i] = append(taps[i], tap{idx: j, w: float32(cover / scale)})
				}
			}
		}
		return taps
	}
	for i := range dst {
		pos := (float64(i)+0.5)*scale - 0.5
		j := int(math.Floor(pos))
		t := float32(pos - float64(j))
		j0, j1 := clamp(j, 0, src-1), clamp(j+1, 0, src-1)
		taps[i] = []tap{{idx: j0, w: 1 - t}, {idx: j1, w: t}}
	}
	return taps
}

// resizeSquare resamples a square RGBA image whose bounds start at the
// origin to size×size, separably: rows first into a float buffer, then
// columns.
func resizeSquare(src *image.RGBA, size int) *image.RGBA {
	n := src.Rect.Dx()
	dst := image.NewRGBA(image.Rect(0, 0, size, size))
	if n == size {
		copy(dst.Pix, src.Pix)
		return dst
	}
	taps := filterTaps(n, size)

	// tmp holds n rows of size pixels, 4 channels each.
	tmp := make([]float32, n*size*4)
	for y := range n {
		row := src.Pix[y*src.Stride:]
		out := tmp[y*size*4:]
		for x, ts := range taps {
			var r, g, b, a float32
			for _, t := range ts {
				p := row[4*t.idx:]
				r += t.w * float32(p[0])
				g += t.w * float32(p[1])
				b += t.w * float32(p[2])
				a += t.w * float32(p[3])
			}
			out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = r, g, b, a
		}
	}
	for y, ts := range taps {
		out := dst.Pix[y*dst.Stride:]
		for x := range size {
			var r, g, b, a float32
			for _, t := range ts {
				p := tmp[(t.idx*size+x)*4:]
				r += t.w * p[0]
				g += t.w * p[1]
				b += t.w * p[2]
				a += t.w * p[3]
			}
			// Premultiplied colour may not exceed alpha; rounding error
			// could otherwise make an invalid RGBA pixel.
			a8 := colour.Byte(a)
			out[4*x] = min(colour.Byte(r), a8)
			out[4*x+1] = min(colour.Byte(g), a8)
			out[4*x+2] = min(colour.Byte(b), a8)
			out[4*x+3] = a8
		}
	}
	return dst
}
