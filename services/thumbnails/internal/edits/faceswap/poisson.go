package faceswap

// Multigrid parameters. Relaxation alone removes an error in a few sweeps
// only when it varies from cell to cell; a smooth error, which is what a
// membrane's is, needs sweeps in proportion to the region's area. On a
// grid of half the size the same error varies twice as fast, so the solver
// works on a pyramid of grids, each correcting what the finer one cannot.
const (
	// coarsestSide is the grid size at which the pyramid stops; a grid
	// that small is relaxed to convergence directly.
	coarsestSide = 8
	coarseSweeps = 60
	// preSweeps and postSweeps smooth before and after each coarse
	// correction; vCycles is how many corrections each level gets after
	// its starting point is interpolated from the level below.
	preSweeps  = 2
	postSweeps = 2
	vCycles    = 4
	// smoothing is the relaxation factor of the sweeps between coarse
	// corrections (plain Gauss–Seidel damps the cell-to-cell error
	// best); converging is the one of the coarsest grid's solve, where
	// over-relaxation cuts the sweeps needed.
	smoothing  = 1.0
	converging = 1.6
)

// level is one grid of the pyramid. Free cells are the unknowns; the
// others hold fixed values.
type level struct {
	w, h int
	free []bool
}

// coarser returns the grid of half the size: a coarse cell is free only
// when the four cells it covers are, so the coarse region never reaches
// past the fine one. Fine border cells are fixed, so coarse border cells
// are too.
func (l level) coarser() level {
	c := level{w: (l.w + 1) / 2, h: (l.h + 1) / 2}
	c.free = make([]bool, c.w*c.h)
	for cy := range c.h {
		for cx := range c.w {
			x, y := 2*cx, 2*cy
			c.free[cy*c.w+cx] = x+1 < l.w && y+1 < l.h &&
				l.free[y*l.w+x] && l.free[y*l.w+x+1] && l.free[(y+1)*l.w+x] && l.free[(y+1)*l.w+x+1]
		}
	}
	return c
}

func (l level) coarsest() bool { return l.w <= coarsestSide || l.h <= coarsestSide }

// solveMembrane solves Laplace's equation on the free cells of a w×h grid
// of three-channel values (interleaved): each free cell ends as the mean
// of its four neighbours, the fixed cells keep their values. Free cells
// must not lie on the grid's border.
//
// It is full multigrid: the problem is restricted to a grid of half the
// size (fixed coarse values are the mean of the fixed cells they cover)
// and solved there the same way, the solution is interpolated back as the
// starting point, and V-cycles (Gauss–Seidel smoothing around a
// correction solved on the coarser grids) finish it. Once done is closed
// (nil: never) it stops between V-cycles, leaving val unfinished.
func solveMembrane(val []float32, free []bool, w, h int, done <-chan struct{}) {
	l := level{w: w, h: h, free: free}
	hasFree := false
	for _, f := range free {
		hasFree = hasFree || f
	}
	if !hasFree {
		return
	}
	if l.coarsest() {
		startAtMean(val, free)
		relax(l, val, nil, coarseSweeps, converging)
		return
	}
	c := l.coarser()
	cval := restrictValues(l, val, c)
	solveMembrane(cval, c.free, c.w, c.h, done)
	interpolate(l, val, c, cval, false)
	for range vCycles {
		if stopped(done) {
			return
		}
		vCycle(l, val, nil)
	}
}

// vCycle improves u, an approximate solution of 4u − Σneighbours = rhs on
// l's free cells (rhs nil means zero): smooth, solve for the error on the
// coarser grid from the restricted residual, correct, smooth again.
func vCycle(l level, u, rhs []float32) {
	if l.coarsest() {
		relax(l, u, rhs, coarseSweeps, converging)
		return
	}
	relax(l, u, rhs, preSweeps, smoothing)
	c := l.coarser()
	// The error e satisfies the same equation with the residual as its
	// right-hand side and zero on fixed cells. On a grid of twice the
	// spacing the unscaled five-point operator is four times larger, so
	// the coarse right-hand side is four times the mean of the four fine
	// residuals: their sum.
	crhs := make([]float32, 3*c.w*c.h)
	for cy := range c.h {
		for cx := range c.w {
			j := cy*c.w + cx
			if !c.free[j] {
				continue
			}
			for _, i := range [4]int{2*cy*l.w + 2*cx, 2*cy*l.w + 2*cx + 1, (2*cy+1)*l.w + 2*cx, (2*cy+1)*l.w + 2*cx + 1} {
				for k := range 3 {
					crhs[3*j+k] += residual(l, u, rhs, i, k)
				}
			}
		}
	}
	e := make([]float32, 3*c.w*c.h)
	vCycle(c, e, crhs)
	interpolate(l, u, c, e, true)
	relax(l, u, rhs, postSweeps, smoothing)
}

// residual is rhs − (4u − Σneighbours) at free cell i, channel k.
func residual(l level, u, rhs []float32, i, k int) float32 {
	r := u[3*(i-1)+k] + u[3*(i+1)+k] + u[3*(i-l.w)+k] + u[3*(i+l.w)+k] - 4*u[3*i+k]
	if rhs != nil {
		r += rhs[3*i+k]
	}
	return r
}

// restrictValues returns the problem on the coarser grid c: each fixed
// coarse cell holds the mean of the fixed cells it covers.
func restrictValues(l level, val []float32, c level) []float32 {
	cval := make([]float32, 3*c.w*c.h)
	for cy := range c.h {
		for cx := range c.w {
			j := cy*c.w + cx
			if c.free[j] {
				continue
			}
			var sum [3]float32
			n := 0
			for y := 2 * cy; y < min(2*cy+2, l.h); y++ {
				for x := 2 * cx; x < min(2*cx+2, l.w); x++ {
					if i := y*l.w + x; !l.free[i] {
						n++
						for k := range 3 {
							sum[k] += val[3*i+k]
						}
					}
				}
			}
			if n == 0 {
				// All four cells are free but a neighbour is cut off by
				// the grid's edge; the value is never read.
				continue
			}
			for k := range 3 {
				cval[3*j+k] = sum[k] / float32(n)
			}
		}
	}
	return cval
}

// interpolate sets (add false) or adds to (add true) every free cell of
// l the bilinear interpolation of cval, c's values, at the cell's centre.
func interpolate(l level, val []float32, c level, cval []float32, add bool) {
	for y := range l.h {
		// Fine centre y+0.5 is coarse coordinate (y+0.5)/2, whose cell
		// centres sit at integer+0.5.
		v := (float32(y)+0.5)/2 - 0.5
		y0 := clamp(int(v), 0, c.h-1)
		y1 := min(y0+1, c.h-1)
		fy := v - float32(y0)
		for x := range l.w {
			i := y*l.w + x
			if !l.free[i] {
				continue
			}
			u := (float32(x)+0.5)/2 - 0.5
			x0 := clamp(int(u), 0, c.w-1)
			x1 := min(x0+1, c.w-1)
			fx := u - float32(x0)
			for k := range 3 {
				top := cval[3*(y0*c.w+x0)+k] + fx*(cval[3*(y0*c.w+x1)+k]-cval[3*(y0*c.w+x0)+k])
				bottom := cval[3*(y1*c.w+x0)+k] + fx*(cval[3*(y1*c.w+x1)+k]-cval[3*(y1*c.w+x0)+k])
				if add {
					val[3*i+k] += top + fy*(bottom-top)
				} else {
					val[3*i+k] = top + fy*(bottom-top)
				}
			}
		}
	}
}

// startAtMean sets the free cells to the mean of the fixed ones, the
// coarsest level's starting point.
func startAtMean(val []float32, free []bool) {
	var sum [3]float64
	n := 0
	for i, f := range free {
		if !f {
			for k := range 3 {
				sum[k] += float64(val[3*i+k])
			}
			n++
		}
	}
	for i, f := range free {
		if f {
			for k := range 3 {
				val[3*i+k] = float32(sum[k] / float64(n))
			}
		}
	}
}

// relax runs red-black Gauss–Seidel sweeps, relaxed by omega, over the
// free cells of 4u − Σneighbours = rhs (rhs nil means zero). Visiting the
// two colours of a checkerboard in turn makes a sweep independent of the
// visiting order.
func relax(l level, u, rhs []float32, sweeps int, omega float32) {
	w := l.w
	for range sweeps {
		for colour := range 2 {
			for y := 1; y < l.h-1; y++ {
				for x := 1 + (y+colour)%2; x < w-1; x += 2 {
					i := y*w + x
					if !l.free[i] {
						continue
					}
					up, down, left, right := 3*(i-w), 3*(i+w), 3*(i-1), 3*(i+1)
					for k := range 3 {
						sum := u[up+k] + u[down+k] + u[left+k] + u[right+k]
						if rhs != nil {
							sum += rhs[3*i+k]
						}
						u[3*i+k] += omega * (sum/4 - u[3*i+k])
					}
				}
			}
		}
	}
}
