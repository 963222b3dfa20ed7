package matte

import (
	"context"
	"image"
	"math"
	"slices"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/edits/plane"
)

// seed is where segmentation starts from, on the working grid: a
// probability that each pixel belongs to the subject, and the pixels
// whose label is fixed.
type seed struct {
	w, h  int
	prior []float64 // P(subject) before looking at colours
	fixed []label
	// weight scales the prior's part of the energy against the colour
	// models': a person's shape is known well, a salient region less so.
	weight float64
	// strict keeps only what is connected to the fixed subject and fills
	// every hole inside it: a person seeded by landmarks is one body.
	strict bool
	// outsideBG has the first background model learn only from what
	// the prior rules out (see pickBackground).
	outsideBG bool
	// coarse counts the halvings from the working grid to this one (see
	// halve).
	coarse int
}

type label uint8

const (
	free label = iota
	fixedFG
	fixedBG
)

// Prior levels.
const (
	priorOutside = 0.08 // far from any subject evidence
	priorHead    = 0.95
	priorTorso   = 0.80
)

// personSeed builds the prior of people from their faces (in working-grid
// coordinates): a head ellipse that takes in hair and ears around the
// brows-to-chin box, a neck, and a torso that widens into shoulders and
// runs to the bottom of the picture, as in a thumbnail's head-and-shoulders
// shot. The inner face is certainly subject; the border, away from any
// body, certainly background, and so is what lies well outside the body
// in the border's colours (see fixOutside).
func personSeed(w, h int, faces []image.Rectangle, px []rgb) seed {
	s := seed{w: w, h: h, prior: make([]float64, w*h), fixed: make([]label, w*h), weight: 1}
	for i := range s.prior {
		s.prior[i] = priorOutside
	}
	for _, f := range faces {
		fw, fh := float64(f.Dx()), float64(f.Dy())
		cx := float64(f.Min.X) + fw/2
		chin := float64(f.Max.Y)
		// Head: the ellipse's top reaches half a face above the brows
		// (hair), its sides a little past the box (ears).
		hcx, hcy := cx, float64(f.Min.Y)+0.35*fh
		hrx, hry := 0.68*fw, 0.85*fh
		for y := range h {
			fy := float64(y) + 0.5
			for x := range w {
				fx := float64(x) + 0.5
				i := y*w + x
				r := math.Hypot((fx-hcx)/hrx, (fy-hcy)/hry)
				p := ramp(r, 0.85, 1.35, priorHead, priorOutside)
				if fy > chin-0.1*fh {
					q := math.Abs(fx-cx) / torsoHalfWidth(fy-chin, fw, fh)
					p = max(p, ramp(q, 0.8, 1.3, priorTorso, priorOutside))
				}
				s.prior[i] = max(s.prior[i], p)
			}
		}
		// Eyes, nose and cheeks: the middle of the detection.
		core := image.Rect(
			f.Min.X+f.Dx()/5, f.Min.Y+f.Dy()/5,
			f.Max.X-f.Dx()/5, f.Max.Y-f.Dy()/6,
		).Intersect(image.Rect(0, 0, w, h))
		for y := core.Min.Y; y < core.Max.Y; y++ {
			for x := core.Min.X; x < core.Max.X; x++ {
				s.fixed[y*w+x] = fixedFG
			}
		}
	}
	s.fixBorder(0.3, h, nil)
	unlike := unlikeBorder(w, h, h, px, nil)
	outside := make([]bool, w*h)
	for i, p := range s.prior {
		outside[i] = p <= priorOutside && !unlike[i]
	}
	s.fixOutside(outside)
	return s
}

// torsoHalfWidth is the body's half width at dy below the chin, for a
// face fw×fh: a neck, then shoulders over about one face height, then a
// chest that keeps slowly widening (arms).
func torsoHalfWidth(dy, fw, fh float64) float64 {
	t := dy / fh
	switch {
	case t < 0.35:
		return 0.32 * fw
	case t < 1.1:
		u := (t - 0.35) / 0.75
		return fw * (0.32 + (1.45-0.32)*smoothstep(u))
	default:
		return fw * (1.45 + 0.25*(t-1.1))
	}
}

// salientSeed builds the prior for a picture without faces, GrabCut's
// rectangle made soft. A thumbnail's subject sits towards the middle, and
// it is walled off from the frame by its outline: the geodesic distance
// to the frame (borderDistance) is small across a sky, a wall or a table
// however much of the picture they fill, and large inside an object
// whatever colours it shares with them. Spectral-residual saliency adds a
// little where the middle has detail. The pixels the frame reaches
// cheaply, and a band along the frame, teach the first background model
// (see pickBackground); the outermost pixels are background. The bottom
// edge is left out of both: a subject standing in the picture (a pot on a
// shelf, a launch pad, a cat's chest) is often cut by it.
//
// That first prior is a guess about the frame, and a subject that fills
// the picture (a cat's face with its body cut by the left and bottom
// edges) breaks it. So a second prior is built from what the first one
// found (see subjectSeed).
func salientSeed(ctx context.Context, w, h int, sal []float64, px []rgb) (seed, error) {
	const n = vision.SaliencySize
	score := make([]float64, w*h)
	hi := 0.0
	for y := range h {
		v := (float64(y)+0.5)/float64(h)*n - 0.5
		for x := range w {
			u := (float64(x)+0.5)/float64(w)*n - 0.5
			score[y*w+x] = bilinear(sal, n, n, u, v)
			hi = max(hi, score[y*w+x])
		}
	}
	if hi > 0 {
		for i := range score {
			score[i] /= hi
		}
	}
	first := salientPrior(w, h, score, px, nil, nil)
	return subjectSeed(ctx, first, score, px)
}

// subjectSeed is the second faceless prior, built from the first:
//
//   - The core, where the first prior is sure enough (coreLevel), has
//     colours; the frame's pixels that look like them (likeCore) are the
//     subject running into the frame, not background, and the geodesic
//     distance is measured to the rest of the frame only.
//   - Membership replaces the plain distance to the frame: a pixel
//     belongs to the subject as much as its geodesic distance to the
//     frame outweighs its distance to the core (Bai and Sapiro,
//     "Geodesic matting", 2007). A pot under a plant is far from a frame
//     it only touches at the bottom, and the middle the subject is
//     expected in reaches further down than up (belowSpread).
//   - A quick cut of the first prior at half size is the subject found so
//     far; what joins it through colours it has (growLike) is raised to
//     priorTorso: the fur of the body, chest and ears around the face the
//     first cut kept.
//
// Only ctx's error is returned.
func subjectSeed(ctx context.Context, first seed, score []float64, px []rgb) (seed, error) {
	w, h := first.w, first.h
	core := make([]bool, w*h)
	for i, p := range first.prior {
		core[i] = p >= coreLevel
	}
	s := salientPrior(w, h, score, px, likeCore(w, h, px, core), core)

	cut, err := quickCut(ctx, px, first)
	if err != nil {
		return seed{}, err
	}
	through := likeColours(px, cut, growLike)
	joined := geodesic(w, h, px, noiseStep, cut, through, math.Inf(1))
	for i, d := range joined {
		if !math.IsInf(d, 1) && !cut[i] {
			s.prior[i] = max(s.prior[i], priorTorso)
			if s.fixed[i] == fixedBG {
				s.fixed[i] = free
			}
		}
	}
	return s, nil
}

// quickCut is the subject s finds, cut at half size (at full size on a
// grid too small to halve) and brought back to s's grid. Only ctx's error
// is returned.
func quickCut(ctx context.Context, px []rgb, s seed) ([]bool, error) {
	if s.w < 4 || s.h < 4 {
		return segment(ctx, px, s)
	}
	cpx, cs := halve(px, s)
	coarse, err := segment(ctx, cpx, cs)
	if err != nil {
		return nil, err
	}
	out := make([]bool, s.w*s.h)
	for y := range s.h {
		for x := range s.w {
			out[y*s.w+x] = coarse[min(y/2, cs.h-1)*cs.w+min(x/2, cs.w-1)]
		}
	}
	return out, nil
}

// salientPrior is one faceless prior (see salientSeed). The frame's
// pixels in subject (nil: none) are left out of the frame, and with a
// core (nil: none) the geodesic membership between frame and core takes
// the plain distance's place, also in ruling out what the frame reaches
// cheaply: there, what is much nearer the frame than the core.
func salientPrior(w, h int, score []float64, px []rgb, subject, core []bool) seed {
	s := seed{w: w, h: h, prior: make([]float64, w*h), fixed: make([]label, w*h), weight: 1, outsideBG: true}
	toFrame := borderDistance(w, h, px, noiseStep, subject)
	geo := normalised(toFrame, 0.9)
	if core != nil {
		toCore := geodesic(w, h, px, noiseStep, core, nil, math.Inf(1))
		for i, a := range toFrame {
			if b := toCore[i]; a+b > 0 {
				geo[i] = a / (a + b)
			}
		}
	}
	band := max(2, min(w, h)/frameBand)
	for y := range h {
		dy := (float64(y)+0.5)/float64(h) - 0.5
		if dy > 0 && core != nil {
			dy *= belowSpread
		}
		for x := range w {
			dx := (float64(x)+0.5)/float64(w) - 0.5
			c := math.Exp(-(dx*dx + dy*dy) / (2 * centreSpread * centreSpread))
			i := y*w + x
			p := 0.1 + 0.35*c + 0.35*geo[i] + 0.15*c*score[i]
			edge := (x < band || y < band || x >= w-band) && (subject == nil || !subject[i])
			if edge || geo[i] < reached {
				p = priorOutside
			}
			s.prior[i] = p
		}
	}
	s.fixBorder(1, h-band, subject)
	return s
}

// likeCore marks the pixels of the frame's band whose colour the core
// explains as well as most of the core's own pixels do (all but
// coreLike percent).
func likeCore(w, h int, px []rgb, core []bool) []bool {
	like := likeColours(px, core, coreLike)
	band := max(2, min(w, h)/frameBand)
	for y := range h {
		for x := range w {
			if x >= band && y >= band && x < w-band && y < h-band {
				like[y*w+x] = false
			}
		}
	}
	return like
}

// likeColours marks the pixels whose colour is at least as likely under
// a colour model of the pixels in m as the least likely pct percent of
// those are; none when m has too few pixels to model.
func likeColours(px []rgb, m []bool, pct int) []bool {
	own := pick(px, m, true)
	out := make([]bool, len(px))
	if len(own) < minModelled {
		return out
	}
	model := initialMixture(own)
	ll := make([]float64, len(own))
	for i, c := range own {
		ll[i] = model.logLikelihood(c)
	}
	slices.Sort(ll)
	threshold := ll[len(ll)*pct/100]
	for i, c := range px {
		out[i] = model.logLikelihood(c) >= threshold
	}
	return out
}

// Constants of the faceless seed.
const (
	// centreSpread is the standard deviation, in fractions of the frame's
	// sides, of the middle a faceless subject is expected in.
	centreSpread = 0.3
	// frameBand is the width of the frame's band as a fraction of the
	// shorter side: 1/frameBand.
	frameBand = 16
	// noiseStep is the colour step, in 8-bit units, that a path to the
	// frame crosses for free: noise and gradients on the working grid.
	noiseStep = 6
	// reached is the normalised geodesic distance below which the frame
	// reaches a pixel cheaply enough to call it background at first.
	reached = 0.05
	// belowSpread shrinks the distance below the middle in the second
	// prior's centre term: a subject standing on the bottom edge (a pot,
	// a bust) reaches further down than up. The first prior keeps the
	// round middle, so that its core and cut do not take in the ground
	// a subject stands on (a launch pad's lit ground, whose colours the
	// towers beside it share).
	belowSpread = 0.5
	// coreLevel is the first prior from which a pixel is the subject's
	// core in the second (see subjectSeed).
	coreLevel = 0.6
	// coreLike is the percentile of the core's own colour likelihoods a
	// frame pixel must reach to be taken for the subject (see likeCore).
	coreLike = 20
	// growLike is the same percentile for the pixels the subject found
	// by the first cut grows through (see subjectSeed); a little stricter
	// than coreLike, as the walk is not bounded.
	growLike = 30
	// minModelled is the fewest pixels a colour model is learnt from.
	minModelled = 50
)

// unlikeBorder marks the pixels whose colour is less likely under a
// colour model of the picture's outer frame, in its first rows, than
// almost every pixel of that frame itself is, by a clear margin. With a
// prior, the frame's pixels the subject probably covers (at least
// borderSubject) are left out of the model: in a tight crop of a face the
// hair reaches the frame, and a model that learnt it would call hair
// background.
func unlikeBorder(w, h, rows int, px []rgb, prior []float64) []bool {
	ll, frame := borderLikelihood(w, h, rows, px, prior)
	out := make([]bool, w*h)
	if len(frame) == 0 {
		return out
	}
	// The frame's own 2nd percentile, less a margin: a few frame pixels
	// may be subject already (a shoulder at the edge).
	threshold := frame[len(frame)/50] - borderMargin
	for i, v := range ll {
		out[i] = v < threshold
	}
	return out
}

// likeBorder marks the pixels whose colour is at least as likely under
// the frame's colour model (as unlikeBorder learns it) as most of the
// frame's own pixels are: the wall itself, not merely a colour the wall
// could explain.
func likeBorder(w, h, rows int, px []rgb, prior []float64) []bool {
	ll, frame := borderLikelihood(w, h, rows, px, prior)
	out := make([]bool, w*h)
	if len(frame) == 0 {
		return out
	}
	threshold := frame[len(frame)*borderLike/100]
	for i, v := range ll {
		out[i] = v >= threshold
	}
	return out
}

// borderLike is the percentile of the frame's own likelihoods a colour
// must reach to be like the frame.
const borderLike = 10

// borderLikelihood is the log-likelihood of every pixel under a colour
// model of the frame (see unlikeBorder), and the frame's own, sorted; both
// empty of meaning when the frame has no pixel to learn from.
func borderLikelihood(w, h, rows int, px []rgb, prior []float64) ([]float64, []float64) {
	band := max(2, min(w, h)/20)
	var frame []rgb
	for y := range min(rows, h) {
		for x := range w {
			i := y*w + x
			if (x < band || x >= w-band || y < band || y >= h-band) && (prior == nil || prior[i] < borderSubject) {
				frame = append(frame, px[i])
			}
		}
	}
	if len(frame) == 0 {
		return nil, nil
	}
	model := initialMixture(frame)
	own := make([]float64, len(frame))
	for i, c := range frame {
		own[i] = model.logLikelihood(c)
	}
	slices.Sort(own)
	ll := make([]float64, len(px))
	for i, c := range px {
		ll[i] = model.logLikelihood(c)
	}
	return ll, own
}

// borderSubject is the prior from which a frame pixel is taken for the
// subject's rather than the frame's (see unlikeBorder).
const borderSubject = 0.5

// borderMargin is how many nats less likely than the frame's unusual
// pixels a colour must be to count as unlike the frame.
const borderMargin = 4.0

// fixBorder marks the picture's outermost pixels in its first rows as
// background, except where the prior expects the subject at least at
// level keep (a body cut by the frame) and the pixels in exempt (nil:
// none).
func (s *seed) fixBorder(keep float64, rows int, exempt []bool) {
	band := max(1, min(s.w, s.h)/100)
	for y := range min(rows, s.h) {
		for x := range s.w {
			if x >= band && x < s.w-band && y >= band && y < s.h-band {
				continue
			}
			if i := y*s.w + x; s.prior[i] < keep && s.fixed[i] == free && (exempt == nil || !exempt[i]) {
				s.fixed[i] = fixedBG
			}
		}
	}
}

// fixOutside marks as background the pixels the seed rules out, so the
// cut need not decide them. Besides being what GrabCut does outside its
// rectangle, this is what keeps the graph cut fast: a large background
// with only weak evidence against the subject lets flow spread far along
// its strong smoothness links before the cut saturates.
func (s *seed) fixOutside(out []bool) {
	for i, v := range out {
		if v && s.fixed[i] == free {
			s.fixed[i] = fixedBG
		}
	}
}

// dilate returns the labels m grown by r pixels: every pixel with a label
// in its (2r+1)² window. It marks a margin, where a square does as well
// as a disc, and it reuses the box mean the refinement runs anyway;
// imaging.Dilate draws antialiased round outlines of coverage masks.
func dilate(m []bool, w, h, r int) []bool {
	p := plane.New(w, h)
	for i, v := range m {
		if v {
			p.V[i] = 1
		}
	}
	p = plane.BoxMean(p, r)
	out := make([]bool, len(m))
	for i, v := range p.V {
		out[i] = v > 0
	}
	return out
}

// ramp maps v below lo to a, above hi to b, smoothly in between.
func ramp(v, lo, hi, a, b float64) float64 {
	if v <= lo {
		return a
	}
	if v >= hi {
		return b
	}
	return a + (b-a)*smoothstep((v-lo)/(hi-lo))
}

func smoothstep(t float64) float64 {
	t = min(max(t, 0), 1)
	return t * t * (3 - 2*t)
}

// bilinear samples the w×h map m at (u, v), in cell-centre coordinates,
// clamped at the edges.
func bilinear(m []float64, w, h int, u, v float64) float64 {
	u = min(max(u, 0), float64(w-1))
	v = min(max(v, 0), float64(h-1))
	x0, y0 := int(u), int(v)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := u-float64(x0), v-float64(y0)
	top := m[y0*w+x0]*(1-fx) + m[y0*w+x1]*fx
	bot := m[y1*w+x0]*(1-fx) + m[y1*w+x1]*fx
	return top*(1-fy) + bot*fy
}

// fillHoles sets every pixel of m that the border cannot reach through
// unset pixels (4-connected).
func fillHoles(m []bool, w, h int) {
	outside := make([]bool, len(m))
	stack := make([]int, 0, 2*(w+h))
	push := func(i int) {
		if !m[i] && !outside[i] {
			outside[i] = true
			stack = append(stack, i)
		}
	}
	for x := range w {
		push(x)
		push((h-1)*w + x)
	}
	for y := range h {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	for i := range m {
		if !outside[i] {
			m[i] = true
		}
	}
}
