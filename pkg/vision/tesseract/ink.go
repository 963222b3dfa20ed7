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
// along rows, then along columns.
func minMax(g *image.Gray, r int) (lo, hi []uint8) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	rlo, rhi := make([]uint8, w*h), make([]uint8, w*h)
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x := range w {
			a, b := uint8(0xff), uint8(0)
			for _, v := range row[max(0, x-r):min(w, x+r+1)] {
				a, b = min(a, v), max(b, v)
			}
			rlo[y*w+x], rhi[y*w+x] = a, b
		}
	}
	lo, hi = make([]uint8, w*h), make([]uint8, w*h)
	for y := range h {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := range w {
			a, b := uint8(0xff), uint8(0)
			for k := y0; k < y1; k++ {
				a, b = min(a, rlo[k*w+x]), max(b, rhi[k*w+x])
			}
			lo[y*w+x], hi[y*w+x] = a, b
		}
	}
	return lo, hi
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
