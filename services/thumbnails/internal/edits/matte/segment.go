package matte

import (
	"context"
	"math"
	"slices"
)

// Segmentation energy, GrabCut's (Rother, Kolmogorov and Blake, 2004):
// each pixel pays the negative log-likelihood of its colour under the model
// of the side it is put on, plus the prior's share; each pair of
// neighbours with different labels pays gamma·exp(−β‖Δc‖²)/distance, so
// the cut follows colour edges.
const (
	gamma = 50.0
	// maxColourEvidence caps how strongly one pixel's colour alone can
	// argue for a side, in nats: a colour the other model has never seen
	// has a near-zero likelihood there, and without the cap a few such
	// pixels would override the prior and the smoothness term.
	maxColourEvidence = 12.0
	// energyScale converts energies to the graph's integer capacities.
	energyScale = 32.0
	// hardCap stands for an infinite capacity: more than any cut through
	// a grid of working size can cost elsewhere.
	hardCap = 1 << 24
	// grabCutRounds is how many times the colour models and the labels are
	// re-estimated in turn; the labels settle within a few rounds.
	grabCutRounds = 4
	// fineRounds is how many rounds a level started from the labels of
	// the level below runs.
	fineRounds = 2
	// coarseNodes is the largest grid segmented without a coarser level
	// first.
	coarseNodes = 25000
)

// segment labels the working grid's pixels subject (true) or background.
func segment(ctx context.Context, px []rgb, s seed) ([]bool, error) {
	fg, err := segmentLevel(ctx, px, s)
	if err != nil {
		return nil, err
	}
	keepSubject(fg, s)
	return fg, nil
}

// segmentLevel runs GrabCut on one level of a pyramid. A grid larger than
// coarseNodes is first segmented at half size, and its labels start this
// level: the first cut from the seed alone is the slow one (weak evidence
// everywhere lets flow wander far), and it is four times smaller there,
// while this level only corrects the edges.
func segmentLevel(ctx context.Context, px []rgb, s seed) ([]bool, error) {
	w, h := s.w, s.h
	n := w * h
	fg := make([]bool, n)
	rounds := grabCutRounds
	if n > coarseNodes && w >= 4 && h >= 4 {
		cpx, cs := halve(px, s)
		coarse, err := segmentLevel(ctx, cpx, cs)
		if err != nil {
			return nil, err
		}
		for y := range h {
			cy := min(y/2, cs.h-1)
			for x := range w {
				fg[y*w+x] = coarse[cy*cs.w+min(x/2, cs.w-1)]
			}
		}
		rounds = fineRounds
	} else {
		for i, p := range s.prior {
			fg[i] = p >= 0.5
		}
	}
	for i, f := range s.fixed {
		if f != free {
			fg[i] = f == fixedFG
		}
	}
	g := newGrid(w, h)
	for a, c := range pairCapacities(g, px, w) {
		g.setPair(int32(2*a), c) //nolint:gosec // G115: arc index of a working-size grid
	}
	// A node of a grid halved k times stands for 4^k pixels and its
	// edges for 2^k pixel pairs: its own terms weigh 2^k times more
	// against the smoothness than a pixel's, or the coarse cut smooths
	// a subject without fixed pixels away (and, with it, the colour
	// model the finer levels start from). Seeds with a fixed subject
	// were tuned on the smoother coarse cut, which keeps what touches
	// their subject in the same colours (a black table behind a black
	// helmet) from growing in.
	unary := 1.0
	if !slices.Contains(s.fixed, fixedFG) {
		unary = float64(int(1) << s.coarse)
	}
	priorFG, priorBG := make([]float64, n), make([]float64, n)
	for i, p := range s.prior {
		priorFG[i] = -s.weight * math.Log(p) * unary
		priorBG[i] = -s.weight * math.Log(1-p) * unary
	}
	var fgModel, bgModel mixture
	for round := range rounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if round == 0 {
			fgModel, bgModel = initialMixture(pick(px, fg, true)), initialMixture(pickBackground(px, fg, s))
		} else {
			fgModel, bgModel = relearn(px, fg, &fgModel, &bgModel)
		}
		for i, c := range px {
			switch s.fixed[i] {
			case fixedFG:
				g.setTerminal(i, hardCap, 0)
				continue
			case fixedBG:
				g.setTerminal(i, 0, hardCap)
				continue
			}
			d := modelEvidence(&fgModel, &bgModel, c) * unary
			costFG := max(0, -d) + priorFG[i]
			costBG := max(0, d) + priorBG[i]
			// The source side is the subject: the source arc is cut
			// (paid) when the pixel goes to the background.
			g.setTerminal(i, capacity(costBG), capacity(costFG))
		}
		g.maxflow(ctx)
		changed := 0
		for i := range fg {
			if v := g.source(i); v != fg[i] {
				fg[i] = v
				changed++
			}
		}
		if changed < n/1000 {
			break
		}
	}
	return fg, nil
}

// halve is the seed and pixels of a grid at half size: 2×2 blocks
// averaged (an odd last row or column joins the block before it), a
// block fixed to the subject if any of its pixels is, to the background
// if all are.
func halve(px []rgb, s seed) ([]rgb, seed) {
	w, h := s.w, s.h
	cw, ch := w/2, h/2
	cs := seed{w: cw, h: ch, prior: make([]float64, cw*ch), fixed: make([]label, cw*ch), weight: s.weight, strict: s.strict, outsideBG: s.outsideBG, coarse: s.coarse + 1}
	sums := make([][4]float64, cw*ch)
	bgCount := make([]int, cw*ch)
	for y := range h {
		cy := min(y/2, ch-1)
		for x := range w {
			i, c := y*w+x, cy*cw+min(x/2, cw-1)
			sums[c][0] += float64(px[i][0])
			sums[c][1] += float64(px[i][1])
			sums[c][2] += float64(px[i][2])
			sums[c][3]++
			cs.prior[c] += s.prior[i]
			switch s.fixed[i] {
			case fixedFG:
				cs.fixed[c] = fixedFG
			case fixedBG:
				bgCount[c]++
			}
		}
	}
	cpx := make([]rgb, cw*ch)
	for c, sum := range sums {
		cpx[c] = rgb{float32(sum[0] / sum[3]), float32(sum[1] / sum[3]), float32(sum[2] / sum[3])}
		cs.prior[c] /= sum[3]
		if cs.fixed[c] == free && bgCount[c] == int(sum[3]) {
			cs.fixed[c] = fixedBG
		}
	}
	return cpx, cs
}

// modelEvidence is how much more likely colour c is under the subject's
// model than under the background's, in nats, capped both ways. A model
// with no pixels at all has no say.
func modelEvidence(fgModel, bgModel *mixture, c rgb) float64 {
	if len(fgModel.g) == 0 || len(bgModel.g) == 0 {
		return 0
	}
	d := fgModel.logLikelihood(c) - bgModel.logLikelihood(c)
	return min(max(d, -maxColourEvidence), maxColourEvidence)
}

func capacity(e float64) int32 {
	return int32(math.Round(min(e*energyScale, hardCap))) //nolint:gosec // G115: bounded by hardCap
}

// pairCapacities computes the smoothness capacity of every neighbour pair
// of g, in its arc order. β adapts the edge sensitivity to the picture's
// own contrast: 1/(2·mean ‖Δc‖²).
func pairCapacities(g *grid, px []rgb, w int) []int32 {
	caps := make([]int32, 0, len(g.head)/2)
	sum, count := 0.0, 0
	g.forEachPair(func(_, i, j int32) {
		sum += float64(dist2(px[i], px[j]))
		count++
	})
	beta := 0.0
	if sum > 0 {
		beta = float64(count) / (2 * sum)
	}
	g.forEachPair(func(_, i, j int32) {
		length := 1.0
		if i%int32(w) != j%int32(w) && i/int32(w) != j/int32(w) { //nolint:gosec // G115: grid width
			length = math.Sqrt2
		}
		e := gamma / length * math.Exp(-beta*float64(dist2(px[i], px[j])))
		caps = append(caps, capacity(e))
	})
	return caps
}

// pick returns the colours whose label is want.
func pick(px []rgb, fg []bool, want bool) []rgb {
	out := make([]rgb, 0, len(px)/2)
	for i, c := range px {
		if fg[i] == want {
			out = append(out, c)
		}
	}
	return out
}

// pickBackground returns the colours the first background model is
// learnt from: those labelled background, except, for a seed that asks
// for it, the undecided ones (a body's surroundings below the chin, the
// ring around a faceless picture's middle), where the subject itself may
// be and would teach the background its colours.
func pickBackground(px []rgb, fg []bool, s seed) []rgb {
	out := make([]rgb, 0, len(px)/2)
	for i, c := range px {
		if !fg[i] && (!s.outsideBG || s.prior[i] <= priorOutside || s.fixed[i] == fixedBG) {
			out = append(out, c)
		}
	}
	return out
}

// relearn is GrabCut's model update: each pixel joins the component of
// its side's model that explains it best, and the models are refitted from
// those memberships.
func relearn(px []rgb, fg []bool, fgModel, bgModel *mixture) (mixture, mixture) {
	fgm := make([]moments, max(1, len(fgModel.g)))
	bgm := make([]moments, max(1, len(bgModel.g)))
	for i, c := range px {
		if fg[i] {
			fgm[fgModel.nearest(c)].add(c)
		} else {
			bgm[bgModel.nearest(c)].add(c)
		}
	}
	return fit(fgm), fit(bgm)
}

// keepSubject removes what the cut found apart from the subject: regions
// not connected to a fixed subject pixel (or, without any, to the largest
// region) unless nearly as large (rivalShare), and fills the small holes left
// inside it (an eye's highlight, a shirt's button) that the colour models
// gave to the background. A strict seed keeps only the regions with a
// fixed subject pixel, and fills all their holes.
func keepSubject(fg []bool, s seed) {
	w, h := s.w, s.h
	comp, sizes := components8(fg, w, h)
	if len(sizes) == 0 {
		return
	}
	keep := make([]bool, len(sizes))
	anchored := false
	for i, c := range comp {
		if c >= 0 && s.fixed[i] == fixedFG {
			keep[c] = true
			anchored = true
		}
	}
	if s.strict && anchored {
		for i, c := range comp {
			fg[i] = c >= 0 && keep[c]
		}
		fillHoles(fg, w, h)
		return
	}
	largest := 0
	for c, n := range sizes {
		if keep[c] || !anchored {
			largest = max(largest, n)
		}
	}
	share := rivalShare(anchored)
	for c, n := range sizes {
		if share*n >= largest {
			keep[c] = true
		}
	}
	for i, c := range comp {
		fg[i] = c >= 0 && keep[c]
	}
	fillSmallHoles(fg, w, h, w*h/100, pocketLimit(anchored, w, h))
}

// rivalShare is how many times smaller than the largest region a region
// apart from the fixed subject may be and still be kept: a quarter beside
// people whose faces anchor them (a second person), half when nothing
// is anchored and the largest region is the subject (lamps beside a
// rocket are not).
func rivalShare(anchored bool) int {
	if anchored {
		return 4
	}
	return 2
}

// components8 labels the 8-connected regions of set pixels; unset pixels
// get -1.
func components8(m []bool, w, h int) ([]int, []int) {
	comp := make([]int, len(m))
	for i := range comp {
		comp[i] = -1
	}
	var sizes []int
	var stack []int
	for start, set := range m {
		if !set || comp[start] >= 0 {
			continue
		}
		id := len(sizes)
		sizes = append(sizes, 0)
		comp[start] = id
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sizes[id]++
			x, y := i%w, i/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					if j := ny*w + nx; m[j] && comp[j] < 0 {
						comp[j] = id
						stack = append(stack, j)
					}
				}
			}
		}
	}
	return comp, sizes
}

// fillSmallHoles sets the unset regions (4-connected) of fewer than limit
// pixels that do not touch the border, and the pockets of fewer than
// pocketLimit (0: none): regions that touch the bottom edge and no other.
// A subject standing on the frame's bottom edge (a pot, a bust) closes
// such a pocket with that edge as a ring closes a hole: a label on the
// pot, in colours the background also has, that runs off the picture.
func fillSmallHoles(m []bool, w, h, limit, pocketLimit int) {
	seen := make([]bool, len(m))
	var region, stack []int
	for start := range m {
		if m[start] || seen[start] {
			continue
		}
		region, stack = region[:0], append(stack[:0], start)
		seen[start] = true
		sides, bottom := false, false
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			region = append(region, i)
			x, y := i%w, i/w
			sides = sides || x == 0 || y == 0 || x == w-1
			bottom = bottom || y == h-1
			for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
				if j < 0 || j >= len(m) || (j == i-1 && x == 0) || (j == i+1 && x == w-1) {
					continue
				}
				if !m[j] && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		hole := !sides && !bottom && len(region) < limit
		pocket := !sides && bottom && len(region) < pocketLimit
		if hole || pocket {
			for _, i := range region {
				m[i] = true
			}
		}
	}
}

// pocketLimit is the largest pocket on the bottom edge (see
// fillSmallHoles) filled in a w×h subject, 4% of the picture, when
// nothing anchors it: a faceless subject is expected to stand on that
// edge (see salientSeed), and the plant's pot label takes 1.6%. Anchored
// subjects are people, whose legs open a pocket onto the edge that shows
// the background (the camera man's, 0.7%).
func pocketLimit(anchored bool, w, h int) int {
	if anchored {
		return 0
	}
	return w * h / 25
}
