package renderer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os/exec"
	"strings"
)

// CropPoint is the crop window's left edge X (source pixels) at T
// seconds into the clip, for editors (EncodeCropPath) and for the filter.
type CropPoint struct {
	T float64
	X int
	// Face says whether a face was found at this sample.
	Face bool
	// Box is the face found (source pixels), empty without one.
	Box image.Rectangle
	// Zoom is the punch-in's zoom (1 or 0 without autoZoom); the window
	// shown is then 1/Zoom of the full-height window, its top-left corner
	// at X, Y.
	Zoom float64
	Y    int
}

// Reframing parameters: faces are looked for trackFPS times a second on
// frames trackWidth pixels wide. The crop follows the face through a dead
// zone (a face that moves less than deadZone of the frame does not move
// it), an exponential filter and a speed limit, so it glides rather than
// jitters; at a scene cut it jumps straight to the new framing.
const (
	trackFPS   = 4
	trackWidth = 480
	deadZone   = 0.06
	smoothing  = 0.35
	maxSpeed   = 0.35 // of the source width per second
)

// track finds the crop path of a portrait crop from a landscape source.
func (r *Renderer) track(ctx context.Context, j Job) ([]CropPoint, error) {
	tw := trackWidth
	th := int(math.Round(float64(j.SrcH)*float64(tw)/float64(j.SrcW)/2)) * 2
	bin := r.FFmpeg
	if bin == "" {
		bin = "ffmpeg"
	}
	// Faces are looked for 4 times a second on a small grey copy: the
	// decoder may skip B-frames and the loop filter, which the samples do
	// not need and which are much of a 1080p decode's cost.
	cmd := exec.CommandContext(ctx, bin, "-v", "error", "-nostdin", "-skip_frame", "bidir", "-skip_loop_filter", "all", "-threads", "2", "-ss", ff(j.Start), "-t", ff(j.End-j.Start), "-i", "file:"+j.Source, //nolint:gosec // G204: typed values and our own path
		"-an", "-vf", fmt.Sprintf("fps=%d,scale=%d:%d,format=gray", trackFPS, tw, th), "-f", "rawvideo", "pipe:1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFFmpeg, err)
	}
	scale := float64(j.SrcW) / float64(tw)
	var centres []float64 // source x of the face centre per sample, NaN without one
	var boxes []image.Rectangle
	rd := bufio.NewReaderSize(out, tw*th)
	for {
		img := image.NewGray(image.Rect(0, 0, tw, th))
		if _, err := io.ReadFull(rd, img.Pix); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				_ = cmd.Wait()
				return nil, err
			}
			break
		}
		c, box := math.NaN(), image.Rectangle{}
		if r.Faces != nil {
			if fs := r.Faces.Detect(img); len(fs) > 0 {
				c = float64(fs[0].Rect.Min.X+fs[0].Rect.Max.X) / 2 * scale
				box = image.Rect(int(float64(fs[0].Rect.Min.X)*scale), int(float64(fs[0].Rect.Min.Y)*scale),
					int(float64(fs[0].Rect.Max.X)*scale), int(float64(fs[0].Rect.Max.Y)*scale))
			}
		}
		centres = append(centres, c)
		boxes = append(boxes, box)
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: sampling frames: %w", ErrFFmpeg, err)
	}
	var cuts []float64
	for _, s := range j.Scenes {
		if s > j.Start && s < j.End {
			cuts = append(cuts, s-j.Start)
		}
	}
	path := Path(centres, trackFPS, float64(j.SrcW), cropWidth(j), cuts)
	for i := range path {
		path[i].Box = boxes[i]
	}
	return path, nil
}

// cropWidth is the width of a 9:16 window of the source's full height.
func cropWidth(j Job) int {
	w := int(math.Round(float64(j.SrcH)*9/16/2)) * 2
	return min(w, j.SrcW)
}

// Path smooths face centres sampled fps times a second into crop
// positions (left edges) of a window cw wide in a frame srcW wide. A
// sample without a face holds the previous target (the centre before the
// first face). cuts (seconds) reset the smoothing.
func Path(centres []float64, fps int, srcW float64, cw int, cuts []float64) []CropPoint {
	out := make([]CropPoint, 0, len(centres))
	target, pos := srcW/2, math.NaN()
	// Before the first face, hold where the first face will be: a face
	// found late should not drag the crop across the frame.
	for _, c := range centres {
		if !math.IsNaN(c) {
			target = c
			break
		}
	}
	step := maxSpeed * srcW / float64(fps)
	nextCut := 0
	for i, c := range centres {
		t := float64(i) / float64(fps)
		cut := false
		for nextCut < len(cuts) && cuts[nextCut] <= t {
			cut = true
			nextCut++
		}
		if !math.IsNaN(c) && (math.Abs(c-target) > deadZone*srcW || cut) {
			target = c
		}
		switch {
		case math.IsNaN(pos) || cut:
			pos = target
		default:
			move := (target - pos) * smoothing
			pos += math.Max(-step, math.Min(step, move))
		}
		x := int(math.Round(pos)) - cw/2
		x = max(0, min(int(srcW)-cw, x))
		out = append(out, CropPoint{T: t, X: x, Face: !math.IsNaN(c)})
	}
	return out
}

// cropFilter crops along path: x(t) is piecewise linear between samples,
// a step at scene cuts (consecutive points closer than a frame).
func cropFilter(j Job, path []CropPoint) string {
	return fmt.Sprintf("crop=w=%d:h=%d:x='%s':y=0,scale=%d:%d,setsar=1", cropWidth(j), j.SrcH, cropX(path), j.Width, j.Height)
}

// cropX is the crop window's left edge along path, an expression in t.
func cropX(path []CropPoint) string {
	expr := "0"
	if len(path) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d", path[0].X)
		for k := 1; k < len(path); k++ {
			d := path[k].X - path[k-1].X
			if d == 0 {
				continue
			}
			span := path[k].T - path[k-1].T
			fmt.Fprintf(&b, "+%d*clip((t-%.3f)/%.3f,0,1)", d, path[k-1].T, span)
		}
		expr = b.String()
	}
	return expr
}
