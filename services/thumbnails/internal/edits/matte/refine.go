package matte

import (
	"image"
	"math"

	"hookline.dev/pkg/imaging"
	"hookline.dev/pkg/vision"
)

// Edge refinement: the working grid's hard labels are blocky at full
// size, so a band around their boundary is re-estimated with a guided
// filter (He, Sun and Tang, 2013) whose guide is the picture itself: in
// each small window alpha is a linear function of the colour, which snaps
// the edge to where the colours change and keeps soft transitions (hair,
// blur) soft. It runs on an intermediate resolution and its linear
// coefficients are upsampled ("fast guided filter", He and Sun, 2015),
// which costs a quarter as much for nearly the same edges.
const (
	// guideFactor is the intermediate resolution relative to the working
	// grid.
	guideFactor = 2
	// guideRadius is the filter window's radius in working-grid pixels: a
	// little more than the label's uncertainty of about one such pixel.
	guideRadius = 2.0
	// guideEps is the filter's regulariser on 0..1 colours: windows whose
	// colour variance is below it keep the coarse alpha instead of
	// following colour noise.
	guideEps = 2e-3
	// bandRadius bounds, in working-grid pixels, how far from the cut the
	// refined alpha replaces the labels: deeper inside either side the
	// labels stand, so texture far from the edge cannot leak through.
	bandRadius = 2
)

// plane is a single-channel float image.
type plane struct {
	w, h int
	v    []float32
}

func newPlane(w, h int) plane { return plane{w: w, h: h, v: make([]float32, w*h)} }

// refineAlpha turns the labels of the w×h working grid into an alpha
// plane the size of full.
func refineAlpha(full *image.RGBA, fg []bool, w, h int) plane {
	fw, fh := full.Rect.Dx(), full.Rect.Dy()
	coarse := newPlane(w, h)
	for i, v := range fg {
		if v {
			coarse.v[i] = 1
		}
	}
	near := boxMean(coarse, bandRadius)
	band := newPlane(w, h)
	for i, v := range near.v {
		if v > 0 && v < 1 {
			band.v[i] = 1
		}
	}

	midSide := min(max(fw, fh), guideFactor*max(w, h))
	mid := vision.RGBA8(full, midSide)
	guide := colourPlanes(mid)
	p := resize(coarse, guide[0].w, guide[0].h)
	radius := max(1, int(math.Round(guideRadius*float64(guide[0].w)/float64(w))))
	a, b := guidedCoefficients(guide, p, radius, guideEps)

	alpha := newPlane(fw, fh)
	up := newResampler(guide[0].w, guide[0].h, fw, fh)
	bandUp := newResampler(w, h, fw, fh)
	row := make([]float32, 6*fw)
	ar, ag, ab, br := row[:fw], row[fw:2*fw], row[2*fw:3*fw], row[3*fw:4*fw]
	cr, bw := row[4*fw:5*fw], row[5*fw:]
	for y := range fh {
		up.row(a[0], y, ar)
		up.row(a[1], y, ag)
		up.row(a[2], y, ab)
		up.row(b, y, br)
		bandUp.row(coarse, y, cr)
		bandUp.row(band, y, bw)
		pix := full.Pix[y*full.Stride:]
		out := alpha.v[y*fw : (y+1)*fw]
		for x := range fw {
			q := ar[x]*float32(pix[4*x])/255 + ag[x]*float32(pix[4*x+1])/255 + ab[x]*float32(pix[4*x+2])/255 + br[x]
			v := cr[x] + bw[x]*(q-cr[x])
			out[x] = min(max(v, 0), 1)
		}
	}
	return alpha
}

// guidedCoefficients computes the colour guided filter's per-pixel linear
// model alpha ≈ a·I + b, averaged over the windows that cover each pixel.
func guidedCoefficients(guide [3]plane, p plane, r int, eps float32) ([3]plane, plane) {
	w, h := p.w, p.h
	n := w * h
	var meanI [3]plane
	for c := range 3 {
		meanI[c] = boxMean(guide[c], r)
	}
	meanP := boxMean(p, r)
	var corrIP [3]plane
	for c := range 3 {
		corrIP[c] = boxMean(product(guide[c], p), r)
	}
	// The six distinct entries of the colour covariance.
	var corrII [6]plane
	k := 0
	for c := range 3 {
		for d := c; d < 3; d++ {
			corrII[k] = boxMean(product(guide[c], guide[d]), r)
			k++
		}
	}
	var a [3]plane
	for c := range 3 {
		a[c] = newPlane(w, h)
	}
	b := newPlane(w, h)
	for i := range n {
		mr, mg, mb, mp := meanI[0].v[i], meanI[1].v[i], meanI[2].v[i], meanP.v[i]
		srr := corrII[0].v[i] - mr*mr + eps
		srg := corrII[1].v[i] - mr*mg
		srb := corrII[2].v[i] - mr*mb
		sgg := corrII[3].v[i] - mg*mg + eps
		sgb := corrII[4].v[i] - mg*mb
		sbb := corrII[5].v[i] - mb*mb + eps
		cr := corrIP[0].v[i] - mr*mp
		cg := corrIP[1].v[i] - mg*mp
		cb := corrIP[2].v[i] - mb*mp
		// Σ⁻¹·cov by cofactors (Σ is symmetric).
		i00 := sgg*sbb - sgb*sgb
		i01 := sgb*srb - srg*sbb
		i02 := srg*sgb - sgg*srb
		i11 := srr*sbb - srb*srb
		i12 := srb*srg - srr*sgb
		i22 := srr*sgg - srg*srg
		det := srr*i00 + srg*i01 + srb*i02
		ar := (i00*cr + i01*cg + i02*cb) / det
		ag := (i01*cr + i11*cg + i12*cb) / det
		ab := (i02*cr + i12*cg + i22*cb) / det
		a[0].v[i], a[1].v[i], a[2].v[i] = ar, ag, ab
		b.v[i] = mp - ar*mr - ag*mg - ab*mb
	}
	for c := range 3 {
		a[c] = boxMean(a[c], r)
	}
	return a, boxMean(b, r)
}

// colourPlanes splits an RGBA image into R, G, B planes in 0..1.
func colourPlanes(img *image.RGBA) [3]plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var out [3]plane
	for c := range 3 {
		out[c] = newPlane(w, h)
	}
	for y := range h {
		pix := img.Pix[y*img.Stride:]
		for x := range w {
			i := y*w + x
			out[0].v[i] = float32(pix[4*x]) / 255
			out[1].v[i] = float32(pix[4*x+1]) / 255
			out[2].v[i] = float32(pix[4*x+2]) / 255
		}
	}
	return out
}

func product(a, b plane) plane {
	out := newPlane(a.w, a.h)
	for i := range out.v {
		out.v[i] = a.v[i] * b.v[i]
	}
	return out
}

// boxMean is imaging.BoxMean over a plane: each pixel's (2r+1)² window
// mean, clipped at the borders, at a cost that does not depend on r.
func boxMean(p plane, r int) plane {
	return plane{w: p.w, h: p.h, v: imaging.BoxMean(p.v, p.w, p.h, r)}
}

// resampler samples a sw×sh plane bilinearly at the pixel centres of a
// dw×dh grid, one output row at a time.
type resampler struct {
	sw, sh, dw, dh int
	x0, x1         []int
	fx             []float32
}

func newResampler(sw, sh, dw, dh int) resampler {
	r := resampler{sw: sw, sh: sh, dw: dw, dh: dh, x0: make([]int, dw), x1: make([]int, dw), fx: make([]float32, dw)}
	for x := range dw {
		u := min(max((float64(x)+0.5)*float64(sw)/float64(dw)-0.5, 0), float64(sw-1))
		r.x0[x] = int(u)
		r.x1[x] = min(r.x0[x]+1, sw-1)
		r.fx[x] = float32(u - float64(r.x0[x]))
	}
	return r
}

// row writes destination row y of p into out.
func (r resampler) row(p plane, y int, out []float32) {
	v := min(max((float64(y)+0.5)*float64(r.sh)/float64(r.dh)-0.5, 0), float64(r.sh-1))
	y0 := int(v)
	y1 := min(y0+1, r.sh-1)
	fy := float32(v - float64(y0))
	top, bot := p.v[y0*r.sw:(y0+1)*r.sw], p.v[y1*r.sw:(y1+1)*r.sw]
	for x := range r.dw {
		a, b, f := r.x0[x], r.x1[x], r.fx[x]
		t := top[a] + (top[b]-top[a])*f
		u := bot[a] + (bot[b]-bot[a])*f
		out[x] = t + (u-t)*fy
	}
}

// resize resamples p bilinearly to w×h.
func resize(p plane, w, h int) plane {
	out := newPlane(w, h)
	r := newResampler(p.w, p.h, w, h)
	for y := range h {
		r.row(p, y, out.v[y*w:(y+1)*w])
	}
	return out
}
