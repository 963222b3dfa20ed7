package tesseract

import "image"

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
	// stem, not the hairline edge of a photo pasted on a backdrop.
	minStem = 0.125
	// Neighbours on a line: heights within a factor of lineHeight, centres
	// within lineCentre of the height, at most lineGap heights apart.
	lineHeight = 1.6
	lineCentre = 0.35
	lineGap    = 1.2
)

// Ink splits the grey picture g into the pages the engine reads: one of
// light ink (a white or yellow fill) and one of dark ink (black text on
// a light plate), each black on white and holding only the shapes that
// line up like letters: of a similar height, side by side. A pixel is
// ink where the luma range of the window around it is at least inkRange
// and it lies on its polarity's side of the window's mid-range
// (Bernsen's threshold). A polarity without two such shapes yields no
// page.
func Ink(g *image.Gray) []*image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return nil
	}
	r := max(2, int(inkWindow*float64(max(w, h))+0.5))
	lo, hi := minMax(g, r)
	var pages []*image.Gray
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
		letters := lineUp(shapes(mask, w, h), h)
		if len(letters) < 2 {
			continue
		}
		page := image.NewGray(image.Rect(0, 0, w, h))
		for i := range page.Pix {
			page.Pix[i] = 0xff
		}
		for _, s := range letters {
			for _, p := range s.px {
				page.Pix[p] = 0
			}
		}
		pages = append(pages, page)
	}
	return pages
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

// shape is a 4-connected set of ink pixels: its box, and its pixels as
// row-major indices.
type shape struct {
	box image.Rectangle
	px  []int
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

// lineUp keeps the shapes sized like letters (in a picture h tall) that
// have a neighbour like them on the same line.
func lineUp(all []shape, h int) []shape {
	var cand []shape
	for _, s := range all {
		bw, bh := s.box.Dx(), s.box.Dy()
		fill := float64(len(s.px)) / float64(bw*bh)
		if bh < minGlyph || float64(bh) > maxGlyphShare*float64(h) || bw > maxGlyphAspect*bh ||
			fill < minGlyphFill || (fill > maxGlyphFill && (2*bw > bh || minStem*float64(bh) > float64(bw))) {
			continue
		}
		cand = append(cand, s)
	}
	var out []shape
	for i, a := range cand {
		for j, b := range cand {
			if i != j && neighbours(a.box, b.box) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// neighbours reports whether b could be the next letter or word of a's
// line: a similar height, a similar centre line, and close.
func neighbours(a, b image.Rectangle) bool {
	ah, bh := float64(a.Dy()), float64(b.Dy())
	if bh*lineHeight < ah || bh > lineHeight*ah {
		return false
	}
	d := float64(a.Min.Y+a.Max.Y-b.Min.Y-b.Max.Y) / 2
	if d > lineCentre*ah || d < -lineCentre*ah {
		return false
	}
	gap := max(b.Min.X-a.Max.X, a.Min.X-b.Max.X)
	return float64(gap) <= lineGap*ah
}
