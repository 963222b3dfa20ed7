package faceswap

import (
	"image"
	"image/draw"
	"math"
)

// eyePair is where a face's eyes are, in its image's pixel-centre
// coordinates (x + iy); left is the one with the smaller x. found is false
// when the search was not confident and the positions are the usual ones
// for the detector's box.
type eyePair struct {
	left, right complex128
	found       bool
}

// Where eyes sit in the detector's box, as fractions of its width and
// height: the fallback, and the centre of the search's prior.
const (
	eyeLeftX  = 0.31
	eyeRightX = 0.69
	eyeY      = 0.42
)

// eyeGrid is the side of the square grid a face box is resampled to
// before the search: an eye is then about ten cells across, enough to
// find its centre to a cell (well under a percent of the box).
const eyeGrid = 96

// Search parameters, in grid cells and box fractions.
const (
	// eyeBlobScale is the σ, in cells, of the blur before the blob
	// measure: about half an iris's radius, which removes lashes and skin
	// texture while keeping the iris one blob.
	eyeBlobScale = 2.5
	// eyeHighlight is the radius, in cells, of the largest catch-light
	// removed before the blob measure.
	eyeHighlight = 1
	// The prior: eyes are rarely more than this far from their usual
	// place. It only breaks ties between blobs; a tilted face moves an
	// eye well away from it.
	eyeSpreadX = 0.12
	eyeSpreadY = 0.08
	// The search covers this far either side of the usual place: each
	// eye is looked for in its own half of the box, below the hairline.
	eyeWindowX = 0.18
	eyeWindowY = 0.15
	// A blob counts as an eye when it is at least this dark: relative to
	// the face's own luma spread (an iris measures about a third of it),
	// and absolutely, in luma levels, so that the noise of a flat face is
	// not taken for eyes. Blurred faces and closed eyes fall back to the
	// usual positions.
	eyeMinContrast = 0.15
	eyeMinDarkness = 4
	// A found pair must look like eyes: about level, and about the usual
	// distance apart.
	eyeMaxTilt     = 0.15
	eyeMinDistance = 0.25
	eyeMaxDistance = 0.6
)

// findEyes locates the two eyes of the face in box (which may reach past
// img's bounds when the face is cut by the frame) as the strongest round
// dark blobs of an iris's size in the upper face, one in each half,
// weighted by a prior around their usual place.
func findEyes(img image.Image, box image.Rectangle) eyePair {
	bw, bh := float64(box.Dx()), float64(box.Dy())
	toImage := func(gx, gy float64) complex128 {
		return complex(float64(box.Min.X)+gx*bw/eyeGrid, float64(box.Min.Y)+gy*bh/eyeGrid)
	}
	usual := eyePair{
		left:  toImage(eyeLeftX*eyeGrid, eyeY*eyeGrid),
		right: toImage(eyeRightX*eyeGrid, eyeY*eyeGrid),
	}
	luma := boxLuma(img, box)
	dark, spread := blobResponse(luma)
	least := float32(max(eyeMinDarkness, eyeMinContrast*spread))
	lx, ly, lok := darkestBlob(dark, eyeLeftX, least)
	rx, ry, rok := darkestBlob(dark, eyeRightX, least)
	if !lok || !rok {
		return usual
	}
	dist := (rx - lx) / eyeGrid
	if math.Abs(ry-ly)/eyeGrid > eyeMaxTilt || dist < eyeMinDistance || dist > eyeMaxDistance {
		return usual
	}
	return eyePair{left: toImage(lx, ly), right: toImage(rx, ry), found: true}
}

// darkestBlob returns the grid position (cell-centre coordinates) of the
// strongest blob of dark (blobResponse's map) in the search window around
// (priorX, eyeY) of the box, weighted by the prior, and refined to a
// fraction of a cell by the centroid of the response around the peak. ok
// is false when the peak is weaker than minDark.
func darkestBlob(dark []float32, priorX float64, minDark float32) (x, y float64, ok bool) {
	const g = eyeGrid
	x0, x1 := int(math.Floor((priorX-eyeWindowX)*g)), int(math.Floor((priorX+eyeWindowX)*g))
	y0, y1 := int(math.Floor((eyeY-eyeWindowY)*g)), int(math.Floor((eyeY+eyeWindowY)*g))
	best, bx, by := float32(0), -1, -1
	for gy := y0; gy <= y1; gy++ {
		py := (float64(gy)+0.5)/g - eyeY
		for gx := x0; gx <= x1; gx++ {
			px := (float64(gx)+0.5)/g - priorX
			prior := math.Exp(-px*px/(2*eyeSpreadX*eyeSpreadX) - py*py/(2*eyeSpreadY*eyeSpreadY))
			if s := dark[gy*g+gx] * float32(prior); s > best {
				best, bx, by = s, gx, gy
			}
		}
	}
	if bx < 0 || dark[by*g+bx] < minDark {
		return 0, 0, false
	}
	// Centroid of the part of the blob above half its peak.
	peak := dark[by*g+bx]
	var sw, sx, sy float64
	const r = 3
	for gy := max(0, by-r); gy <= min(g-1, by+r); gy++ {
		for gx := max(0, bx-r); gx <= min(g-1, bx+r); gx++ {
			if v := dark[gy*g+gx] - peak/2; v > 0 {
				sw += float64(v)
				sx += float64(v) * (float64(gx) + 0.5)
				sy += float64(v) * (float64(gy) + 0.5)
			}
		}
	}
	return sx / sw, sy / sw, true
}

// boxLuma returns the BT.601 luma of img inside box, area-averaged onto an
// eyeGrid×eyeGrid grid (each cell at least one pixel, so small boxes are
// sampled rather than averaged). Cells of a box cut by the frame take the
// mean luma of the visible ones: flat, so they hold no blob.
func boxLuma(img image.Image, box image.Rectangle) []float32 {
	w, h := box.Dx(), box.Dy()
	visible := box.Intersect(img.Bounds()).Sub(box.Min)
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(rgba, visible, img, visible.Min.Add(box.Min), draw.Src)
	span := func(cell, n, lo, hi int) (int, int) {
		a := cell * n / eyeGrid
		b := max(a+1, (cell+1)*n/eyeGrid)
		return max(a, lo), min(b, hi)
	}
	out := make([]float32, eyeGrid*eyeGrid)
	seen := make([]bool, eyeGrid*eyeGrid)
	var total float32
	cells := 0
	for gy := range eyeGrid {
		ya, yb := span(gy, h, visible.Min.Y, visible.Max.Y)
		for gx := range eyeGrid {
			xa, xb := span(gx, w, visible.Min.X, visible.Max.X)
			if ya >= yb || xa >= xb {
				continue
			}
			var sum float32
			for y := ya; y < yb; y++ {
				p := rgba.Pix[y*rgba.Stride+4*xa : y*rgba.Stride+4*xb]
				for i := 0; i < len(p); i += 4 {
					sum += 0.299*float32(p[i]) + 0.587*float32(p[i+1]) + 0.114*float32(p[i+2])
				}
			}
			i := gy*eyeGrid + gx
			out[i], seen[i] = sum/float32((yb-ya)*(xb-xa)), true
			total += out[i]
			cells++
		}
	}
	if cells < len(out) && cells > 0 {
		mean := total / float32(cells)
		for i, ok := range seen {
			if !ok {
				out[i] = mean
			}
		}
	}
	return out
}

func stdDev(p []float32) float64 {
	var sum, sq float64
	for _, v := range p {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(p))
	mean := sum / n
	return math.Sqrt(math.Max(0, sq/n-mean*mean))
}

// opening is the grey-scale morphological opening of the g×g plane p by a
// square of radius r (a minimum filter, then a maximum filter): bright
// details smaller than the square vanish and everything else keeps its
// shape. It removes the catch-light, which would split an iris into two
// dark crescents.
func opening(p []float32, g, r int) []float32 {
	lower := func(a, b float32) float32 { return min(a, b) }
	upper := func(a, b float32) float32 { return max(a, b) }
	return rankFilter(rankFilter(p, g, r, lower), g, r, upper)
}

// rankFilter applies pick (min or max) over a (2r+1)² square, separably,
// with the plane's edges repeated.
func rankFilter(p []float32, g, r int, pick func(a, b float32) float32) []float32 {
	tmp := make([]float32, len(p))
	for y := range g {
		for x := range g {
			v := p[y*g+x]
			for k := max(0, x-r); k <= min(g-1, x+r); k++ {
				v = pick(v, p[y*g+k])
			}
			tmp[y*g+x] = v
		}
	}
	out := make([]float32, len(p))
	for y := range g {
		for x := range g {
			v := tmp[y*g+x]
			for k := max(0, y-r); k <= min(g-1, y+r); k++ {
				v = pick(v, tmp[k*g+x])
			}
			out[y*g+x] = v
		}
	}
	return out
}

// blobResponse returns, for every cell of the luma grid, how strongly a
// dark blob of an iris's size is centred there: the square root of the
// determinant of the Hessian of the blurred luma where both curvatures
// are positive (a local minimum in both directions), scaled by σ² so it
// reads as a darkness in luma units. Unlike a plain darkness measure it
// ignores the brows, which are as dark as the eyes but long: along a bar
// one curvature vanishes and so does the determinant. spread is the luma
// standard deviation of the face, against which darkness is judged.
func blobResponse(luma []float32) (resp []float32, spread float64) {
	const g = eyeGrid
	l := gaussianBlur(opening(luma, g, eyeHighlight), g, g, eyeBlobScale, nil)
	resp = make([]float32, len(l))
	norm := float32(eyeBlobScale * eyeBlobScale)
	for y := 1; y < g-1; y++ {
		for x := 1; x < g-1; x++ {
			i := y*g + x
			lxx := l[i-1] + l[i+1] - 2*l[i]
			lyy := l[i-g] + l[i+g] - 2*l[i]
			lxy := (l[i+g+1] + l[i-g-1] - l[i+g-1] - l[i-g+1]) / 4
			if det := lxx*lyy - lxy*lxy; lxx > 0 && lyy > 0 && det > 0 {
				resp[i] = norm * float32(math.Sqrt(float64(det)))
			}
		}
	}
	return resp, stdDev(l)
}
