package matte

import (
	"container/heap"
	"math"
	"slices"
)

// borderDistance is, for each pixel of the w×h grid, the geodesic
// distance to the picture's frame: the least sum of colour steps along a
// 4-connected path from the pixel to the outermost columns or top row
// (the bottom edge often cuts the subject, see salientSeed), leaving out
// the frame's pixels in subject (nil: none), each step
// costing its colour difference beyond floor (in 8-bit units), so that
// sensor noise and a smooth gradient (a sky, a wall in falling light)
// cost nothing. Background is joined to the frame by such paths; a
// subject is walled off from it by its outline, however much of the
// frame's colours it has (Wei, Wen, Zhu and Sun, "Geodesic saliency
// using background priors", 2012).
func borderDistance(w, h int, px []rgb, floor float64, subject []bool) []float64 {
	frame := make([]bool, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			frame[i] = (x == 0 || y == 0 || x == w-1) && (subject == nil || !subject[i])
		}
	}
	return geodesic(w, h, px, floor, frame, nil, math.Inf(1))
}

// geodesic is, for each pixel of the w×h grid, the least sum of colour
// steps beyond floor along a 4-connected path from a from pixel, through
// pixels through allows (nil: all), stopping at limit: +Inf where no
// such path is shorter.
func geodesic(w, h int, px []rgb, floor float64, from, through []bool, limit float64) []float64 {
	dist := make([]float64, w*h)
	q := &distQueue{}
	for i := range dist {
		dist[i] = math.Inf(1)
		if from[i] {
			dist[i] = 0
			q.items = append(q.items, distItem{i: int32(i)}) //nolint:gosec // G115: working-grid index
		}
	}
	heap.Init(q)
	for q.Len() > 0 {
		it := heap.Pop(q).(distItem) //nolint:forcetypeassert // the queue holds distItems
		i := int(it.i)
		if it.d > dist[i] {
			continue
		}
		x := i % w
		for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if j < 0 || j >= len(dist) || (j == i-1 && x == 0) || (j == i+1 && x == w-1) || (through != nil && !through[j]) {
				continue
			}
			step := max(0, math.Sqrt(float64(dist2(px[i], px[j])))-floor)
			if d := dist[i] + step; d < dist[j] && d <= limit {
				dist[j] = d
				heap.Push(q, distItem{i: int32(j), d: d}) //nolint:gosec // G115: working-grid index
			}
		}
	}
	return dist
}

// normalised scales d so that its q-quantile is 1, clamping above.
func normalised(d []float64, q float64) []float64 {
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	top := sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
	out := make([]float64, len(d))
	if top <= 0 {
		return out
	}
	for i, v := range d {
		out[i] = min(v/top, 1)
	}
	return out
}

type distItem struct {
	i int32
	d float64
}

type distQueue struct{ items []distItem }

func (q *distQueue) Len() int           { return len(q.items) }
func (q *distQueue) Less(a, b int) bool { return q.items[a].d < q.items[b].d }
func (q *distQueue) Swap(a, b int)      { q.items[a], q.items[b] = q.items[b], q.items[a] }
func (q *distQueue) Push(x any)         { q.items = append(q.items, x.(distItem)) } //nolint:forcetypeassert // only distItems are pushed
func (q *distQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}
