package matte

import (
	"image"
	"math"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/edits/plane"
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

// refineAlpha turns the labels of the w×h working grid into an alpha
// plane the size of full.
func refineAlpha(full *image.RGBA, fg []bool, w, h int) plane.Plane {
	fw, fh := full.Rect.Dx(), full.Rect.Dy()
	coarse := plane.New(w, h)
	for i, v := range fg {
		if v {
			coarse.V[i] = 1
		}
	}
	near := plane.BoxMean(coarse, bandRadius)
	band := plane.New(w, h)
	for i, v := range near.V {
		if v > 0 && v < 1 {
			band.V[i] = 1
		}
	}

	midSide := min(max(fw, fh), guideFactor*max(w, h))
	mid := vision.RGBA8(full, midSide)
	guide := plane.Channels(mid)
	p := plane.Resize(coarse, guide[0].W, guide[0].H)
	radius := max(1, int(math.Round(guideRadius*float64(guide[0].W)/float64(w))))
	a, b := guidedCoefficients(guide, p, radius, guideEps)

	alpha := plane.New(fw, fh)
	up := plane.NewResampler(guide[0].W, guide[0].H, fw, fh)
	bandUp := plane.NewResampler(w, h, fw, fh)
	row := make([]float32, 6*fw)
	ar, ag, ab, br := row[:fw], row[fw:2*fw], row[2*fw:3*fw], row[3*fw:4*fw]
	cr, bw := row[4*fw:5*fw], row[5*fw:]
	for y := range fh {
		up.Row(a[0], y, ar)
		up.Row(a[1], y, ag)
		up.Row(a[2], y, ab)
		up.Row(b, y, br)
		bandUp.Row(coarse, y, cr)
		bandUp.Row(band, y, bw)
		pix := full.Pix[y*full.Stride:]
		out := alpha.V[y*fw : (y+1)*fw]
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
func guidedCoefficients(guide [3]plane.Plane, p plane.Plane, r int, eps float32) ([3]plane.Plane, plane.Plane) {
	w, h := p.W, p.H
	n := w * h
	var meanI [3]plane.Plane
	for c := range 3 {
		meanI[c] = plane.BoxMean(guide[c], r)
	}
	meanP := plane.BoxMean(p, r)
	var corrIP [3]plane.Plane
	for c := range 3 {
		corrIP[c] = plane.BoxMean(product(guide[c], p), r)
	}
	// The six distinct entries of the colour covariance.
	var corrII [6]plane.Plane
	k := 0
	for c := range 3 {
		for d := c; d < 3; d++ {
			corrII[k] = plane.BoxMean(product(guide[c], guide[d]), r)
			k++
		}
	}
	var a [3]plane.Plane
	for c := range 3 {
		a[c] = plane.New(w, h)
	}
	b := plane.New(w, h)
	for i := range n {
		mr, mg, mb, mp := meanI[0].V[i], meanI[1].V[i], meanI[2].V[i], meanP.V[i]
		srr := corrII[0].V[i] - mr*mr + eps
		srg := corrII[1].V[i] - mr*mg
		srb := corrII[2].V[i] - mr*mb
		sgg := corrII[3].V[i] - mg*mg + eps
		sgb := corrII[4].V[i] - mg*mb
		sbb := corrII[5].V[i] - mb*mb + eps
		cr := corrIP[0].V[i] - mr*mp
		cg := corrIP[1].V[i] - mg*mp
		cb := corrIP[2].V[i] - mb*mp
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
		a[0].V[i], a[1].V[i], a[2].V[i] = ar, ag, ab
		b.V[i] = mp - ar*mr - ag*mg - ab*mb
	}
	for c := range 3 {
		a[c] = plane.BoxMean(a[c], r)
	}
	return a, plane.BoxMean(b, r)
}

func product(a, b plane.Plane) plane.Plane {
	out := plane.New(a.W, a.H)
	for i := range out.V {
		out.V[i] = a.V[i] * b.V[i]
	}
	return out
}
