package critique

import (
	"context"
	"image"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/tesseract"
)

// TextRegion is a text-like region found at mobile size.
type TextRegion struct {
	// Rect is the region in source pixels.
	Rect image.Rectangle
	// Height is the region's height in pixels at mobile size (the
	// copy whose longer side is 168 px, 94 px tall for 16:9).
	Height int
	// ContrastRatio is the WCAG contrast ratio (1..21) between the
	// region's two luminance classes at mobile size: the glyphs and what
	// surrounds them.
	ContrastRatio float64
}

// Text detection parameters, in pixels of the mobile copy and 8-bit luma.
const (
	// strokeEdge is the least horizontal luma step (central difference)
	// that counts as a glyph's stroke edge.
	strokeEdge = 16
	// strokeGap is the widest gap between stroke edges of one word: a
	// counter or the space between letters, not between words of
	// separate elements.
	strokeGap = 6
	// minEdges is the least number of alternating edges a run of a text
	// line holds: two strokes, each rising and falling.
	minEdges = 4
	// minTextHeight and minTextWidth bound a region from below (smaller
	// is not legible on a phone, or is a single mark).
	minTextHeight = 3
	minTextWidth  = 8
	// minTextAspect is the least width over height: text runs in lines.
	minTextAspect = 1.2
	// maxTextHeight is the tallest region as a share of the copy's
	// height: taller edge clusters are photographic texture.
	maxTextHeight = 0.5
	// minTextFill is the least share of the region's box covered by
	// text-like runs.
	minTextFill = 0.4
	// minBimodality is the least share of the region's luma variance
	// explained by Otsu's two-class split: glyphs on a background are two
	// tones; foliage and hair are many.
	minBimodality = 0.5
)

// run is a horizontal segment of a row that holds a text line's stroke
// edges, [x0, x1) on row y.
type run struct{ y, x0, x1 int }

// findText finds the text-like regions of the mobile copy m of a sw×sh
// source, ignoring faces (source pixels): eyes and mouths are stroke-like.
// It looks for rows of closely spaced, alternating strong horizontal
// steps (the vertical strokes of glyphs), joins them across rows into
// regions, and keeps the regions shaped like lines of text whose tones
// split cleanly in two.
func findText(m *image.RGBA, faces []image.Rectangle, sw, sh int) []TextRegion {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	if w < minTextWidth || h < minTextHeight {
		return nil
	}
	fx, fy := float64(w)/float64(sw), float64(h)/float64(sh)
	luma := make([]float64, w*h)
	lin := make([]float64, w*h)
	for y := range h {
		row := m.Pix[y*m.Stride:]
		for x := range w {
			i := 4 * x
			r, g, b := row[i], row[i+1], row[i+2]
			luma[y*w+x] = 0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)
			lin[y*w+x] = 0.2126*linear[r] + 0.7152*linear[g] + 0.0722*linear[b]
		}
	}
	masked := make([]bool, w*h)
	for _, f := range faces {
		r := image.Rect(int(float64(f.Min.X)*fx), int(float64(f.Min.Y)*fy),
			int(math.Ceil(float64(f.Max.X)*fx)), int(math.Ceil(float64(f.Max.Y)*fy))).Intersect(m.Rect)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				masked[y*w+x] = true
			}
		}
	}

	runs := strokeRuns(luma, masked, w, h)
	comps := joinRuns(runs)
	var out []TextRegion
	for _, c := range comps {
		box, covered := image.Rectangle{}, 0
		for i, r := range c {
			rb := image.Rect(r.x0, r.y, r.x1, r.y+1)
			if i == 0 {
				box = rb
			} else {
				box = box.Union(rb)
			}
			covered += r.x1 - r.x0
		}
		bw, bh := box.Dx(), box.Dy()
		if bh < minTextHeight || bw < minTextWidth || float64(bw) < minTextAspect*float64(bh) ||
			float64(bh) > maxTextHeight*float64(h) || float64(covered) < minTextFill*float64(area(box)) {
			continue
		}
		// The glyphs' edges sit on the box: a pixel of margin takes in
		// the surroundings they are read against.
		ring := box.Inset(-1).Intersect(m.Rect)
		ratio, ok := twoTones(luma, lin, w, ring)
		if !ok {
			continue
		}
		out = append(out, TextRegion{
			Rect: image.Rect(
				int(math.Floor(float64(box.Min.X)/fx)), int(math.Floor(float64(box.Min.Y)/fy)),
				min(sw, int(math.Ceil(float64(box.Max.X)/fx))), min(sh, int(math.Ceil(float64(box.Max.Y)/fy)))),
			Height:        bh,
			ContrastRatio: ratio,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return area(out[i].Rect) > area(out[j].Rect) })
	return out
}

// strokeRuns returns, row by row, the segments where at least minEdges
// stroke edges of both directions follow each other at most strokeGap
// apart, outside masked pixels.
func strokeRuns(luma []float64, masked []bool, w, h int) []run {
	var runs []run
	for y := range h {
		// Edges of one direction on neighbouring pixels are one edge.
		start, last, count, prev := -1, -1, 0, 0
		rising, falling := false, false
		flush := func() {
			if start >= 0 && count >= minEdges && rising && falling {
				runs = append(runs, run{y: y, x0: start, x1: last + 1})
			}
			start, count, rising, falling = -1, 0, false, false
		}
		for x := 1; x < w-1; x++ {
			i := y*w + x
			d := luma[i+1] - luma[i-1]
			sign := 0
			switch {
			case masked[i]:
			case d >= strokeEdge:
				sign = 1
			case d <= -strokeEdge:
				sign = -1
			}
			if sign == 0 {
				prev = 0
				continue
			}
			if start >= 0 && x-last > strokeGap {
				flush()
			}
			if start < 0 {
				start = x
			}
			if sign != prev {
				count++
				rising = rising || sign > 0
				falling = falling || sign < 0
			}
			last, prev = x, sign
		}
		flush()
	}
	return runs
}

// joinRuns groups runs that overlap horizontally on neighbouring rows,
// in the order their first run appears.
func joinRuns(runs []run) [][]run {
	parent := make([]int, len(runs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// Runs are sorted by row, so the previous row's runs are a window
	// behind the current one.
	prevStart, rowStart := 0, 0
	for i, r := range runs {
		if i > 0 && r.y != runs[i-1].y {
			if r.y == runs[i-1].y+1 {
				prevStart = rowStart
			} else {
				prevStart = i
			}
			rowStart = i
		}
		for j := prevStart; j < rowStart; j++ {
			if q := runs[j]; q.x0 < r.x1 && r.x0 < q.x1 {
				parent[find(i)] = find(j)
			}
		}
	}
	index := map[int]int{}
	var comps [][]run
	for i, r := range runs {
		root := find(i)
		k, ok := index[root]
		if !ok {
			k = len(comps)
			index[root] = k
			comps = append(comps, nil)
		}
		comps[k] = append(comps[k], r)
	}
	return comps
}

// twoTones splits the luma of box in two by Otsu's threshold and returns
// the WCAG contrast ratio of the two classes' mean relative luminance,
// and false when the split explains less than minBimodality of the
// variance (the region is not two-toned like text on a background).
func twoTones(luma, lin []float64, w int, box image.Rectangle) (float64, bool) {
	var hist [256]int
	n := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			hist[min(255, max(0, int(luma[y*w+x])))]++
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	var total, totalSq float64
	for v, c := range hist {
		total += float64(v * c)
		totalSq += float64(v * v * c)
	}
	mean := total / float64(n)
	variance := totalSq/float64(n) - mean*mean
	if variance <= 0 {
		return 0, false
	}
	best, threshold := 0.0, 0
	var cnt, sum float64
	for t := range 255 {
		cnt += float64(hist[t])
		sum += float64(t * hist[t])
		if cnt == 0 || cnt == float64(n) {
			continue
		}
		m0 := sum / cnt
		m1 := (total - sum) / (float64(n) - cnt)
		between := cnt * (float64(n) - cnt) * (m0 - m1) * (m0 - m1) / float64(n) / float64(n)
		if between > best {
			best, threshold = between, t
		}
	}
	if best/variance < minBimodality {
		return 0, false
	}
	var lo, hi float64
	var nlo, nhi int
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			i := y*w + x
			if int(luma[i]) <= threshold {
				lo += lin[i]
				nlo++
			} else {
				hi += lin[i]
				nhi++
			}
		}
	}
	if nlo == 0 || nhi == 0 {
		return 0, false
	}
	return (hi/float64(nhi) + 0.05) / (lo/float64(nlo) + 0.05), true
}

// linear maps an 8-bit sRGB component to linear light (0..1), the scale
// WCAG's relative luminance is defined on.
var linear = func() (t [256]float64) {
	for i := range t {
		t[i] = colour.SRGBToLinear(float64(i) / 255)
	}
	return t
}()

// Reader reads the words of a picture (*tesseract.Reader): only the words
// it is confident in, with boxes in the picture's coordinates. Errors:
// ctx's, or an engine failure.
type Reader interface {
	Read(ctx context.Context, img image.Image) ([]tesseract.Word, error)
}

// Reading is the text OCR read in the picture, and how much of it a phone
// still shows.
type Reading struct {
	// Words are the words read on the full-size picture, in reading
	// order (lines top to bottom, words left to right).
	Words []string
	// MobileWords are the words read on the mobile copy.
	MobileWords []string
	// Lost are the Words whose letters are not found again, in order, in
	// the mobile reading.
	Lost []string
	// Survived is the share of the Words' letters and digits read again
	// at mobile size (0..1): the longest common subsequence of the two
	// readings' characters over the full-size reading's. 0 without words.
	Survived float64
	// Boxes are the full-size words' boxes in the picture's pixels
	// (origin at its bounds' minimum).
	Boxes []image.Rectangle
}

// OCR working sizes. The full-size reading is of a copy ocrSide px on its
// longer side: thumbnail text is big, Tesseract reads letters 15–100 px
// tall best, and a 1280×720 picture takes about four times longer at no
// gain. The mobile copy (mobileSide) is enlarged mobileZoom times with
// bilinear filtering for the engine, which needs letters over about 10 px:
// the information is still that of the 168 px copy.
const (
	ocrSide    = 640
	mobileZoom = 4
)

// read is the Reading of img: OCR of a copy ocrSide px wide and of its
// mobile copy, read at the same time on two of r's handles (a picture
// without text wastes the mobile reading, which is cheap).
func read(ctx context.Context, r Reader, img image.Image) (Reading, error) {
	small := vision.RGBA8(img, mobileSide)
	zoomed := image.NewRGBA(image.Rect(0, 0, mobileZoom*small.Rect.Dx(), mobileZoom*small.Rect.Dy()))
	xdraw.BiLinear.Scale(zoomed, zoomed.Rect, small, small.Rect, xdraw.Src, nil)
	var mobile []tesseract.Word
	var mobileErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		mobile, mobileErr = r.Read(ctx, zoomed)
	}()
	fullCopy := vision.RGBA8(img, ocrSide)
	full, err := r.Read(ctx, fullCopy)
	<-done
	if err != nil {
		return Reading{}, err
	}
	rd := Reading{Words: inOrder(full), Boxes: scaleBoxes(full, fullCopy.Rect, img.Bounds().Size())}
	if len(rd.Words) == 0 {
		return rd, nil
	}
	if mobileErr != nil {
		return Reading{}, mobileErr
	}
	rd.MobileWords = inOrder(mobile)
	seen := letters(strings.Join(rd.MobileWords, ""))
	all := letters(strings.Join(rd.Words, ""))
	rd.Survived = float64(commonSubsequence(all, seen)) / float64(len(all))
	for _, w := range rd.Words {
		if !strings.Contains(seen, letters(w)) {
			rd.Lost = append(rd.Lost, w)
		}
	}
	return rd, nil
}

// TextBoxes are the boxes, in img's coordinates, of the words r reads on
// img (read on the same ocrSide copy as the critique's reading): where
// text already is, for placing more.
func TextBoxes(ctx context.Context, r Reader, img image.Image) ([]image.Rectangle, error) {
	small := vision.RGBA8(img, ocrSide)
	words, err := r.Read(ctx, small)
	if err != nil {
		return nil, err
	}
	boxes := scaleBoxes(words, small.Rect, img.Bounds().Size())
	for i := range boxes {
		boxes[i] = boxes[i].Add(img.Bounds().Min)
	}
	return boxes, nil
}

// scaleBoxes maps the words' boxes on a copy (bounds from) to a picture
// of size to, with its origin at (0, 0).
func scaleBoxes(words []tesseract.Word, from image.Rectangle, to image.Point) []image.Rectangle {
	kx := float64(to.X) / float64(max(1, from.Dx()))
	ky := float64(to.Y) / float64(max(1, from.Dy()))
	out := make([]image.Rectangle, 0, len(words))
	for _, w := range words {
		r := w.Box.Sub(from.Min)
		out = append(out, image.Rect(int(float64(r.Min.X)*kx), int(float64(r.Min.Y)*ky),
			int(math.Ceil(float64(r.Max.X)*kx)), int(math.Ceil(float64(r.Max.Y)*ky))))
	}
	return out
}

// confirmed keeps the text-like regions that OCR read a word in: when the
// picture has readable text, hair, flags and foliage that look like
// strokes are not text.
func confirmed(regions []TextRegion, words []image.Rectangle) []TextRegion {
	var out []TextRegion
	for _, t := range regions {
		for _, w := range words {
			if t.Rect.Overlaps(w) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// inOrder is the words' text in reading order: a word starts a new line
// when its centre lies below the current line's by more than half that
// line's height. Each word is trimmed of the punctuation the engine reads
// from specks, and split where it read strokes between touching words
// ("HAVE/A\PROBLEM").
func inOrder(words []tesseract.Word) []string {
	ws := slices.Clone(words)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Box.Min.Y+ws[i].Box.Max.Y < ws[j].Box.Min.Y+ws[j].Box.Max.Y })
	var out []string
	for start := 0; start < len(ws); {
		end := start + 1
		top := ws[start].Box
		for end < len(ws) && ws[end].Box.Min.Y+ws[end].Box.Max.Y-top.Min.Y-top.Max.Y <= top.Dy() {
			end++
		}
		line := ws[start:end]
		sort.SliceStable(line, func(i, j int) bool { return line[i].Box.Min.X < line[j].Box.Min.X })
		for _, w := range line {
			for _, part := range strings.FieldsFunc(w.Text, func(r rune) bool { return r == '/' || r == '\\' || r == '|' || unicode.IsSpace(r) }) {
				if part = strings.TrimFunc(part, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); part != "" {
					out = append(out, part)
				}
			}
		}
		start = end
	}
	return out
}

// letters is s's letters and digits, upper-cased: what is compared
// between the two readings.
func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToUpper(r)
		}
		return -1
	}, s)
}

// commonSubsequence is the length, in runes, of the longest common
// subsequence of a and b.
func commonSubsequence(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for i := range ra {
		for j := range rb {
			if ra[i] == rb[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
