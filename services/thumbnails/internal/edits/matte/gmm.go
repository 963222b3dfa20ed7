package matte

import "math"

// components is the number of Gaussians per colour model, GrabCut's
// choice: enough for a shirt, skin and hair, or a sky gradient, while a
// few thousand pixels still estimate each one well.
const components = 5

// varianceFloor is added to each covariance's diagonal (8-bit units
// squared): a synthetic flat background has no variance at all, and JPEG
// noise is about this size, so colours closer than that are one colour.
const varianceFloor = 10.0

// rgb is one pixel's colour in 0..255.
type rgb [3]float32

// gaussian is one component: its weight in the mixture folded into norm.
type gaussian struct {
	mean [3]float64
	inv  [9]float64 // inverse covariance, row-major
	norm float64    // log(weight) − ½·log det Σ
}

// mixture is a Gaussian mixture model of the colours of one region.
type mixture struct {
	g []gaussian
}

// moments accumulates the statistics of a set of colours.
type moments struct {
	n   float64
	sum [3]float64
	sq  [9]float64
}

func (m *moments) add(c rgb) {
	x := [3]float64{float64(c[0]), float64(c[1]), float64(c[2])}
	m.n++
	for i := range 3 {
		m.sum[i] += x[i]
		for j := range 3 {
			m.sq[3*i+j] += x[i] * x[j]
		}
	}
}

// fit builds the mixture from per-component moments; empty components
// are dropped.
func fit(ms []moments) mixture {
	total := 0.0
	for _, m := range ms {
		total += m.n
	}
	var out mixture
	for _, m := range ms {
		if m.n < 1 {
			continue
		}
		var g gaussian
		var cov [9]float64
		for i := range 3 {
			g.mean[i] = m.sum[i] / m.n
		}
		for i := range 3 {
			for j := range 3 {
				cov[3*i+j] = m.sq[3*i+j]/m.n - g.mean[i]*g.mean[j]
			}
			cov[4*i] += varianceFloor
		}
		det := invert3(&cov, &g.inv)
		g.norm = math.Log(m.n/total) - 0.5*math.Log(det)
		out.g = append(out.g, g)
	}
	return out
}

// invert3 writes the inverse of the symmetric positive-definite matrix m
// to inv and returns its determinant.
func invert3(m, inv *[9]float64) float64 {
	a, b, c := m[0], m[1], m[2]
	d, e, f := m[3], m[4], m[5]
	g, h, k := m[6], m[7], m[8]
	co0 := e*k - f*h
	co1 := f*g - d*k
	co2 := d*h - e*g
	det := a*co0 + b*co1 + c*co2
	// The variance floor keeps det ≥ varianceFloor³; this only guards
	// against rounding.
	det = max(det, 1e-6)
	inv[0], inv[1], inv[2] = co0/det, (c*h-b*k)/det, (b*f-c*e)/det
	inv[3], inv[4], inv[5] = co1/det, (a*k-c*g)/det, (c*d-a*f)/det
	inv[6], inv[7], inv[8] = co2/det, (b*g-a*h)/det, (a*e-b*d)/det
	return det
}

// term is component g's log density at c, without the constant
// −(3/2)·log 2π that every component of both models shares.
func (g *gaussian) term(c rgb) float64 {
	x := float64(c[0]) - g.mean[0]
	y := float64(c[1]) - g.mean[1]
	z := float64(c[2]) - g.mean[2]
	q := x*(g.inv[0]*x+g.inv[1]*y+g.inv[2]*z) +
		y*(g.inv[3]*x+g.inv[4]*y+g.inv[5]*z) +
		z*(g.inv[6]*x+g.inv[7]*y+g.inv[8]*z)
	return g.norm - 0.5*q
}

// logLikelihood is log p(c) under the mixture (up to the shared constant).
func (m *mixture) logLikelihood(c rgb) float64 {
	best := math.Inf(-1)
	var terms [components]float64
	for k := range m.g {
		terms[k] = m.g[k].term(c)
		best = max(best, terms[k])
	}
	if math.IsInf(best, -1) {
		return best
	}
	s := 0.0
	for k := range m.g {
		s += math.Exp(terms[k] - best)
	}
	return best + math.Log(s)
}

// nearest is the component that explains c best, for GrabCut's hard
// assignment step.
func (m *mixture) nearest(c rgb) int {
	best, arg := math.Inf(-1), 0
	for k := range m.g {
		if t := m.g[k].term(c); t > best {
			best, arg = t, k
		}
	}
	return arg
}

// initialMixture clusters colours with k-means (deterministic
// farthest-point seeding on a strided sample) and fits one Gaussian per
// cluster: GrabCut's starting point before the model and the labels are
// refined in turn.
func initialMixture(colours []rgb) mixture {
	if len(colours) == 0 {
		return mixture{}
	}
	const maxSample = 4000
	step := max(1, len(colours)/maxSample)
	sample := make([]rgb, 0, len(colours)/step+1)
	for i := 0; i < len(colours); i += step {
		sample = append(sample, colours[i])
	}
	centres := seedCentres(sample)
	assign := make([]int, len(sample))
	for range 6 {
		for i, c := range sample {
			assign[i] = closestIndex(centres, c)
		}
		var sums [components][4]float64
		for i, c := range sample {
			s := &sums[assign[i]]
			s[0] += float64(c[0])
			s[1] += float64(c[1])
			s[2] += float64(c[2])
			s[3]++
		}
		for k := range centres {
			if n := sums[k][3]; n > 0 {
				centres[k] = rgb{float32(sums[k][0] / n), float32(sums[k][1] / n), float32(sums[k][2] / n)}
			}
		}
	}
	ms := make([]moments, len(centres))
	for _, c := range colours {
		ms[closestIndex(centres, c)].add(c)
	}
	return fit(ms)
}

// seedCentres picks up to components colours, each the farthest from
// those already picked, starting from the sample's mean.
func seedCentres(sample []rgb) []rgb {
	var mean [3]float64
	for _, c := range sample {
		for i := range 3 {
			mean[i] += float64(c[i])
		}
	}
	n := float64(len(sample))
	first := rgb{float32(mean[0] / n), float32(mean[1] / n), float32(mean[2] / n)}
	centres := []rgb{sample[closestIndex(sample, first)]}
	dist := make([]float32, len(sample))
	for i, c := range sample {
		dist[i] = dist2(c, centres[0])
	}
	for len(centres) < components {
		far, arg := float32(0), -1
		for i, d := range dist {
			if d > far {
				far, arg = d, i
			}
		}
		if arg < 0 {
			break // fewer distinct colours than components
		}
		centres = append(centres, sample[arg])
		for i, c := range sample {
			dist[i] = min(dist[i], dist2(c, sample[arg]))
		}
	}
	return centres
}

func closestIndex(cs []rgb, c rgb) int {
	best, arg := float32(math.MaxFloat32), 0
	for k, x := range cs {
		if d := dist2(x, c); d < best {
			best, arg = d, k
		}
	}
	return arg
}

func dist2(a, b rgb) float32 {
	x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return x*x + y*y + z*z
}
