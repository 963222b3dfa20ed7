package tesseract

import (
	"image"
	"slices"
)

// Ink parameters. The window is a share of the picture's longer side, so
// the split behaves the same at any working size.
const (
	// inkWindow is the radius of the local window, in shares of the
	// longer side (6 px at 640): wider than a headline's outline, so a
	// fill pixel sees its outline and the outline sees the fill.
	inkWindow = 0.01
	// inkRange is the least local luma range (of 255) where ink is
	// looked for: lettering is set to stand out; soft photo tones do not.
	inkRange = 100
	// minGlyph is the least height of a letter, in pixels: smaller
	// specks are noise (and unreadable for the engine anyway).
	minGlyph = 8
	// maxGlyphShare is the tallest letter as a share of the picture's
	// height; maxGlyphAspect the widest shape (touching letters of a
	// word) over its height.
	maxGlyphShare  = 0.5
	maxGlyphAspect = 12
	// minGlyphFill and maxGlyphFill bound the share of a shape's box its
	// ink covers: strokes, not hairlines or solid blocks (a narrow solid
	// bar is an I, l or 1).
	minGlyphFill = 0.12
	maxGlyphFill = 0.95
	// minStem is the least width of a solid bar over its height: an I's
	// stem (Bebas Neue's is 0.11 of its height), not the hairline edge of
	// a photo pasted on a backdrop.
	minStem = 0.08
	// Neighbours on a line: heights within a factor of lineHeight, centres
	// within lineCentre of the height, at most lineGap heights apart.
	lineHeight = 1.6
	lineCentre = 0.35
	lineGap    = 1.2
	// Neighbours at least toneGlyph pixels tall differ by at most
	// lineTone in median grey: the letters of a line are filled alike,
	// while the photo showing through the gap between two outlined words
	// is lighter than the outlines around it (ink) but not as light as
	// the letters, and as a neighbour it bridges the word space
	// ("WEHAVE"). Smaller letters are left alone: their median is mostly
	// anti-aliasing, lower in a thin letter than in a heavy one.
	lineTone  = 64
	toneGlyph = 20
	// lineAlign is how far, in letter heights, the tops or bottoms of
	// letters on one line may differ; shortLine is the most shapes of a
	// line held to the alignment of capitals (see lineLike).
	lineAlign = 0.1
	shortLine = 3
)

// Ink splits the grey picture g into the pages the engine reads, one per
// line of letters: each is black on white, holds only that line's
// letters, and has the bounds of the line's box in g, with a margin of
// half its height. The letters are the shapes of light ink (a white or
// yellow fill) or of dark ink (black text on a light plate) that line up
// like letters: of a similar height and tone, side by side, on a
// baseline (lineLike). A pixel is ink where the luma range of the window
// around it is at least inkRange and it lies on its polarity's side of
// the window's mid-range (Bernsen's threshold).
//
// The engine is shown one line at a time: given a whole picture it finds
// lines of its own, and specks of photo near tight capitals (Bebas Neue's
// word spaces are narrow) pull it into joining words ("ITFOR") or
// dropping them; alone, a line reads as it is set.
func Ink(g *image.Gray) []*image.Gray {
	lines := tallest(inkLines(g), maxLines)
	pages := make([]*image.Gray, len(lines))
	for i, line := range lines {
		pages[i] = linePage(line, g.Rect.Dx(), g.Rect.Dy())
	}
	return pages
}

// inkLines are the lines of letters of g, light ink first, as Ink
// describes them.
func inkLines(g *image.Gray) [][]shape {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return nil
	}
	r := max(2, int(inkWindow*float64(max(w, h))+0.5))
	lo, hi := minMax(g, r)
	var lines [][]shape
	for _, light := range [2]bool{true, false} {
		mask := make([]bool, w*h)
		for y := range h {
			row := g.Pix[y*g.Stride:]
			for x := range w {
				i := y*w + x
				a, b := int(lo[i]), int(hi[i])
				if v := int(row[x]); b-a >= inkRange && (2*v > a+b) == light {
					mask[i] = true
				}
			}
		}
		for _, line := range lineUp(shapes(mask, w, h), g) {
			if lineLike(line) {
				lines = append(lines, line)
			}
		}
	}
	return lines
}

// medianHeight is the median height of a line's letters.
func medianHeight(line []shape) int {
	hs := make([]int, len(line))
	for i, s := range line {
		hs[i] = s.box.Dy()
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// maxLines is the most lines Ink gives the engine, one read each: a
// thumbnail carries a few lines of big words, while a picture of a page
// of small print (or texture lined up by chance) would otherwise cost a
// read per line, the work growing with what the picture shows rather
// than its size.
const maxLines = 24

// tallest is the n lines of lines with the tallest letters (by median
// height), in their order.
func tallest(lines [][]shape, n int) [][]shape {
	if len(lines) <= n {
		return lines
	}
	height := make([]int, len(lines))
	order := make([]int, len(lines))
	for i, l := range lines {
		height[i], order[i] = medianHeight(l), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return height[b] - height[a] })
	keep := order[:n]
	slices.Sort(keep)
	out := make([][]shape, n)
	for k, i := range keep {
		out[k] = lines[i]
	}
	return out
}

// lineLike reports whether the shapes of a line sit like letters: most
// end on one baseline, and a short line (shortLine shapes or fewer) is
// level like capitals and digits, all sharing top and bottom. Read alone,
// a line of a few shapes of photo texture is often named with
// confidence; lined up by chance this well, it seldom is.
func lineLike(line []shape) bool {
	if len(line) <= shortLine {
		for _, s := range line[1:] {
			if !level(line[0].box, s.box) {
				return false
			}
		}
		return true
	}
	bottoms := make([]int, len(line))
	for i, s := range line {
		bottoms[i] = s.box.Max.Y
	}
	slices.Sort(bottoms)
	base, tol := bottoms[len(line)/2], lineAlign*float64(medianHeight(line))
	on := 0
	for _, s := range line {
		if float64(abs(s.box.Max.Y-base)) <= tol {
			on++
		}
	}
	return 2*on > len(line)
}

// level reports whether a and b share their top and bottom, within
// lineAlign of the taller one's height.
func level(a, b image.Rectangle) bool {
	tol := lineAlign * float64(max(a.Dy(), b.Dy()))
	return float64(abs(a.Min.Y-b.Min.Y)) <= tol && float64(abs(a.Max.Y-b.Max.Y)) <= tol
}

func abs(v int) int { return max(v, -v) }

// linePage draws the letters of a line (shapes of a w×h picture) black on
// white, on a page whose bounds are their box with a margin of half its
// height, within the picture.
func linePage(line []shape, w, h int) *image.Gray {
	box := line[0].box
	for _, s := range line[1:] {
		box = box.Union(s.box)
	}
	box = box.Inset(-box.Dy() / 2).Intersect(image.Rect(0, 0, w, h))
	page := image.NewGray(box)
	for i := range page.Pix {
		page.Pix[i] = 0xff
	}
	for _, s := range line {
		for _, p := range s.px {
			page.Pix[page.PixOffset(p%w, p/w)] = 0
		}
	}
	return page
}

// minMax are the least and greatest values of g in the (2r+1)² window
// around each pixel (clipped at the edges), row-major: a separable pass
// along rows, then along columns, each in constant time per pixel
// (van Herk and Gil–Werman).
func minMax(g *image.Gray, r int) (lo, hi []uint8) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	rlo, rhi := make([]uint8, w*h), make([]uint8, w*h)
	var s slider
	line := make([]uint8, max(w, h))
	for y := range h {
		s.run(g.Pix[y*g.Stride:y*g.Stride+w], r, rlo[y*w:(y+1)*w], rhi[y*w:(y+1)*w])
	}
	lo, hi = make([]uint8, w*h), make([]uint8, w*h)
	clo, chi, col := make([]uint8, h), make([]uint8, h), line[:h]
	for x := range w {
		for y := range h {
			col[y] = rlo[y*w+x]
		}
		s.run(col, r, clo, nil)
		for y := range h {
			col[y] = rhi[y*w+x]
		}
		s.run(col, r, nil, chi)
		for y := range h {
			lo[y*w+x], hi[y*w+x] = clo[y], chi[y]
		}
	}
	return lo, hi
}

// slider computes sliding-window minima and maxima of a line; its
// buffers are reused between lines.
type slider struct{ pad, pre, suf []uint8 }

// run writes into lo and hi (either may be nil) the least and greatest
// value of v within r of each position. The line is padded with r values
// that never win on each side, so every window is 2r+1 long; blocks of
// that length hold prefix and suffix extremes, and a window spans at
// most two blocks.
func (s *slider) run(v []uint8, r int, lo, hi []uint8) {
	k := 2*r + 1
	n := len(v) + 2*r
	n += (k - n%k) % k
	if cap(s.pad) < n {
		s.pad, s.pre, s.suf = make([]uint8, n), make([]uint8, n), make([]uint8, n)
	}
	if lo != nil {
		s.extremes(v, r, n, lo, true)
	}
	if hi != nil {
		s.extremes(v, r, n, hi, false)
	}
}

// extremes writes the window minima (least) or maxima of v into out,
// through the padded line of length n.
func (s *slider) extremes(v []uint8, r, n int, out []uint8, least bool) {
	k := 2*r + 1
	pad, pre, suf := s.pad[:n], s.pre[:n], s.suf[:n]
	better, neutral := func(a, b uint8) uint8 { return max(a, b) }, uint8(0)
	if least {
		better, neutral = func(a, b uint8) uint8 { return min(a, b) }, 0xff
	}
	for i := range pad {
		pad[i] = neutral
	}
	copy(pad[r:], v)
	for b := 0; b < n; b += k {
		pre[b] = pad[b]
		for i := b + 1; i < b+k; i++ {
			pre[i] = better(pre[i-1], pad[i])
		}
		suf[b+k-1] = pad[b+k-1]
		for i := b + k - 2; i >= b; i-- {
			suf[i] = better(suf[i+1], pad[i])
		}
	}
	for i := range v {
		// The window of v[i] is pad[i : i+k].
		out[i] = better(suf[i], pre[i+k-1])
	}
}

// shape is a 4-connected set of ink pixels: its box, its pixels as
// row-major indices, and (once lineUp measures it) its median grey.
type shape struct {
	box  image.Rectangle
	px   []int
	tone int
}

// shapes are the 4-connected components of mask (w×h, row-major).
func shapes(mask []bool, w, h int) []shape {
	seen := make([]bool, w*h)
	var out []shape
	var stack []int
	for i, on := range mask {
		if !on || seen[i] {
			continue
		}
		s := shape{box: image.Rect(i%w, i/w, i%w+1, i/w+1)}
		stack = append(stack[:0], i)
		seen[i] = true
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.px = append(s.px, j)
			x, y := j%w, j/w
			s.box = s.box.Union(image.Rect(x, y, x+1, y+1))
			for _, n := range [4]int{j - 1, j + 1, j - w, j + w} {
				switch {
				case n < 0 || n >= w*h, n == j-1 && x == 0, n == j+1 && x == w-1:
					continue
				}
				if mask[n] && !seen[n] {
					seen[n] = true
					stack = append(stack, n)
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// lineUp groups the shapes of g sized like letters into lines: chains of
// neighbours. Shapes without a neighbour are dropped; the lines are in
// the order of their first shape.
func lineUp(all []shape, g *image.Gray) [][]shape {
	h := g.Rect.Dy()
	var cand []shape
	for _, s := range all {
		bw, bh := s.box.Dx(), s.box.Dy()
		fill := float64(len(s.px)) / float64(bw*bh)
		if bh < minGlyph || float64(bh) > maxGlyphShare*float64(h) || bw > maxGlyphAspect*bh ||
			fill < minGlyphFill || (fill > maxGlyphFill && (2*bw > bh || minStem*float64(bh) > float64(bw))) {
			continue
		}
		s.tone = medianTone(g, s)
		cand = append(cand, s)
	}
	parent := make([]int, len(cand))
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, a := range cand {
		for j := i + 1; j < len(cand); j++ {
			if neighbours(a, cand[j]) || neighbours(cand[j], a) {
				parent[root(j)] = root(i)
			}
		}
	}
	index := map[int]int{}
	var lines [][]shape
	for i, s := range cand {
		k, ok := index[root(i)]
		if !ok {
			k = len(lines)
			index[root(i)] = k
			lines = append(lines, nil)
		}
		lines[k] = append(lines[k], s)
	}
	return slices.DeleteFunc(lines, func(l []shape) bool { return len(l) < 2 })
}

// neighbours reports whether b could be the next letter or word of a's
// line: a similar height, a similar centre line, close, and (when both
// are tall enough to tell) a similar tone.
func neighbours(sa, sb shape) bool {
	a, b := sa.box, sb.box
	ah, bh := float64(a.Dy()), float64(b.Dy())
	if bh*lineHeight < ah || bh > lineHeight*ah {
		return false
	}
	d := float64(a.Min.Y+a.Max.Y-b.Min.Y-b.Max.Y) / 2
	if d > lineCentre*ah || d < -lineCentre*ah {
		return false
	}
	gap := max(b.Min.X-a.Max.X, a.Min.X-b.Max.X)
	if float64(gap) > lineGap*ah {
		return false
	}
	return min(a.Dy(), b.Dy()) < toneGlyph || max(sa.tone-sb.tone, sb.tone-sa.tone) <= lineTone
}

// medianTone is the median grey of s's pixels in g.
func medianTone(g *image.Gray, s shape) int {
	w := g.Rect.Dx()
	var hist [256]int
	for _, p := range s.px {
		hist[g.Pix[(p/w)*g.Stride+p%w]]++
	}
	seen := 0
	for v, n := range hist {
		if seen += n; 2*seen >= len(s.px) {
			return v
		}
	}
	return 255
}
