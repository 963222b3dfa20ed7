package matte

import "context"

// grid is an s-t graph over a w×h pixel grid with 8-connected
// neighbour arcs, cut by Boykov and Kolmogorov's max-flow algorithm
// ("An experimental comparison of min-cut/max-flow algorithms for energy
// minimization in vision", PAMI 2004): two search trees grow from the
// terminals and are repaired, not rebuilt, after each augmentation, which
// on image grids beats push-relabel and plain augmenting paths by far.
//
// Capacities are integers so that "saturated" is exact: the segmentation
// energies are scaled to fixed point before they reach the graph.
type grid struct {
	// Per node.
	first  []int32 // first arc out of the node
	trCap  []int32 // residual terminal capacity: > 0 from the source, < 0 to the sink
	parent []int32 // arc to the parent in its search tree, or a marker below
	sink   []bool  // which tree the node is in, when parent is not noParent
	ts     []int32 // time stamp of dist, for the orphan-adoption heuristic
	dist   []int32 // distance to the terminal, valid when ts is current
	active []bool

	// Per arc; arcs come in pairs, so an arc's reverse is a^1.
	head    []int32
	nextArc []int32
	rCap    []int32

	// want is each node's terminal capacity difference as last set: a
	// new cut on the same graph starts from the previous one's residual
	// capacities, changed only by the difference (Kohli and Torr's dynamic
	// graph cuts), so a model update that moves few labels costs little.
	want []int32

	queue   ring
	orphans []int32
	time    int32
}

// Markers stored in parent.
const (
	noParent = -1 // a free node, in neither tree
	terminal = -2 // a node hanging directly from its terminal
	orphan   = -3 // a node that lost its parent arc and awaits adoption
)

const infDist = 1 << 30

// neighbourOffsets are the forward half of the 8-neighbourhood; each
// gives one arc pair, so every neighbour pair is linked once.
var neighbourOffsets = [4][2]int{{1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// newGrid builds the graph's topology. The neighbour capacities are set
// once with setPair, the terminal ones before each cut with setTerminal.
func newGrid(w, h int) *grid {
	n := w * h
	g := &grid{
		first:  make([]int32, n),
		trCap:  make([]int32, n),
		parent: make([]int32, n),
		sink:   make([]bool, n),
		ts:     make([]int32, n),
		dist:   make([]int32, n),
		active: make([]bool, n),
		want:   make([]int32, n),
		queue:  newRing(n),
	}
	for i := range g.first {
		g.first[i] = -1
	}
	arcs := 2 * 4 * n
	g.head = make([]int32, 0, arcs)
	g.nextArc = make([]int32, 0, arcs)
	for y := range h {
		for x := range w {
			for _, d := range neighbourOffsets {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || nx >= w || ny >= h {
					continue
				}
				g.link(int32(y*w+x), int32(ny*w+nx)) //nolint:gosec // G115: node indices of a working-size grid
			}
		}
	}
	g.rCap = make([]int32, len(g.head))
	return g
}

// link adds the arc pair i→j, j→i.
func (g *grid) link(i, j int32) {
	a := int32(len(g.head)) //nolint:gosec // G115: arc count of a working-size grid
	g.head = append(g.head, j, i)
	g.nextArc = append(g.nextArc, g.first[i], g.first[j])
	g.first[i], g.first[j] = a, a+1
}

// forEachPair calls fn with the forward arc of each neighbour pair and the
// two node indices, in creation order.
func (g *grid) forEachPair(fn func(a, i, j int32)) {
	for a := int32(0); a < int32(len(g.head)); a += 2 { //nolint:gosec // G115: arc count of a working-size grid
		fn(a, g.head[a+1], g.head[a])
	}
}

// setTerminal sets node i's capacities from the source (cost of putting
// it on the sink side) and to the sink (cost of the source side). Only
// their difference matters to the cut: the common part would be flow
// through the node from terminal to terminal whatever the labels.
func (g *grid) setTerminal(i int, source, sink int32) {
	d := source - sink
	g.trCap[i] += d - g.want[i]
	g.want[i] = d
}

// setPair sets the capacities of a neighbour arc pair, both directions,
// before the first cut.
func (g *grid) setPair(a, c int32) {
	g.rCap[a], g.rCap[a^1] = c, c
}

// maxflow computes the minimum cut for the capacities as set, read with
// source. Once ctx ends it stops within a few thousand steps and leaves
// the cut unfinished, which the caller discards.
func (g *grid) maxflow(ctx context.Context) {
	n := len(g.first)
	g.queue.clear()
	clear(g.active)
	g.orphans = g.orphans[:0]
	g.time = 0
	for i := range n {
		g.ts[i], g.dist[i] = 0, 0
		switch {
		case g.trCap[i] > 0:
			g.sink[i], g.parent[i] = false, terminal
			g.dist[i] = 1
			g.setActive(int32(i)) //nolint:gosec // G115: node index
		case g.trCap[i] < 0:
			g.sink[i], g.parent[i] = true, terminal
			g.dist[i] = 1
			g.setActive(int32(i)) //nolint:gosec // G115: node index
		default:
			g.parent[i] = noParent
		}
	}
	for step := 0; ; step++ {
		if step%stopCheck == 0 && ctx.Err() != nil {
			return
		}
		i, ok := g.queue.pop()
		if !ok {
			break
		}
		g.active[i] = false
		// A node stays current while paths are found from it: it is
		// likely to have more.
		for g.parent[i] != noParent {
			a := g.grow(i)
			g.time++
			if a < 0 {
				break
			}
			g.augment(a)
			g.adopt()
		}
	}
}

// grow looks at node i's neighbours: free ones join its tree, and the
// first arc that reaches the other tree is returned, oriented from the
// source tree to the sink tree (-1 when there is none).
func (g *grid) grow(i int32) int32 {
	if !g.sink[i] {
		for a := g.first[i]; a >= 0; a = g.nextArc[a] {
			if g.rCap[a] == 0 {
				continue
			}
			j := g.head[a]
			switch {
			case g.parent[j] == noParent:
				g.sink[j], g.parent[j] = false, a^1
				g.ts[j], g.dist[j] = g.ts[i], g.dist[i]+1
				g.setActive(j)
			case g.sink[j]:
				return a
			case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
				// A shorter path to the terminal: keep trees shallow.
				g.parent[j] = a ^ 1
				g.ts[j], g.dist[j] = g.ts[i], g.dist[i]+1
			}
		}
		return -1
	}
	for a := g.first[i]; a >= 0; a = g.nextArc[a] {
		if g.rCap[a^1] == 0 {
			continue
		}
		j := g.head[a]
		switch {
		case g.parent[j] == noParent:
			g.sink[j], g.parent[j] = true, a^1
			g.ts[j], g.dist[j] = g.ts[i], g.dist[i]+1
			g.setActive(j)
		case !g.sink[j]:
			return a ^ 1
		case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
			g.parent[j] = a ^ 1
			g.ts[j], g.dist[j] = g.ts[i], g.dist[i]+1
		}
	}
	return -1
}

// augment pushes the bottleneck along the path through the middle arc a
// (source tree → sink tree) and orphans the nodes whose parent arcs
// saturate.
func (g *grid) augment(a int32) {
	bottleneck := g.rCap[a]
	i := g.head[a^1]
	for {
		pa := g.parent[i]
		if pa == terminal {
			break
		}
		bottleneck = min(bottleneck, g.rCap[pa^1])
		i = g.head[pa]
	}
	bottleneck = min(bottleneck, g.trCap[i])
	i = g.head[a]
	for {
		pa := g.parent[i]
		if pa == terminal {
			break
		}
		bottleneck = min(bottleneck, g.rCap[pa])
		i = g.head[pa]
	}
	bottleneck = min(bottleneck, -g.trCap[i])

	g.rCap[a^1] += bottleneck
	g.rCap[a] -= bottleneck
	i = g.head[a^1]
	for {
		pa := g.parent[i]
		if pa == terminal {
			g.trCap[i] -= bottleneck
			if g.trCap[i] == 0 {
				g.makeOrphan(i)
			}
			break
		}
		g.rCap[pa] += bottleneck
		g.rCap[pa^1] -= bottleneck
		if g.rCap[pa^1] == 0 {
			g.makeOrphan(i)
		}
		i = g.head[pa]
	}
	i = g.head[a]
	for {
		pa := g.parent[i]
		if pa == terminal {
			g.trCap[i] += bottleneck
			if g.trCap[i] == 0 {
				g.makeOrphan(i)
			}
			break
		}
		g.rCap[pa^1] += bottleneck
		g.rCap[pa] -= bottleneck
		if g.rCap[pa] == 0 {
			g.makeOrphan(i)
		}
		i = g.head[pa]
	}
}

func (g *grid) makeOrphan(i int32) {
	g.parent[i] = orphan
	g.orphans = append(g.orphans, i)
}

// adopt finds each orphan a new parent in its own tree, preferring the
// one closest to the terminal, or frees it and orphans its children.
func (g *grid) adopt() {
	for len(g.orphans) > 0 {
		i := g.orphans[len(g.orphans)-1]
		g.orphans = g.orphans[:len(g.orphans)-1]
		g.adoptOne(i)
	}
}

func (g *grid) adoptOne(i int32) {
	isSink := g.sink[i]
	best, bestDist := int32(noParent), int32(infDist)
	for a0 := g.first[i]; a0 >= 0; a0 = g.nextArc[a0] {
		// The arc that would carry flow from the candidate parent to i
		// (source tree) or from i to it (sink tree) must have capacity.
		if isSink && g.rCap[a0] == 0 || !isSink && g.rCap[a0^1] == 0 {
			continue
		}
		j := g.head[a0]
		if g.sink[j] != isSink || g.parent[j] == noParent {
			continue
		}
		d := g.originDist(j)
		if d >= infDist {
			continue
		}
		if d < bestDist {
			best, bestDist = a0, d
		}
		// Stamp the path so later searches stop early.
		for k := j; g.ts[k] != g.time; k = g.head[g.parent[k]] {
			g.ts[k], g.dist[k] = g.time, d
			d--
		}
	}
	g.parent[i] = best
	if best != noParent {
		g.ts[i], g.dist[i] = g.time, bestDist+1
		return
	}
	// i is free now: its tree neighbours may grow into it again, and its
	// children are orphans.
	for a0 := g.first[i]; a0 >= 0; a0 = g.nextArc[a0] {
		j := g.head[a0]
		pj := g.parent[j]
		if g.sink[j] != isSink || pj == noParent {
			continue
		}
		if isSink && g.rCap[a0] > 0 || !isSink && g.rCap[a0^1] > 0 {
			g.setActive(j)
		}
		if pj != terminal && pj != orphan && g.head[pj] == i {
			g.makeOrphan(j)
		}
	}
}

// originDist is the length of the path from node j to its terminal, or
// infDist when the path ends at an orphan (j is cut off too).
func (g *grid) originDist(j int32) int32 {
	d := int32(0)
	for {
		if g.ts[j] == g.time {
			return d + g.dist[j]
		}
		a := g.parent[j]
		d++
		switch a {
		case terminal:
			g.ts[j], g.dist[j] = g.time, 1
			return d
		case orphan:
			return infDist
		}
		j = g.head[a]
	}
}

func (g *grid) setActive(i int32) {
	if !g.active[i] {
		g.active[i] = true
		g.queue.push(i)
	}
}

// source reports whether node i ended on the source side of the cut.
// Free nodes go to the sink, as in the reference implementation.
func (g *grid) source(i int) bool {
	return g.parent[i] != noParent && !g.sink[i]
}

// ring is a FIFO of node indices; a node is in it at most once (see
// active), so n slots suffice.
type ring struct {
	buf        []int32
	head, size int
}

func newRing(n int) ring { return ring{buf: make([]int32, n)} }

func (r *ring) clear() { r.head, r.size = 0, 0 }

func (r *ring) push(i int32) {
	r.buf[(r.head+r.size)%len(r.buf)] = i
	r.size++
}

func (r *ring) pop() (int32, bool) {
	if r.size == 0 {
		return 0, false
	}
	i := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return i, true
}

// stopCheck is how many nodes maxflow processes between looks at its
// context: a look costs a lock, a node a few arcs.
const stopCheck = 4096
