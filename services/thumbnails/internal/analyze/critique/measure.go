package critique

import (
	"context"
	"image"
	"math"
	"sort"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
)

// Working sizes. workSide is the longer side the picture is measured at:
// the same as pkg/media/vision's global metrics, so they reuse the copy instead
// of shrinking again, and enough for edges and a face's eye band. The
// mobile copy is a thumbnail as a phone's feed shows it (168×94 for
// 16:9): text is judged there, because that is where it must read.
const (
	workSide   = 512
	mobileSide = 168
)

// Metrics are the measured values behind the scores. They are exported
// for the README, the tests, and a chat provider that rewrites the
// wording from them.
type Metrics struct {
	// Width and Height are the source picture's size in pixels.
	Width, Height int
	// Contrast is the RMS contrast of relative luminance (0..0.5).
	Contrast float64
	// Colourfulness is Hasler and Süsstrunk's metric (0 grey; 33
	// "moderately", 59 "highly", 82+ "extremely colourful").
	Colourfulness float64
	// Brightness is the mean luma (BT.709 weights on 8-bit components,
	// 0..1).
	Brightness float64
	// Saturation is the mean HSV saturation (0..1).
	Saturation float64
	// Warmth is the share of pixels with a warm hue (red through yellow:
	// 330°..70°) at HSV saturation ≥ 0.3 and value ≥ 0.2 (0..1).
	Warmth float64
	// EdgeDensity is the share of pixels of the working copy whose Sobel
	// gradient of luma is at least edgeThreshold (0..1): how busy the
	// frame is.
	EdgeDensity float64
	// Thirds says how close the subject sits to the rule of thirds' power
	// points (0..1); see the package documentation.
	Thirds float64
	// FaceThirds is the largest face centre's closeness to the nearest
	// power point (1 on it; 0 without a face).
	FaceThirds float64
	// Faces is the number of faces found; Face describes the largest.
	Faces int
	Face  FaceMetrics
	// Text are the text-like regions found at mobile size, largest first.
	Text []TextRegion
	// Reading is the text OCR read, at full and at mobile size.
	Reading Reading
	// Attention are the attention areas, faces first, then saliency peaks
	// by intensity.
	Attention []Area
}

// FaceMetrics describe one face. They are zero when there is none.
type FaceMetrics struct {
	// Rect is the detector's box (brows to chin) in source pixels.
	Rect image.Rectangle
	// Share is the box's area over the frame's area.
	Share float64
	// Height is the box centre's height from the top, over the frame
	// height (0 top, 1 bottom).
	Height float64
	// CutOff reports a box within 1% of the frame's edge: the face goes
	// past it.
	CutOff bool
	// EyeContrast is the standard deviation of luma (0..1) in the eye
	// band, the box's rows from 15% to 45% of its height: open, lit eyes
	// are dark pupils against white and skin.
	EyeContrast float64
	// Expression is read off the face's landmarks; nil without them.
	Expression *Expression
}

// Thresholds and reference points of the measurements.
const (
	// edgeThreshold is the Sobel magnitude of luma, on 0..1 components
	// and divided by 4 (the kernel's gain), that counts as an edge: a
	// step of 12% of the range, above JPEG noise and soft gradients.
	edgeThreshold = 0.12
	// thirdsSigma is the spread, in fractions of the frame's sides, of
	// the closeness to a power point: exp(−d²/2σ²).
	thirdsSigma = 0.1
	// warmMinSat and warmMinValue exclude greys and near blacks from the
	// warm share.
	warmMinSat   = 0.3
	warmMinValue = 0.2
)

// Measure measures img (at its source size; it is measured on
// downscaled copies) with faces, the faces found in it in img's
// coordinates, and r, which reads its text. The text is read while the
// pixels are measured. Errors: those of r.
func Measure(ctx context.Context, img image.Image, faces []vision.Face, r Reader) (Metrics, error) {
	b := img.Bounds()
	m := Metrics{Width: b.Dx(), Height: b.Dy()}
	if m.Width <= 0 || m.Height <= 0 {
		return m, nil
	}
	type reading struct {
		rd  Reading
		err error
	}
	done := make(chan reading, 1)
	go func() {
		rd, err := read(ctx, r, img)
		done <- reading{rd, err}
	}()
	work := vision.RGBA8(img, workSide)
	// Faces are used relative to the source's origin from here on.
	rects := make([]image.Rectangle, 0, len(faces))
	for _, f := range faces {
		if r := f.Rect.Intersect(b).Sub(b.Min); !r.Empty() {
			rects = append(rects, r)
		}
	}
	// Largest first: the largest face is the one a viewer reads.
	sort.SliceStable(rects, func(i, j int) bool { return area(rects[i]) > area(rects[j]) })

	m.Contrast = vision.RMSContrast(work)
	m.Colourfulness = vision.Colourfulness(work)
	m.Brightness, m.Saturation, m.Warmth = tone(work)
	luma := lumaOf(work)
	ww, wh := work.Rect.Dx(), work.Rect.Dy()
	m.EdgeDensity = edgeDensity(luma, ww, wh)
	m.Faces = len(rects)
	if len(rects) > 0 {
		r := rects[0]
		m.Face = faceMetrics(r, m.Width, m.Height, luma, ww, wh)
		m.Face.Expression = expressionOf(faces, b)
		m.FaceThirds = closeness(float64(r.Min.X+r.Max.X)/2/float64(m.Width), float64(r.Min.Y+r.Max.Y)/2/float64(m.Height))
	}
	sal := vision.Saliency(work)
	m.Thirds = thirds(sal, m.Faces > 0, m.FaceThirds)
	m.Text = findText(vision.RGBA8(work, mobileSide), rects, m.Width, m.Height)
	got := <-done
	m.Reading = got.rd
	if len(got.rd.Boxes) > 0 {
		// What OCR reads decides which stroke-like regions are text.
		m.Text = confirmed(m.Text, got.rd.Boxes)
	}
	m.Attention = attention(sal, work, rects, m.Text, m)
	return m, got.err
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// lumaOf is m's luma (imaging.Luma) on 0..1, row-major.
func lumaOf(m *image.RGBA) []float64 {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	out := make([]float64, w*h)
	for y := range h {
		row := m.Pix[y*m.Stride:]
		for x := range w {
			i := 4 * x
			out[y*w+x] = imaging.Luma(row[i], row[i+1], row[i+2]) / 255
		}
	}
	return out
}

// tone returns the mean luma, the mean HSV saturation and the warm share
// of m.
func tone(m *image.RGBA) (brightness, saturation, warmth float64) {
	var sl, ss float64
	warm := 0
	n := 0
	for i := 0; i+3 < len(m.Pix); i += 4 {
		r, g, b := float64(m.Pix[i])/255, float64(m.Pix[i+1])/255, float64(m.Pix[i+2])/255
		sl += imaging.Luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2]) / 255
		hi, lo := max(r, g, b), min(r, g, b)
		s := 0.0
		if hi > 0 {
			s = (hi - lo) / hi
		}
		ss += s
		if s >= warmMinSat && hi >= warmMinValue {
			if h := hue(r, g, b, hi, lo); h >= 330 || h <= 70 {
				warm++
			}
		}
		n++
	}
	if n == 0 {
		return 0, 0, 0
	}
	return sl / float64(n), ss / float64(n), float64(warm) / float64(n)
}

// hue is the HSV hue in degrees (0..360) of a colour whose largest and
// smallest components are hi > lo.
func hue(r, g, b, hi, lo float64) float64 {
	d := hi - lo
	var h float64
	switch hi {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h
}

// edgeDensity is the share of interior pixels whose Sobel gradient
// magnitude of luma, divided by 4, is at least edgeThreshold.
func edgeDensity(l []float64, w, h int) float64 {
	if w < 3 || h < 3 {
		return 0
	}
	edges := 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			gx := l[i-w+1] + 2*l[i+1] + l[i+w+1] - l[i-w-1] - 2*l[i-1] - l[i+w-1]
			gy := l[i+w-1] + 2*l[i+w] + l[i+w+1] - l[i-w-1] - 2*l[i-w] - l[i-w+1]
			if math.Hypot(gx, gy)/4 >= edgeThreshold {
				edges++
			}
		}
	}
	return float64(edges) / float64((w-2)*(h-2))
}

// faceMetrics measures the face r (source pixels, origin-based) of a
// sw×sh source on the working copy's luma l (w×h).
func faceMetrics(r image.Rectangle, sw, sh int, l []float64, w, h int) FaceMetrics {
	f := FaceMetrics{
		Rect:   r,
		Share:  float64(area(r)) / float64(sw*sh),
		Height: (float64(r.Min.Y+r.Max.Y) / 2) / float64(sh),
	}
	// The detector clamps a box to the frame, and on a face that leaves
	// the frame it often settles on the visible part just inside.
	mx, my := max(2, sw/100), max(2, sh/100)
	f.CutOff = r.Min.X <= mx || r.Min.Y <= my || r.Max.X >= sw-mx || r.Max.Y >= sh-my
	// The eye band, mapped to the working copy.
	fx, fy := float64(w)/float64(sw), float64(h)/float64(sh)
	x0 := int(math.Floor((float64(r.Min.X) + 0.1*float64(r.Dx())) * fx))
	x1 := int(math.Ceil((float64(r.Min.X) + 0.9*float64(r.Dx())) * fx))
	y0 := int(math.Floor((float64(r.Min.Y) + 0.15*float64(r.Dy())) * fy))
	y1 := int(math.Ceil((float64(r.Min.Y) + 0.45*float64(r.Dy())) * fy))
	x0, x1 = max(0, x0), min(w, x1)
	y0, y1 = max(0, y0), min(h, y1)
	var sum, sq float64
	n := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			v := l[y*w+x]
			sum += v
			sq += v * v
			n++
		}
	}
	if n > 0 {
		mean := sum / float64(n)
		f.EyeContrast = math.Sqrt(max(0, sq/float64(n)-mean*mean))
	}
	return f
}

// closeness is how near the point (u, v), in fractions of the frame's
// sides, is to the nearest of the four power points of the rule of
// thirds: 1 on one, falling as a Gaussian of spread thirdsSigma.
func closeness(u, v float64) float64 {
	best := math.Inf(1)
	for _, pu := range [2]float64{1.0 / 3, 2.0 / 3} {
		for _, pv := range [2]float64{1.0 / 3, 2.0 / 3} {
			best = min(best, (u-pu)*(u-pu)+(v-pv)*(v-pv))
		}
	}
	return math.Exp(-best / (2 * thirdsSigma * thirdsSigma))
}

// thirds is the Thirds metric: the saliency-weighted closeness of the
// picture to the power points, rescaled so that an even spread scores 0,
// averaged with the face's closeness when there is a face.
func thirds(sal []float64, hasFace bool, face float64) float64 {
	const n = vision.SaliencySize
	var mass, near float64
	for y := range n {
		for x := range n {
			s := sal[y*n+x]
			mass += s
			near += s * closeness((float64(x)+0.5)/n, (float64(y)+0.5)/n)
		}
	}
	salient := 0.0
	if mass > 0 {
		salient = imaging.Clamp01((near/mass - thirdsBaseline) / (1 - thirdsBaseline))
	}
	if !hasFace {
		return salient
	}
	return (face + salient) / 2
}

// thirdsBaseline is the saliency closeness of a picture whose saliency
// is spread evenly over the frame (the mean closeness over the saliency
// grid, about 0.23): no better than chance scores 0.
var thirdsBaseline = func() float64 {
	const n = vision.SaliencySize
	sum := 0.0
	for y := range n {
		for x := range n {
			sum += closeness((float64(x)+0.5)/n, (float64(y)+0.5)/n)
		}
	}
	return sum / (n * n)
}()
