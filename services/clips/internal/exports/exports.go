// Package exports writes a render's edit for an editor: the cut as an
// edit decision list, the source in and out point of every piece the
// render kept, in the order it plays, in two formats: FCPXML 1.10 (Final
// Cut Pro, DaVinci Resolve; Premiere Pro through its FCPXML importers),
// which also carries the reframing crop path as position keyframes, and
// CMX 3600 (every editor, Premiere Pro and Resolve included), which
// cannot. The captions (SRT, WebVTT) come from the renderer with the MP4.
//
// Everything is on the render's frame grid: a piece's in and out points
// are whole frames of the output's rate, so the list's times add up to
// the MP4's.
package exports

import (
	"fmt"
	"math"
)

// Span is a stretch of the clip, seconds from its start.
type Span struct{ From, To float64 }

// Window is the crop window (source pixels) at T seconds of the rendered
// clip: its left edge X, top Y, width W and height H.
type Window struct {
	T          float64
	X, Y, W, H int
}

// Cut is what a render did to its source.
type Cut struct {
	// Title names the sequence; Source names the source file the lists
	// refer to (the editor relinks it to the project's source video).
	Title, Source string
	// SrcW, SrcH are the source's size; OutW, OutH the render's; FPS its
	// frame rate.
	SrcW, SrcH, OutW, OutH, FPS int
	// Start and End are the clip, seconds of the source; SourceSeconds
	// the source's length (0: unknown, taken as End).
	Start, End, SourceSeconds float64
	// Removed are the stretches the jump cuts took out, seconds of the
	// clip, in order.
	Removed []Span
	// EndCard is the card after the clip, seconds (generated, not from
	// the source: a gap in the lists).
	EndCard float64
	// Crop is the reframing path in the rendered clip's time (empty
	// without reframing).
	Crop []Window
}

// Piece is a kept stretch of the source: Source frames [SrcIn, SrcOut)
// play at record frames [RecIn, RecOut) of the render.
type Piece struct {
	SrcIn, SrcOut, RecIn, RecOut int
}

// Frames is how long the piece lasts.
func (p Piece) Frames() int { return p.RecOut - p.RecIn }

// frame is t seconds as a whole frame.
func (c Cut) frame(t float64) int { return int(math.Round(t * float64(c.FPS))) }

// Pieces are the stretches of the source the render kept, in order.
func (c Cut) Pieces() []Piece {
	length := c.frame(c.End - c.Start)
	start := c.frame(c.Start)
	var out []Piece
	at, rec := 0, 0
	keep := func(to int) {
		if to > at {
			out = append(out, Piece{SrcIn: start + at, SrcOut: start + to, RecIn: rec, RecOut: rec + to - at})
			rec += to - at
		}
	}
	for _, r := range c.Removed {
		from, to := min(length, c.frame(r.From)), min(length, c.frame(r.To))
		keep(from)
		at = max(at, to)
	}
	keep(length)
	return out
}

// Frames is the render's length in frames: the kept pieces and the end
// card.
func (c Cut) Frames() int {
	n := c.frame(c.EndCard)
	for _, p := range c.Pieces() {
		n += p.Frames()
	}
	return n
}

// Timecode is frame n as HH:MM:SS:FF (non-drop) at fps.
func Timecode(n, fps int) string {
	s := n / fps
	return fmt.Sprintf("%02d:%02d:%02d:%02d", s/3600, s/60%60, s%60, n%fps)
}
