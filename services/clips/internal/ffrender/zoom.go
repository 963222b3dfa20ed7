package ffrender

import (
	"fmt"
	"image"
	"math"
	"slices"
	"strings"

	"hookline.dev/services/clips/internal/captions"
)

// Punch-ins (autoZoom). The caption lines worth stressing — the opening
// line (the clip's hook), a line with a keyword, a line spoken louder than
// the clip's speech — get a zoom that rises smoothly from 1 to at most
// zoomMax over zoomRamp, holds while the line is spoken and falls back; at
// most one starts every zoomGap seconds. The zoom holds still a point of
// the crop window (the speaker's face when one is tracked) and is lowered,
// or left out, where the face would not stay inside the frame.
const (
	zoomMax  = 1.15
	zoomMin  = 1.04 // a punch-in smaller than this is left out
	zoomRamp = 0.3
	zoomGap  = 4.0
	zoomHold = 2.5 // the longest a punch-in lasts
	// zoomMargin is the share of the frame kept between a face and its
	// edge.
	zoomMargin = 0.02
	// loudLine: a line this much louder (dB) than the clip's speech is an
	// energy peak.
	loudLine = 3.0
)

// punch is one punch-in, in seconds of the output.
type punch struct {
	From, To float64
	Zoom     float64
	// PX, PY is the point held still, in pixels of the crop window.
	PX, PY float64
}

// planZooms picks the punch-ins of a clip from its caption lines (output
// time), the keywords, the loudness per energyStep of the output (nil
// without audio) and the crop path (output time) of a cw×h window. A
// punch-in is one window's: none is made where the frame is split in two
// halves (split says how many were left out for that).
func planZooms(lines [][]captions.Word, keys captions.Keys, db []float64, path []CropPoint, cw, h int) (out []punch, split int) {
	type cand struct {
		from, to float64
		score    int
	}
	speech := lineLoudness(db, 0, math.Inf(1))
	var cands []cand
	for i, l := range lines {
		c := cand{from: l[0].Start, to: min(l[len(l)-1].End+0.2, l[0].Start+zoomHold)}
		if i == 0 {
			c.score += 3
		}
		for _, w := range l {
			if keys.Emphasises(w.Text) {
				c.score += 2
				break
			}
		}
		if db != nil && lineLoudness(db, l[0].Start, l[len(l)-1].End) > speech+loudLine {
			c.score++
		}
		if c.score > 0 && c.to-c.from >= 2*zoomRamp {
			cands = append(cands, c)
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return b.score - a.score })
	for _, c := range cands {
		if slices.ContainsFunc(out, func(p punch) bool { return math.Abs(p.From-c.from) < zoomGap }) {
			continue
		}
		if splitDuring(path, c.from, c.to) {
			split++
			continue
		}
		if p, ok := safeZoom(c.from, c.to, path, float64(cw), float64(h)); ok {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b punch) int { return cmpFloat(a.From, b.From) })
	return out, split
}

// splitDuring reports whether the frame is split at some time from..to:
// a point with halves holds until the next point.
func splitDuring(path []CropPoint, from, to float64) bool {
	for i, p := range path {
		end := math.Inf(1)
		if i+1 < len(path) {
			end = path[i+1].T
		}
		if p.Halves != nil && p.T < to && end > from {
			return true
		}
	}
	return false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// safeZoom is the punch-in from..to about the face seen then (the window's
// centre when none is), as large as keeps every face box seen from a
// second before to a second after inside the frame.
func safeZoom(from, to float64, path []CropPoint, cw, h float64) (punch, bool) {
	p := punch{From: from, To: to, Zoom: zoomMax, PX: cw / 2, PY: h / 2}
	var near []CropPoint
	sx, sy := 0.0, 0.0
	for _, c := range path {
		if c.T >= from-1 && c.T <= to+1 && !c.Box.Empty() {
			near = append(near, c)
			sx += float64(c.Box.Min.X+c.Box.Max.X)/2 - float64(c.X)
			sy += float64(c.Box.Min.Y+c.Box.Max.Y) / 2
		}
	}
	if len(near) > 0 {
		p.PX, p.PY = sx/float64(len(near)), sy/float64(len(near))
	}
	// Zooming by z about P takes u to P + z(u-P): each box edge must stay
	// inside the margin.
	limit := func(pt, lo, hi, size float64) {
		m := zoomMargin * size
		if lo < pt {
			p.Zoom = math.Min(p.Zoom, (pt-m)/(pt-lo))
		}
		if hi > pt {
			p.Zoom = math.Min(p.Zoom, (size-m-pt)/(hi-pt))
		}
	}
	for _, c := range near {
		limit(p.PX, float64(c.Box.Min.X-c.X), float64(c.Box.Max.X-c.X), cw)
		limit(p.PY, float64(c.Box.Min.Y), float64(c.Box.Max.Y), h)
	}
	return p, p.Zoom >= zoomMin
}

// rise is how far into punch p the output is at t: 0 outside, 1 while it
// holds, eased in and out over zoomRamp.
func (p punch) rise(t float64) float64 {
	u := math.Max(0, math.Min(1, math.Min((t-p.From)/zoomRamp, (p.To-t)/zoomRamp)))
	return u * u * (3 - 2*u)
}

// zoomAt is the zoom at t and the punch-in it belongs to (nil: none).
func zoomAt(ps []punch, t float64) (float64, *punch) {
	for i := range ps {
		if t > ps[i].From && t < ps[i].To {
			return 1 + (ps[i].Zoom-1)*ps[i].rise(t), &ps[i]
		}
	}
	return 1, nil
}

// zoomCropFilter crops a single window along path (as runFilter does)
// and scales it to the output with the punch-ins (zoompan on the window:
// no second scaling pass over the output frame). It needs a constant
// outFPS input.
func zoomCropFilter(j Job, path []CropPoint, ps []punch) string {
	var z, x, y strings.Builder
	z.WriteString("1")
	x.WriteString("0")
	y.WriteString("0")
	for _, p := range ps {
		u := fmt.Sprintf("clip(min((it-%.3f)/%.3f,(%.3f-it)/%.3f),0,1)", p.From, zoomRamp, p.To, zoomRamp)
		fmt.Fprintf(&z, "+%.4f*%s*%s*(3-2*%s)", p.Zoom-1, u, u, u)
		fmt.Fprintf(&x, "+%.1f*between(it,%.3f,%.3f)", p.PX, p.From, p.To)
		fmt.Fprintf(&y, "+%.1f*between(it,%.3f,%.3f)", p.PY, p.From, p.To)
	}
	return fmt.Sprintf("crop=w=%d:h=%d:x='%s':y=0,zoompan=z='%s':x='(%s)*(1-1/zoom)':y='(%s)*(1-1/zoom)':d=1:s=%dx%d:fps=%d,setsar=1",
		cropWidth(j), j.SrcH, cropX(path), z.String(), x.String(), y.String(), j.Width, j.Height, outFPS)
}

// zoomed is the crop path as the output shows it: each point's window
// narrowed by its zoom about the punch-in's point (X and Y its top-left
// corner in source pixels).
func zoomed(path []CropPoint, ps []punch) []CropPoint {
	out := slices.Clone(path)
	for i, c := range out {
		z, p := zoomAt(ps, c.T)
		out[i].Zoom = math.Round(z*1e4) / 1e4
		if p != nil {
			out[i].X = c.X + int(math.Round(p.PX*(1-1/z)))
			out[i].Y = int(math.Round(p.PY * (1 - 1/z)))
		}
	}
	return out
}

// zoomFaces are the faces on screen (output pixels) as the punch-ins
// show them: a box shown during a punch-in grows about the held point by
// the largest zoom over its time; k is the output's pixels per source
// pixel of the window, frame the output.
func zoomFaces(fs []captions.FaceBox, ps []punch, k float64, frame image.Rectangle) []captions.FaceBox {
	out := slices.Clone(fs)
	for i, f := range out {
		z, p := 1.0, (*punch)(nil)
		for _, t := range []float64{f.Start, (f.Start + f.End) / 2, f.End} {
			if zt, pt := zoomAt(ps, t); pt != nil && zt > z {
				z, p = zt, pt
			}
		}
		if p == nil {
			continue
		}
		px, py := p.PX*k, p.PY*k
		grow := func(r image.Rectangle) image.Rectangle {
			at := func(u, c float64) int { return int(math.Round(c + z*(u-c))) }
			return image.Rect(at(float64(r.Min.X), px), at(float64(r.Min.Y), py), at(float64(r.Max.X), px), at(float64(r.Max.Y), py)).Intersect(frame)
		}
		out[i].Box, out[i].Features = grow(f.Box), grow(f.Features)
	}
	return out
}

// lineLoudness is the mean loudness (dB) of the speech frames (above the
// threshold) from..to of db.
func lineLoudness(db []float64, from, to float64) float64 {
	if len(db) == 0 {
		return 0
	}
	thr := speechThreshold(db)
	sum, n := 0.0, 0
	for i := max(0, int(from/energyStep)); i < len(db) && float64(i)*energyStep < to; i++ {
		if db[i] > thr {
			sum += db[i]
			n++
		}
	}
	if n == 0 {
		return math.Inf(-1)
	}
	return sum / float64(n)
}
