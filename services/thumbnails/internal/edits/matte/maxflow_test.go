package matte

import (
	"math/rand/v2"
	"testing"
)

// TestGridCutIsMinimal compares the graph cut with every labelling of
// small grids, and again after the terminal capacities change (the
// residual graph is reused then).
func TestGridCutIsMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		w, h := 2+rng.IntN(3), 2+rng.IntN(2)
		n := w * h
		g := newGrid(w, h)
		pairs := make(map[[2]int32]int32)
		g.forEachPair(func(a, i, j int32) {
			c := int32(rng.IntN(30))
			g.setPair(a, c)
			pairs[[2]int32{i, j}] = c
		})
		for change := range 2 {
			source, sink := make([]int32, n), make([]int32, n)
			for i := range n {
				source[i], sink[i] = int32(rng.IntN(40)), int32(rng.IntN(40))
				if rng.IntN(10) == 0 {
					source[i] = hardCap
				}
				g.setTerminal(i, source[i], sink[i])
			}
			g.maxflow(t.Context())
			energy := func(fg func(int) bool) int64 {
				e := int64(0)
				for i := range n {
					if fg(i) {
						e += int64(sink[i])
					} else {
						e += int64(source[i])
					}
				}
				for p, c := range pairs {
					if fg(int(p[0])) != fg(int(p[1])) {
						e += int64(c)
					}
				}
				return e
			}
			got := energy(g.source)
			best := int64(-1)
			for m := range 1 << n {
				e := energy(func(i int) bool { return m>>i&1 == 1 })
				if best < 0 || e < best {
					best = e
				}
			}
			if got != best {
				t.Fatalf("trial %d, change %d, %d×%d: cut energy %d, minimum %d", trial, change, w, h, got, best)
			}
		}
	}
}
