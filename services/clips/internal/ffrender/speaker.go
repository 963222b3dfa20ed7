package ffrender

import (
	"image"
	"math"
	"sort"

	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/render"
)

// Active-speaker parameters, in tracking samples (trackFPS a second).
const (
	// maxGap: a face missed for up to this many samples keeps its place
	// (a blink of the detector); longer, and its track ends.
	maxGap = 4
	// minTrack: a track seen fewer times is a detector's false positive.
	minTrack = 3
	// evidenceHalf is the half-width of the window over which a mouth's
	// movement is compared with the speech energy (±1 s).
	evidenceHalf = 4
	// minEvidence is the least speaking evidence (the covariance of mouth
	// opening and energy over the energy's deviation, in face widths)
	// that names a speaker; a still mouth measures a tenth of it.
	minEvidence = 0.004
	// minTurn: a speaker is followed only after speaking this long, so a
	// reply of one syllable does not swing the crop.
	minTurn = 4
	// alternation: two faces that hand the word back within this many
	// samples (5 s) take turns too fast to follow; Auto splits them.
	alternation = 5 * trackFPS
	// minSplit is the shortest split stretch; a face lost for less keeps
	// the split.
	minSplit = 2 * trackFPS
)

// faceTrack is one face followed across samples: its box (empty when not
// seen) and mouth opening (NaN when not measured) per sample.
type faceTrack struct {
	boxes []image.Rectangle
	open  []float64
	count int
}

func (f *faceTrack) present(i int) bool { return !f.boxes[i].Empty() }

func (f *faceTrack) centre(i int) (float64, float64) {
	b := f.boxes[i]
	return float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2
}

// identify links the faces of each sample into tracks by overlap and
// position: a face continues the track whose last box it overlaps most
// (or whose centre is within half a face of its own), if that track was
// seen in the last maxGap samples and no scene cut came between. Short
// gaps are filled with the last box, so a track is present throughout a
// stretch where the detector blinked.
func identify(frames [][]facetrack.Face, cuts map[int]bool) []*faceTrack {
	n := len(frames)
	var tracks []*faceTrack
	last := map[*faceTrack]int{} // sample a track was last seen at
	for i, faces := range frames {
		if cuts[i] {
			clear(last)
		}
		taken := map[*faceTrack]bool{}
		// The largest faces choose first.
		order := make([]int, len(faces))
		for k := range order {
			order[k] = k
		}
		sort.SliceStable(order, func(a, b int) bool { return area(faces[order[a]].Box) > area(faces[order[b]].Box) })
		for _, k := range order {
			f := faces[k]
			var best *faceTrack
			bestScore := 0.0
			for _, tr := range tracks {
				at, ok := last[tr]
				if !ok || taken[tr] || i-at > maxGap+1 {
					continue
				}
				if s := match(tr.boxes[at], f.Box); s > bestScore || (s == bestScore && best != nil && s > 0 && at > last[best]) {
					best, bestScore = tr, s
				}
			}
			if best == nil {
				best = &faceTrack{boxes: make([]image.Rectangle, n), open: make([]float64, n)}
				for s := range best.open {
					best.open[s] = math.NaN()
				}
				tracks = append(tracks, best)
			} else if at := last[best]; i-at > 1 {
				for g := at + 1; g < i; g++ {
					best.boxes[g] = best.boxes[at]
				}
			}
			taken[best] = true
			best.boxes[i], best.open[i] = f.Box, f.Open
			best.count++
			last[best] = i
		}
	}
	kept := tracks[:0]
	for _, tr := range tracks {
		if tr.count >= minTrack {
			kept = append(kept, tr)
		}
	}
	return kept
}

// match scores box b as the continuation of a: their overlap (IoU), or
// a small score when the centres are within half a face; 0 otherwise.
func match(a, b image.Rectangle) float64 {
	inter := area(a.Intersect(b))
	if inter > 0 {
		return float64(inter) / float64(area(a)+area(b)-inter)
	}
	ax, ay := float64(a.Min.X+a.Max.X)/2, float64(a.Min.Y+a.Max.Y)/2
	bx, by := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
	if math.Hypot(ax-bx, ay-by) < 0.5*float64(max(a.Dx(), b.Dx())) {
		return 0.01
	}
	return 0
}

func area(r image.Rectangle) int {
	if r.Empty() {
		return 0
	}
	return r.Dx() * r.Dy()
}

// evidence is how much each track's mouth moves with the speech around
// each sample: over ±evidenceHalf samples, the covariance of its mouth
// opening with the energy divided by the energy's deviation (the
// correlation times the mouth's own deviation, so a still mouth scores
// about nothing however its jitter happens to correlate). Without energy
// (no audio, or a flat stretch) there is no evidence.
func evidence(tracks []*faceTrack, energy []float64) [][]float64 {
	out := make([][]float64, len(tracks))
	for k, tr := range tracks {
		out[k] = make([]float64, len(tr.open))
		for i := range tr.open {
			var os, es []float64
			for w := max(0, i-evidenceHalf); w <= min(len(tr.open)-1, i+evidenceHalf); w++ {
				if w < len(energy) && !math.IsNaN(tr.open[w]) {
					os, es = append(os, tr.open[w]), append(es, energy[w])
				}
			}
			if len(os) < evidenceHalf {
				continue
			}
			mo, me := mean(os), mean(es)
			cov, ve := 0.0, 0.0
			for w := range os {
				cov += (os[w] - mo) * (es[w] - me)
				ve += (es[w] - me) * (es[w] - me)
			}
			cov /= float64(len(os))
			if sd := math.Sqrt(ve / float64(len(os))); sd > 0.05 {
				out[k][i] = cov / sd
			}
		}
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// speakers names the track speaking at each sample (-1 before anyone
// has): the present track with the most evidence, when it has enough and
// clearly more than the others; otherwise the last speaker holds while
// still present. Turns shorter than minTurn are given to the speaker
// around them.
func speakers(tracks []*faceTrack, ev [][]float64, n int) []int {
	out := make([]int, n)
	cur := -1
	for i := range n {
		best, second := -1, 0.0
		for k, tr := range tracks {
			if !tr.present(i) {
				continue
			}
			switch e := ev[k][i]; {
			case best < 0 || e > ev[best][i]:
				if best >= 0 {
					second = math.Max(second, ev[best][i])
				}
				best = k
			default:
				second = math.Max(second, e)
			}
		}
		switch {
		case best >= 0 && ev[best][i] >= minEvidence && ev[best][i] > 1.5*second:
			cur = best
		case cur >= 0 && !tracks[cur].present(i):
			cur = -1
		}
		out[i] = cur
	}
	// Short turns go to the speaker before them (or after, at the start).
	for i := 0; i < n; {
		j := i
		for j < n && out[j] == out[i] {
			j++
		}
		if out[i] >= 0 && j-i < minTurn && (i > 0 || j < n) {
			fill := out[j%n]
			if i > 0 {
				fill = out[i-1]
			}
			if fill >= 0 && tracks[fill].present(i) {
				for s := i; s < j; s++ {
					out[s] = fill
				}
			}
		}
		i = j
	}
	return out
}

// largest is the present track to follow under Fill at each sample: the
// largest, kept until another is a fifth larger (two faces of one size
// would otherwise trade places with the detector's jitter).
func largest(tracks []*faceTrack, n int) []int {
	out := make([]int, n)
	cur := -1
	for i := range n {
		best := -1
		for k, tr := range tracks {
			if tr.present(i) && (best < 0 || area(tr.boxes[i]) > area(tracks[best].boxes[i])) {
				best = k
			}
		}
		if cur < 0 || !tracks[cur].present(i) || (best >= 0 && float64(area(tracks[best].boxes[i])) > 1.2*float64(area(tracks[cur].boxes[i]))) {
			cur = best
		}
		out[i] = cur
	}
	return out
}

// shot is the framing of one sample: one face (Follow, a track index, -1
// for none) or two stacked faces (Pair, track indices, top first).
type shot struct {
	follow int
	pair   [2]int
	split  bool
}

// plan chooses each sample's shot under layout.
func plan(layout render.Layout, tracks []*faceTrack, energy []float64, n int) []shot {
	shots := make([]shot, n)
	big := largest(tracks, n)
	follow := big
	var talk []int
	if layout != render.LayoutFill && len(tracks) > 1 {
		talk = speakers(tracks, evidence(tracks, energy), n)
		follow = make([]int, n)
		for i := range n {
			follow[i] = talk[i]
			if follow[i] < 0 {
				follow[i] = big[i]
			}
		}
	}
	for i := range shots {
		shots[i] = shot{follow: follow[i]}
	}
	switch layout {
	case render.LayoutSplit:
		for i := range shots {
			if a, b, ok := twoFaces(tracks, i, talk); ok {
				shots[i] = pairShot(tracks, i, a, b)
			}
		}
	case render.LayoutAuto:
		for _, s := range alternations(talk) {
			for i := s.from; i < s.to; i++ {
				if tracks[s.a].present(i) && tracks[s.b].present(i) {
					shots[i] = pairShot(tracks, i, s.a, s.b)
				}
			}
		}
	}
	// A split too short to read becomes the single framing.
	for i := 0; i < n; {
		j := i
		for j < n && shots[j].split == shots[i].split && shots[j].pair == shots[i].pair {
			j++
		}
		if shots[i].split && j-i < minSplit {
			for s := i; s < j; s++ {
				shots[s] = shot{follow: follow[s]}
			}
		}
		i = j
	}
	return shots
}

// pairShot stacks tracks a and b, the one further left on top.
func pairShot(tracks []*faceTrack, i, a, b int) shot {
	ax, _ := tracks[a].centre(i)
	if bx, _ := tracks[b].centre(i); bx < ax {
		a, b = b, a
	}
	return shot{follow: a, pair: [2]int{a, b}, split: true}
}

// twoFaces picks the two faces of a split at sample i: the speakers
// there, else the largest present tracks.
func twoFaces(tracks []*faceTrack, i int, talk []int) (int, int, bool) {
	var present []int
	for k, tr := range tracks {
		if tr.present(i) {
			present = append(present, k)
		}
	}
	if len(present) < 2 {
		return 0, 0, false
	}
	// Tracks that speak somewhere come first, then by size; ties by index.
	spoke := map[int]bool{}
	for _, s := range talk {
		if s >= 0 {
			spoke[s] = true
		}
	}
	sort.SliceStable(present, func(x, y int) bool {
		a, b := present[x], present[y]
		if spoke[a] != spoke[b] {
			return spoke[a]
		}
		return area(tracks[a].boxes[i]) > area(tracks[b].boxes[i])
	})
	return present[0], present[1], true
}

// stretch is a run of samples [from, to) where tracks a and b alternate.
type stretch struct {
	from, to, a, b int
}

// alternations finds where two speakers hand the word back and forth:
// each change of speaker within alternation samples of the one before,
// between the same two tracks, extends the stretch, which runs from the
// start of the first of its turns to the end of the last.
func alternations(talk []int) []stretch {
	type change struct{ at, from, to int }
	var changes []change
	for i := 1; i < len(talk); i++ {
		if talk[i] != talk[i-1] && talk[i] >= 0 && talk[i-1] >= 0 {
			changes = append(changes, change{i, talk[i-1], talk[i]})
		}
	}
	var out []stretch
	for k := 0; k < len(changes); {
		c := changes[k]
		j := k
		for j+1 < len(changes) && changes[j+1].at-changes[j].at <= alternation &&
			(changes[j+1].from == c.from || changes[j+1].from == c.to) && (changes[j+1].to == c.from || changes[j+1].to == c.to) {
			j++
		}
		if j > k {
			// The turn before the first change and after the last are
			// part of the exchange, up to alternation samples each.
			from := c.at
			for from > 0 && talk[from-1] == c.from && c.at-from < alternation {
				from--
			}
			end := changes[j]
			to := end.at
			for to < len(talk) && talk[to] == end.to && to-end.at < alternation {
				to++
			}
			out = append(out, stretch{from: from, to: to, a: c.from, b: c.to})
		}
		k = j + 1
	}
	return out
}
