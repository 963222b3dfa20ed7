package critique

import (
	"image"
	"math"
	"slices"
	"sort"

	"hookline.dev/pkg/media/vision"
)

// Attention area parameters.
const (
	// maxAreas is the most attention areas reported; maxFaceAreas of them
	// at most are faces.
	maxAreas     = 5
	maxFaceAreas = 2
	// peakThreshold is the least saliency (0..1) of a peak.
	peakThreshold = 0.35
	// blobShare is the share of a peak's saliency its blob extends down
	// to.
	blobShare = 0.3
	// flatContrast is the RMS contrast under which a picture is flat:
	// spectral residual saliency is normalised to its own maximum, so on
	// a flat picture it would promote noise to peaks.
	flatContrast = 0.02
	// faceIntensity is a face's least intensity: faces draw the eye
	// whatever their low-level contrast (Cerf et al., 2008); the rest,
	// up to 1, is the saliency inside the face box.
	faceIntensity = 0.7
	// blurRadius is the radius, in saliency cells, of the extra smoothing
	// before peaks are found: the spectral residual lights the edges of a
	// large plain object, and smoothing joins them into the object.
	blurRadius = 1
	// faceRadius is a face area's radius over its box's side: the box
	// spans brows to chin, the circle takes in the forehead and cheeks.
	faceRadius = 0.6
	// labelDelta is how far (0..1) a blob's mean luma or saturation must
	// differ from the picture's to be called bright, dark or a colour
	// accent.
	labelDelta = 0.15
)

// attention returns the attention areas of the picture m measures, from
// its saliency map and working copy: its largest faces, then the
// strongest saliency blobs that are not a face, labelled "text" when their
// centre lies on a text region, else by their tone. Radii are at most half
// the shorter side; positions and radii are rounded to 0.1 px,
// intensities to 0.01.
func attention(sal []float64, work *image.RGBA, faces []image.Rectangle, text []TextRegion, m Metrics) []Area {
	const n = vision.SaliencySize
	sw, sh := float64(m.Width), float64(m.Height)
	cw, ch := sw/n, sh/n
	sal = smooth(sal, blurRadius)
	areas := []Area{}
	for _, f := range faces[:min(len(faces), maxFaceAreas)] {
		peak := 0.0
		for y := int(float64(f.Min.Y) / ch); y < min(n, int(math.Ceil(float64(f.Max.Y)/ch))); y++ {
			for x := int(float64(f.Min.X) / cw); x < min(n, int(math.Ceil(float64(f.Max.X)/cw))); x++ {
				peak = max(peak, sal[y*n+x])
			}
		}
		areas = append(areas, Area{
			X:         float64(f.Min.X+f.Max.X) / 2,
			Y:         float64(f.Min.Y+f.Max.Y) / 2,
			Radius:    min(faceRadius*float64(max(f.Dx(), f.Dy())), min(sw, sh)/2),
			Intensity: faceIntensity + (1-faceIntensity)*peak,
			Label:     "face",
		})
	}
	var found []int
	if m.Contrast >= flatContrast {
		found = peaks(sal)
	}
	claimed := make([]bool, n*n)
	for _, p := range found {
		if len(areas) == maxAreas {
			break
		}
		if claimed[p] {
			continue
		}
		cells := blob(sal, p, claimed)
		var sx, sy, mass float64
		for _, c := range cells {
			s := sal[c]
			sx += s * (float64(c%n) + 0.5) * cw
			sy += s * (float64(c/n) + 0.5) * ch
			mass += s
		}
		a := Area{
			X:         sx / mass,
			Y:         sy / mass,
			Radius:    min(math.Sqrt(float64(len(cells))*cw*ch/math.Pi), min(sw, sh)/2),
			Intensity: sal[p],
		}
		if onFace(a, faces) {
			continue
		}
		a.Label = label(a, work, text, m)
		areas = append(areas, a)
	}
	for i := range areas {
		a := &areas[i]
		a.X, a.Y, a.Radius = tenth(a.X), tenth(a.Y), tenth(a.Radius)
		a.Intensity = math.Round(a.Intensity*100) / 100
	}
	return areas
}

// peaks returns the cells of the n×n map that are local maxima over their
// 5×5 neighbourhood and at least peakThreshold, strongest first. On a
// plateau only the first cell in reading order is a peak.
func peaks(sal []float64) []int {
	const n = vision.SaliencySize
	var out []int
	for y := range n {
		for x := range n {
			i := y*n + x
			v := sal[i]
			if v < peakThreshold {
				continue
			}
			isPeak := true
			for dy := -2; dy <= 2 && isPeak; dy++ {
				for dx := -2; dx <= 2; dx++ {
					xx, yy := x+dx, y+dy
					if (dx == 0 && dy == 0) || xx < 0 || yy < 0 || xx >= n || yy >= n {
						continue
					}
					j := yy*n + xx
					if sal[j] > v || (sal[j] == v && j < i) {
						isPeak = false
						break
					}
				}
			}
			if isPeak {
				out = append(out, i)
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return sal[out[a]] > sal[out[b]] })
	return out
}

// blob returns the 4-connected cells around peak whose saliency is at
// least blobShare of the peak's and that no earlier blob claimed, and
// claims them.
func blob(sal []float64, peak int, claimed []bool) []int {
	const n = vision.SaliencySize
	floor := blobShare * sal[peak]
	cells := []int{peak}
	claimed[peak] = true
	for k := 0; k < len(cells); k++ {
		c := cells[k]
		x, y := c%n, c/n
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			xx, yy := x+d[0], y+d[1]
			if xx < 0 || yy < 0 || xx >= n || yy >= n {
				continue
			}
			j := yy*n + xx
			if !claimed[j] && sal[j] >= floor {
				claimed[j] = true
				cells = append(cells, j)
			}
		}
	}
	return cells
}

// onFace reports whether a's centre lies in a face box: the face's own
// area already stands for it.
func onFace(a Area, faces []image.Rectangle) bool {
	p := image.Pt(int(a.X), int(a.Y))
	for _, f := range faces {
		if p.In(f) {
			return true
		}
	}
	return false
}

// label names what is at a: "text" on or next to a text region, else "bright
// region", "dark region" or "colour accent" when the circle's mean luma
// or HSV saturation differs from the picture's by labelDelta, else
// "subject".
func label(a Area, work *image.RGBA, text []TextRegion, m Metrics) string {
	p := image.Pt(int(a.X), int(a.Y))
	for _, t := range text {
		// Half a line's height of margin takes in the gap between lines.
		if p.In(t.Rect.Inset(-t.Rect.Dy() / 2)) {
			return "text"
		}
	}
	fx := float64(work.Rect.Dx()) / float64(m.Width)
	cx, cy, r := a.X*fx, a.Y*fx, max(1, a.Radius*fx)
	var sl, ss float64
	cnt := 0
	for y := max(0, int(cy-r)); y < min(work.Rect.Dy(), int(math.Ceil(cy+r))); y++ {
		for x := max(0, int(cx-r)); x < min(work.Rect.Dx(), int(math.Ceil(cx+r))); x++ {
			if (float64(x)+0.5-cx)*(float64(x)+0.5-cx)+(float64(y)+0.5-cy)*(float64(y)+0.5-cy) > r*r {
				continue
			}
			i := y*work.Stride + 4*x
			rr, g, b := float64(work.Pix[i])/255, float64(work.Pix[i+1])/255, float64(work.Pix[i+2])/255
			sl += 0.2126*rr + 0.7152*g + 0.0722*b
			if hi := max(rr, g, b); hi > 0 {
				ss += (hi - min(rr, g, b)) / hi
			}
			cnt++
		}
	}
	if cnt == 0 {
		return "subject"
	}
	l, s := sl/float64(cnt), ss/float64(cnt)
	switch {
	case l >= m.Brightness+labelDelta:
		return "bright region"
	case l <= m.Brightness-labelDelta:
		return "dark region"
	case s >= m.Saturation+labelDelta:
		return "colour accent"
	default:
		return "subject"
	}
}

// smooth box-blurs the n×n map m twice with radius r and rescales it to
// a maximum of 1.
func smooth(m []float64, r int) []float64 {
	const n = vision.SaliencySize
	for range 2 {
		out := make([]float64, len(m))
		for y := range n {
			for x := range n {
				sum, cnt := 0.0, 0
				for yy := max(0, y-r); yy <= min(n-1, y+r); yy++ {
					for xx := max(0, x-r); xx <= min(n-1, x+r); xx++ {
						sum += m[yy*n+xx]
						cnt++
					}
				}
				out[y*n+x] = sum / float64(cnt)
			}
		}
		m = out
	}
	hi := slices.Max(m)
	if hi > 0 {
		for i := range m {
			m[i] /= hi
		}
	}
	return m
}
