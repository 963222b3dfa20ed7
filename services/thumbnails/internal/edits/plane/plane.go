// Package plane holds single-channel float images and the few filters
// on them that the cut-out (matte) and the backdrops share: window means,
// bilinear resampling and the split of a picture into colour channels.
package plane

import (
	"image"

	"hookline.dev/pkg/media/imaging"
)

// Plane is a single-channel float image of W×H values, row by row.
type Plane struct {
	W, H int
	V    []float32
}

// New is a W×H plane of zeros.
func New(w, h int) Plane { return Plane{W: w, H: h, V: make([]float32, w*h)} }

// Channels splits an RGBA image into R, G, B planes in 0..1.
func Channels(img *image.RGBA) [3]Plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var out [3]Plane
	for c := range 3 {
		out[c] = New(w, h)
	}
	for y := range h {
		pix := img.Pix[y*img.Stride:]
		for x := range w {
			i := y*w + x
			out[0].V[i] = float32(pix[4*x]) / 255
			out[1].V[i] = float32(pix[4*x+1]) / 255
			out[2].V[i] = float32(pix[4*x+2]) / 255
		}
	}
	return out
}

// BoxMean averages each pixel's (2r+1)² window, clipped at the borders:
// imaging.BoxMean over the plane.
func BoxMean(p Plane, r int) Plane {
	return Plane{W: p.W, H: p.H, V: imaging.BoxMean(p.V, p.W, p.H, r)}
}

// Resampler samples a sw×sh plane bilinearly at the pixel centres of a
// dw×dh grid, one output row at a time.
type Resampler struct {
	sw, sh, dw, dh int
	x0, x1         []int
	fx             []float32
}

// NewResampler prepares the sampling of a sw×sh plane at dw×dh.
func NewResampler(sw, sh, dw, dh int) Resampler {
	r := Resampler{sw: sw, sh: sh, dw: dw, dh: dh, x0: make([]int, dw), x1: make([]int, dw), fx: make([]float32, dw)}
	for x := range dw {
		u := min(max((float64(x)+0.5)*float64(sw)/float64(dw)-0.5, 0), float64(sw-1))
		r.x0[x] = int(u)
		r.x1[x] = min(r.x0[x]+1, sw-1)
		r.fx[x] = float32(u - float64(r.x0[x]))
	}
	return r
}

// Row writes destination row y of p into out.
func (r Resampler) Row(p Plane, y int, out []float32) {
	v := min(max((float64(y)+0.5)*float64(r.sh)/float64(r.dh)-0.5, 0), float64(r.sh-1))
	y0 := int(v)
	y1 := min(y0+1, r.sh-1)
	fy := float32(v - float64(y0))
	top, bot := p.V[y0*r.sw:(y0+1)*r.sw], p.V[y1*r.sw:(y1+1)*r.sw]
	for x := range r.dw {
		a, b, f := r.x0[x], r.x1[x], r.fx[x]
		t := top[a] + (top[b]-top[a])*f
		u := bot[a] + (bot[b]-bot[a])*f
		out[x] = t + (u-t)*fy
	}
}

// Resize resamples p bilinearly to w×h.
func Resize(p Plane, w, h int) Plane {
	out := New(w, h)
	r := NewResampler(p.W, p.H, w, h)
	for y := range h {
		r.Row(p, y, out.V[y*w:(y+1)*w])
	}
	return out
}
