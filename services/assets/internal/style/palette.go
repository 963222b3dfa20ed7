package style

import (
	"image/color"
	"math/rand/v2"
	"sort"
)

// maxIterations caps Lloyd's iterations. On binned colours k-means settles
// in well under this; the cap only bounds the worst case so the analysis
// time stays predictable.
const maxIterations = 40

// binBits is the precision per channel of the colour histogram. Clustering
// one point per occupied bin instead of one per sample makes k-means'
// cost independent of the number of references. Each bin keeps the exact
// mean of its colours, so a flat colour is reported exactly, not at its
// bin's centre.
const binBits = 5

const bins = 1 << (3 * binBits)

// histogram accumulates colour bins over several images, each image
// weighing 1 in total whatever its number of samples.
type histogram struct {
	// count, sumR, sumG and sumB are the current image's exact integer
	// tallies per bin; touched lists the bins it used, so folding and
	// resetting costs per occupied bin rather than per bin.
	count            []uint32
	sumR, sumG, sumB []uint64
	touched          []int
	// w, r, g and b hold, per bin, the images' folded weight and the
	// weighted sums of the sRGB components.
	w, r, g, b []float64
}

func (h *histogram) add(c color.NRGBA) {
	if h.count == nil {
		h.count = make([]uint32, bins)
		h.sumR = make([]uint64, bins)
		h.sumG = make([]uint64, bins)
		h.sumB = make([]uint64, bins)
		h.w = make([]float64, bins)
		h.r = make([]float64, bins)
		h.g = make([]float64, bins)
		h.b = make([]float64, bins)
	}
	const shift = 8 - binBits
	i := int(c.R>>shift)<<(2*binBits) | int(c.G>>shift)<<binBits | int(c.B>>shift)
	if h.count[i] == 0 {
		h.touched = append(h.touched, i)
	}
	h.count[i]++
	h.sumR[i] += uint64(c.R)
	h.sumG[i] += uint64(c.G)
	h.sumB[i] += uint64(c.B)
}

// endImage folds the current image into the totals with weight
// count/samples per bin. Dividing exact integer tallies once, rather than
// adding 1/samples per sample, keeps equal shares exactly equal.
func (h *histogram) endImage() {
	var n uint64
	for _, i := range h.touched {
		n += uint64(h.count[i])
	}
	fn := float64(n)
	for _, i := range h.touched {
		h.w[i] += float64(h.count[i]) / fn
		h.r[i] += float64(h.sumR[i]) / fn
		h.g[i] += float64(h.sumG[i]) / fn
		h.b[i] += float64(h.sumB[i]) / fn
		h.count[i], h.sumR[i], h.sumG[i], h.sumB[i] = 0, 0, 0, 0
	}
	h.touched = h.touched[:0]
}

// point is one occupied bin: its mean colour in CIELAB and its weight.
type point struct {
	c lab
	w float64
}

// points returns the occupied bins in bin order, which keeps the
// clustering deterministic.
func (h *histogram) points() []point {
	var pts []point
	for i, w := range h.w {
		if w > 0 {
			pts = append(pts, point{c: rgbToLab(h.r[i]/w, h.g[i]/w, h.b[i]/w), w: w})
		}
	}
	return pts
}

// palette clusters pts into at most PaletteSize colours with weighted
// k-means and returns them as swatches, heaviest first.
func palette(pts []point, seed int64) []Swatch {
	if len(pts) == 0 {
		return nil
	}
	// The second PCG word is an arbitrary constant: only seed varies.
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)) //nolint:gosec // G404: deterministic seeded k-means initialisation, not security
	centres := seedCentres(pts, PaletteSize, rng)
	weights := lloyd(pts, centres)

	var total float64
	merged := map[string]float64{}
	for j, c := range centres {
		if weights[j] > 0 {
			// Two centres can round to the same sRGB colour; one swatch
			// per colour is what a palette consumer expects.
			merged[c.hex()] += weights[j]
			total += weights[j]
		}
	}
	out := make([]Swatch, 0, len(merged))
	for hex, w := range merged {
		out = append(out, Swatch{Hex: hex, Weight: w / total})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return out[i].Hex < out[j].Hex
	})
	return out
}

// seedCentres picks up to k initial centres with k-means++ (each next
// centre drawn with probability proportional to weight × squared distance
// to the nearest chosen one), which spreads them over the distinct colours.
// It stops early when every point already coincides with a centre: then
// the references have fewer than k distinct colours.
func seedCentres(pts []point, k int, rng *rand.Rand) []lab {
	var total float64
	for _, p := range pts {
		total += p.w
	}
	centres := []lab{pts[pick(pts, total, rng, func(i int) float64 { return pts[i].w })].c}

	d2 := make([]float64, len(pts))
	for i, p := range pts {
		d2[i] = dist2(p.c, centres[0])
	}
	for len(centres) < k {
		var sum float64
		for i, p := range pts {
			sum += p.w * d2[i]
		}
		if sum == 0 {
			break
		}
		c := pts[pick(pts, sum, rng, func(i int) float64 { return pts[i].w * d2[i] })].c
		centres = append(centres, c)
		for i, p := range pts {
			d2[i] = min(d2[i], dist2(p.c, c))
		}
	}
	return centres
}

// pick draws an index with probability score(i)/total.
func pick(pts []point, total float64, rng *rand.Rand, score func(int) float64) int {
	r := rng.Float64() * total
	last := 0
	for i := range pts {
		s := score(i)
		if s <= 0 {
			continue
		}
		last = i
		if r < s {
			return i
		}
		r -= s
	}
	// Floating-point rounding can leave r just above the final score.
	return last
}

// lloyd refines centres in place by weighted Lloyd iterations and returns
// each centre's total weight; a centre with weight 0 was dropped.
//
// A cluster that empties is re-seeded at the point farthest from its own
// centre, so the palette keeps k colours while the image has them; only
// when every point sits exactly on a centre is the empty cluster dropped,
// i.e. merged away.
func lloyd(pts []point, centres []lab) []float64 {
	k := len(centres)
	alive := make([]bool, k)
	for j := range alive {
		alive[j] = true
	}
	assign := make([]int, len(pts))
	weights := make([]float64, k)
	sums := make([]lab, k)

	for iter := range maxIterations {
		changed := false
		for i, p := range pts {
			best, bestD := -1, 0.0
			for j, c := range centres {
				if !alive[j] {
					continue
				}
				if d := dist2(p.c, c); best < 0 || d < bestD {
					best, bestD = j, d
				}
			}
			if iter == 0 || assign[i] != best {
				changed = true
				assign[i] = best
			}
		}
		if !changed {
			break
		}

		clear(weights)
		clear(sums)
		for i, p := range pts {
			j := assign[i]
			weights[j] += p.w
			for d := range 3 {
				sums[j][d] += p.w * p.c[d]
			}
		}
		for j := range centres {
			if alive[j] && weights[j] > 0 {
				centres[j] = mean(sums[j], weights[j])
			}
		}
		for j := range centres {
			if !alive[j] || weights[j] > 0 {
				continue
			}
			// Points closer than this to their centre are the centre up to
			// rounding; moving one would only empty its donor cluster.
			far, farD := -1, 1e-9
			for i, p := range pts {
				if d := dist2(p.c, centres[assign[i]]); d > farD {
					far, farD = i, d
				}
			}
			if far < 0 {
				alive[j] = false
				continue
			}
			// Move the point over now so the donor's centre and the
			// weights stay consistent if this is the last iteration.
			p, from := pts[far], assign[far]
			weights[from] -= p.w
			for d := range 3 {
				sums[from][d] -= p.w * p.c[d]
			}
			if weights[from] > 0 {
				centres[from] = mean(sums[from], weights[from])
			}
			assign[far] = j
			weights[j], centres[j] = p.w, p.c
			sums[j] = lab{p.w * p.c[0], p.w * p.c[1], p.w * p.c[2]}
		}
	}
	for j := range weights {
		if !alive[j] {
			weights[j] = 0
		}
	}
	return weights
}

func mean(sum lab, w float64) lab {
	return lab{sum[0] / w, sum[1] / w, sum[2] / w}
}
