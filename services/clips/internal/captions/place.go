package captions

import (
	"fmt"
	"image"
	"math"
	"strings"
)

// FaceBox is a face as the output shows it from Start to End (seconds of
// the clip, pixels of the output frame): Box is the head, Features the
// band from the eyes to the mouth. The hook title and the captions keep
// clear of the heads where they can, and never cover eyes and mouth
// where the frame leaves room.
type FaceBox struct {
	Start, End    float64
	Box, Features image.Rectangle
}

// spot is where a block of text sits: its ASS alignment (2 at the
// bottom, 8 at the top), its distance from that edge and, when not 0,
// its right margin (else its style's).
type spot struct{ an, marginV, marginR int }

// Text stays inside these shares of the frame's height, clear of the
// platforms' own buttons and titles.
const (
	safeTop    = 0.05
	safeBottom = 0.07
	// facePad is the gap kept between text and a face, of the height.
	facePad = 0.01
	// logoGap is the gap kept between text and the logo, of the height.
	logoGap = 0.008
)

// place is the spot of a block height pixels tall shown from start to
// end: def when that is clear of the faces on screen meanwhile (and of
// the bands in avoid); otherwise the clear spot nearest def, first clear
// of whole heads and avoid, else of eyes, mouths and avoid, else of eyes
// and mouths alone. When no spot is clear (faces fill the frame), the
// spot that covers the least of their eyes and mouths.
func (s Spec) place(start, end float64, def spot, height float64, avoid [][2]float64) spot {
	h := float64(s.Height)
	y0 := float64(def.marginV)
	if def.an != 8 {
		y0 = h - float64(def.marginV) - height
	}
	var heads, features [][2]float64
	for _, f := range s.Faces {
		if f.Start < end && f.End > start {
			heads = append(heads, [2]float64{float64(f.Box.Min.Y), float64(f.Box.Max.Y)})
			features = append(features, [2]float64{float64(f.Features.Min.Y), float64(f.Features.Max.Y)})
		}
	}
	if len(heads) == 0 && len(avoid) == 0 {
		return def
	}
	lo, hi := safeTop*h, (1-safeBottom)*h
	at := func(y float64) spot {
		switch {
		case y == y0:
			return def
		case y+height/2 < h/2:
			return spot{an: 8, marginV: max(1, int(math.Round(y))), marginR: def.marginR}
		default:
			return spot{an: 2, marginV: max(1, int(math.Round(h-y-height))), marginR: def.marginR}
		}
	}
	for _, bands := range [][][2]float64{append(heads, avoid...), append(features, avoid...), features} {
		if y, ok := clearSpot(bands, y0, height, lo, hi, facePad*h); ok {
			return at(y)
		}
	}
	best, least := y0, math.Inf(1)
	for y := lo; y+height <= hi; y += h / 100 {
		covered := 0.0
		for _, b := range features {
			covered += math.Max(0, math.Min(y+height, b[1])-math.Max(y, b[0]))
		}
		if covered < least {
			best, least = y, covered
		}
	}
	return at(best)
}

// clearSpot is the top y nearest y0 of a block height tall inside
// [lo, hi] that overlaps none of bands (kept pad away).
func clearSpot(bands [][2]float64, y0, height, lo, hi, pad float64) (float64, bool) {
	cands := []float64{y0}
	for _, b := range bands {
		cands = append(cands, b[0]-pad-height, b[1]+pad)
	}
	best, found := 0.0, false
	for _, y := range cands {
		y = math.Max(lo, math.Min(hi-height, y))
		if y < lo || y+height > hi {
			continue
		}
		clear := true
		for _, b := range bands {
			if y < b[1]+pad && y+height > b[0]-pad {
				clear = false
				break
			}
		}
		if clear && (!found || math.Abs(y-y0) < math.Abs(best-y0)) {
			best, found = y, true
		}
	}
	return best, found
}

// blockHeight is the height of text drawn by fit at size: its lines as
// libass wraps them in the fitter's width, plus pad above and below.
func blockHeight(fit fitter, text string, size, pad float64) float64 {
	lines, cur := 1, 0.0
	space := fit.advance(' ')
	for _, w := range strings.Fields(text) {
		ww := fit.measure(w)
		switch {
		case cur == 0:
			cur = ww
		case cur+space+ww <= fit.width:
			cur += space + ww
		default:
			lines++
			cur = ww
		}
	}
	return float64(lines)*size*1.25 + 2*pad
}

// placedEvent writes an event at sp: with the style's alignment and
// margins when sp is def with no right margin of its own, else with its
// own margins and, when it moves to the other edge, an alignment tag.
func placedEvent(b *strings.Builder, layer int, start, end float64, style string, sp, def spot, text string) {
	if sp == def && sp.marginR == 0 {
		event(b, layer, start, end, style, text)
		return
	}
	if sp.an != def.an {
		text = fmt.Sprintf("{\\an%d}", sp.an) + text
	}
	fmt.Fprintf(b, "Dialogue: %d,%s,%s,%s,,0,%d,%d,,%s\n", layer, stamp(start, '.', 2), stamp(end, '.', 2), style, sp.marginR, sp.marginV, text)
}

// hookSpot places the hook title (def when there is none) and returns
// the band it takes while shown.
func (s Spec) hookSpot(def spot, fit fitter, size, pad float64) (spot, [][2]float64) {
	hook := strings.TrimSpace(s.Hook)
	if hook == "" || s.HookSeconds <= 0 {
		return def, nil
	}
	height := blockHeight(fit, fit.fit(hook), size, pad)
	sp := s.place(0, s.HookSeconds, def, height, nil)
	top := float64(sp.marginV)
	if sp.an != 8 {
		top = float64(s.Height) - float64(sp.marginV) - height
	}
	return sp, [][2]float64{{top, top + height}}
}

// hookBox bounds the box of the hook drawn by fit at size with pad
// around, shown at sp (top-aligned at its margin, or bottom-aligned),
// its text centred between the left margin and the right one (sp's,
// else margin).
func (s Spec) hookBox(sp spot, fit fitter, margin int, size, pad float64) image.Rectangle {
	hook := fit.fit(strings.TrimSpace(s.Hook))
	right := margin
	if sp.marginR != 0 {
		right = sp.marginR
	}
	// The fitter measures wider than libass draws, so its widths and
	// line count are bounds: a line is no wider than the whole text nor
	// than the room between the margins.
	widest := math.Min(fit.measure(hook), float64(s.Width-margin-right))
	height := blockHeight(fit, hook, size, pad)
	centre := float64(margin+s.Width-right) / 2
	top := float64(sp.marginV) - pad
	if sp.an != 8 {
		top = float64(s.Height-sp.marginV) - height
	}
	half := widest/2 + pad
	return image.Rect(int(math.Floor(centre-half)), int(math.Floor(top)), int(math.Ceil(centre+half)), int(math.Ceil(top+height)))
}

// clearOfLogo reports whether box keeps logoGap away from the logo.
func (s Spec) clearOfLogo(box image.Rectangle) bool {
	if s.Logo.Empty() {
		return true
	}
	gap := int(math.Ceil(logoGap * float64(s.Height)))
	return !box.Overlaps(s.Logo.Inset(-gap))
}

// lineSpot places a caption line, clear of the hook's band while the
// hook is shown and of the logo's rows.
func (s Spec) lineSpot(line []Word, lk look, def spot, fit fitter, size, pad float64, hook [][2]float64) spot {
	start, end := line[0].Start, line[len(line)-1].End
	if start >= s.HookSeconds {
		hook = nil
	}
	if !s.Logo.Empty() {
		hook = append(hook[:len(hook):len(hook)], [2]float64{float64(s.Logo.Min.Y), float64(s.Logo.Max.Y)})
	}
	return s.place(start, end, def, blockHeight(fit, strings.Join(lk.shown(line, fit), " "), size, pad), hook)
}
