package instruct

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/edits/adjust"
)

// Apply carries out the program on img and returns the result as a new
// picture whose bounds start at (0, 0). Only a crop changes its size.
// faces and saliency (vision.Saliency) are img's: a crop keeps the faces
// (or the salient part) inside, and added text leaves faces uncovered
// when it can. Both follow the picture through mirrors and crops.
func (p Program) Apply(img image.Image, faces []vision.Face, saliency []float64) (*image.NRGBA, error) {
	b := img.Bounds()
	s := state{
		img:      image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy())),
		faces:    moved(faces, b.Min, image.Rect(0, 0, b.Dx(), b.Dy())),
		saliency: saliency,
	}
	draw.Draw(s.img, s.img.Rect, img, b.Min, draw.Src)
	for _, o := range p.ops {
		switch o.kind {
		case brightness:
			applyCurve(s.img, gammaCurve(o.level))
		case contrast:
			applyToLuma(s.img, sigmoidCurve(o.level, pivot(s.img)))
		case saturation:
			saturate(s.img, saturationFactor(o.level))
		case mirror:
			s.mirror()
		case crop:
			s.crop(o.aspect)
		case filter:
			s.img = adjust.ApplyFilter(s.img, o.filter, s.faces)
			if o.filter.Kind == adjust.FilterBlurBackground || o.filter.Kind == adjust.FilterVignette {
				s.saliency = nil
			}
		case text:
			if err := s.addText(o); err != nil {
				return nil, err
			}
			s.saliency = nil // the words are now what stands out
		case border:
			addBorder(s.img, o.colour, o.width)
			s.saliency = nil
		}
	}
	return s.img, nil
}

// state is the picture being edited and what is known about it, in its
// current coordinates.
type state struct {
	img   *image.NRGBA
	faces []vision.Face
	// saliency is the current picture's map, or nil when an edit has
	// made it stale (it is measured again when a crop needs it).
	saliency []float64
}

func (s *state) mirror() {
	w := s.img.Rect.Dx()
	for y := range s.img.Rect.Dy() {
		row := s.img.Pix[y*s.img.Stride : y*s.img.Stride+4*w]
		for l, r := 0, w-1; l < r; l, r = l+1, r-1 {
			a, b := row[4*l:4*l+4:4*l+4], row[4*r:4*r+4:4*r+4]
			a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3] = b[0], b[1], b[2], b[3], a[0], a[1], a[2], a[3]
		}
	}
	for i, f := range s.faces {
		s.faces[i].Rect = image.Rect(w-f.Rect.Max.X, f.Rect.Min.Y, w-f.Rect.Min.X, f.Rect.Max.Y)
	}
	if n := vision.SaliencySize; len(s.saliency) == n*n {
		flipped := make([]float64, n*n)
		for y := range n {
			for x := range n {
				flipped[y*n+x] = s.saliency[y*n+n-1-x]
			}
		}
		s.saliency = flipped
	}
}

func (s *state) crop(aspect string) {
	if s.saliency == nil {
		s.saliency = vision.Saliency(s.img)
	}
	r := imaging.Window(s.img.Rect, imaging.Ratio(aspect), s.faces, s.saliency)
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Rect, s.img, r.Min, draw.Src)
	s.img, s.faces, s.saliency = out, moved(s.faces, r.Min, out.Rect), nil
}

// moved is faces in the coordinates of a picture whose origin was at
// origin, cut to its bounds; faces cropped away are dropped.
func moved(faces []vision.Face, origin image.Point, bounds image.Rectangle) []vision.Face {
	var out []vision.Face
	for _, f := range faces {
		if r := f.Rect.Sub(origin).Intersect(bounds); !r.Empty() {
			out = append(out, vision.Face{Rect: r, Score: f.Score})
		}
	}
	return out
}

// curve maps an 8-bit channel value.
type curve [256]uint8

func applyCurve(m *image.NRGBA, c curve) {
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2] = c[m.Pix[i]], c[m.Pix[i+1]], c[m.Pix[i+2]]
	}
}

// gammas are the brightness curves' exponents by degree: a gamma curve
// moves the midtones most and leaves black and white where they are, so
// brightening never clips highlights into a flat white.
var gammas = [4]float64{1, 1.15, 1.35, 1.7}

// gammaCurve brightens (level > 0) or darkens by the level's gamma.
func gammaCurve(level int) curve {
	g := gammas[abs(level)]
	if level > 0 {
		g = 1 / g
	}
	var c curve
	for v := range c {
		c[v] = to8(math.Pow(float64(v)/255, g))
	}
	return c
}

// contrastGains are the sigmoid curves' steepness by degree (ImageMagick's
// sigmoidal contrast): 3 is a gentle S, 7 a hard one.
var contrastGains = [4]float64{0, 3, 4.5, 7}

// sigmoidCurve raises (level > 0) or lowers the contrast about mid: a
// sigmoid through (0,0) and (1,1) whose slope about mid is steep, or for
// less contrast its inverse. Unlike a linear stretch it rolls off into
// black and white instead of clipping.
func sigmoidCurve(level int, mid float64) curve {
	beta := contrastGains[abs(level)]
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(beta*(mid-x))) }
	lo, hi := sig(0), sig(1)
	var c curve
	for v := range c {
		x := float64(v) / 255
		if level > 0 {
			c[v] = to8((sig(x) - lo) / (hi - lo))
			continue
		}
		// The inverse: the x whose sigmoid is this value's share of the
		// range.
		y := lo + x*(hi-lo)
		c[v] = to8(mid - math.Log(1/y-1)/beta)
	}
	return c
}

// applyToLuma maps each pixel's luma through c and moves its channels by
// the same amount, so contrast changes light and dark, not colour: a
// per-channel curve would also push every colour's channels apart. A
// pixel the move takes out of gamut keeps its new luma and loses just
// enough of its colour to fit.
func applyToLuma(m *image.NRGBA, c curve) {
	for i := 0; i < len(m.Pix); i += 4 {
		p := m.Pix[i : i+3 : i+3]
		y := imaging.Luma(p[0], p[1], p[2])
		// Between the curve's samples, linearly.
		k := min(int(y), 254)
		y2 := float64(c[k]) + (float64(c[k+1])-float64(c[k]))*(y-float64(k))
		f := 1.0
		for _, v := range p {
			d := float64(v) - y
			switch {
			case y2+d > 255:
				f = min(f, (255-y2)/d)
			case y2+d < 0:
				f = min(f, y2/-d)
			}
		}
		for j, v := range p {
			p[j] = to8((y2 + (float64(v)-y)*f) / 255)
		}
	}
}

// pivot is the level contrast turns about: halfway between mid-grey and
// the picture's mean luma, so a dark or a bright picture is not simply
// made darker or brighter, and a portrait on white is not pushed into
// the shadows.
func pivot(m *image.NRGBA) float64 {
	var sum, n float64
	for i := 0; i < len(m.Pix); i += 4 {
		if m.Pix[i+3] == 0 {
			continue
		}
		sum += imaging.Luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		n++
	}
	if n == 0 {
		return 0.5
	}
	return (0.5 + sum/n/255) / 2
}

// saturationFactors scale the distance of each colour from its grey, by
// degree: more saturated (index = level) and less (index = -level).
var (
	saturationMore = [4]float64{1, 1.15, 1.3, 1.55}
	saturationLess = [4]float64{1, 0.8, 0.55, 0.25}
)

func saturationFactor(level int) float64 {
	if level > 0 {
		return saturationMore[level]
	}
	return saturationLess[-level]
}

// saturate moves each pixel's colour away from (k > 1) or towards its
// grey of the same luma. A pixel that would leave the gamut is moved
// only as far as its first channel can go, so its hue is kept.
func saturate(m *image.NRGBA, k float64) {
	for i := 0; i < len(m.Pix); i += 4 {
		p := m.Pix[i : i+3 : i+3]
		r, g, b := float64(p[0]), float64(p[1]), float64(p[2])
		y := imaging.Luma(p[0], p[1], p[2])
		f := k
		if k > 1 {
			for _, c := range [3]float64{r, g, b} {
				switch {
				case c > y:
					f = min(f, (255-y)/(c-y))
				case c < y:
					f = min(f, y/(y-c))
				}
			}
			f = max(f, 1)
		}
		p[0], p[1], p[2] = to8((y+(r-y)*f)/255), to8((y+(g-y)*f)/255), to8((y+(b-y)*f)/255)
	}
}

// borderShares are a border's width by thickness, in thousandths of the
// picture's shorter side: thin, plain, thick.
var borderShares = [4]int{0, 15, 30, 50}

// addBorder paints a frame of colour c inside the picture's edge.
func addBorder(m *image.NRGBA, c color.RGBA, width int) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	t := max(1, (min(w, h)*borderShares[width]+500)/1000)
	px := color.NRGBA{c.R, c.G, c.B, 255}
	u := image.NewUniform(px)
	for _, r := range []image.Rectangle{
		image.Rect(0, 0, w, t), image.Rect(0, h-t, w, h),
		image.Rect(0, 0, t, h), image.Rect(w-t, 0, w, h),
	} {
		draw.Draw(m, r.Intersect(m.Rect), u, image.Point{}, draw.Src)
	}
}

// to8 is v (0..1) as an 8-bit value, rounded and clamped.
func to8(v float64) uint8 {
	switch {
	case !(v > 0):
		return 0
	case v >= 1:
		return 255
	}
	return uint8(v*255 + 0.5)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
