package ffrender

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"strconv"
	"strings"

	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/render"
)

// CropPoint is the crop window's left edge X (source pixels) at T
// seconds into the clip, for editors (EncodeCropPath) and for the filter.
type CropPoint struct {
	T float64
	X int
	// Face says whether a face was found at this sample.
	Face bool
	// Box is the face followed (source pixels), empty without one.
	Box image.Rectangle
	// Zoom is the punch-in's zoom (1 or 0 without autoZoom); the window
	// shown is then 1/Zoom of the full-height window, its top-left corner
	// at X, Y.
	Zoom float64
	Y    int
	// Halves are the split layout's top and bottom windows (source
	// pixels); nil where one window of the full height is cropped at X.
	Halves []Window
}

// Window is a crop window in source pixels.
type Window struct{ X, Y, W, H int }

// Reframing parameters: faces are sampled facetrack.FPS times a second
// on frames facetrack.Width pixels wide. The crop follows the face through
// a dead zone (a face that moves less than deadZone of the frame does not
// move it), an exponential filter and a speed limit, so it glides rather
// than jitters; at a scene cut it jumps straight to the new framing.
const (
	trackFPS  = facetrack.FPS
	deadZone  = 0.06
	smoothing = 0.35
	maxSpeed  = 0.35 // of the source width per second
)

// Tracking is where a render's face samples came from.
type Tracking string

// Prepared samples were taken once for the whole source during its
// preparation (Job.Samples); Decoded ones by a decode of the clip at
// render time, for sources prepared before samples were kept.
const (
	Prepared Tracking = "prepared"
	Decoded  Tracking = "decoded"
)

// track finds the crop path of a portrait crop from a landscape source:
// every face is followed across samples, and the layout chooses which
// one the crop follows (or which two share a split frame); faces are
// also returned in the output's pixels, for the captions to avoid.
func (r *Renderer) track(ctx context.Context, j Job) ([]CropPoint, []captions.FaceBox, Tracking, error) {
	layout := j.Layout
	if layout == "" {
		layout = render.LayoutAuto
	}
	// Who speaks is read from the mouths against the sound's energy.
	mouths := layout != render.LayoutFill && r.Landmarks != nil
	frames, db, ok := j.Samples.Slice(j.Start, j.End)
	from := Prepared
	if !ok {
		var err error
		if frames, db, err = r.sample(ctx, j, mouths); err != nil {
			return nil, nil, "", err
		}
		from = Decoded
	}
	var energy []float64
	if mouths && j.HasAudio {
		energy = facetrack.Energy(db)
	}
	var cuts []float64
	cutAt := map[int]bool{}
	for _, s := range j.Scenes {
		if s > j.Start && s < j.End {
			cuts = append(cuts, s-j.Start)
			cutAt[int(math.Ceil((s-j.Start)*trackFPS))] = true
		}
	}
	tracks := identify(frames, cutAt)
	shots := plan(layout, tracks, energy, len(frames))
	path := framing(j, tracks, shots, cuts, layout != render.LayoutFill)
	for i := range path {
		path[i].Face = len(frames[i]) > 0
	}
	return path, faceBoxes(j, tracks, path), from, nil
}

// sample decodes the clip to sample its faces (and, when mouths are
// measured, its loudness, decoded meanwhile): faces are looked for 4
// times a second on a small grey copy, and the decoder may skip B-frames
// and the loop filter, which the samples do not need and which are much
// of a 1080p decode's cost.
func (r *Renderer) sample(ctx context.Context, j Job, mouths bool) ([][]facetrack.Face, []float64, error) {
	tw, th := facetrack.Width, facetrack.Height(j.SrcW, j.SrcH)
	var db []float64
	var dbErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if mouths && j.HasAudio {
			db, dbErr = r.speechLoudness(ctx, j)
		}
	}()
	cmd := r.FFmpeg.Command(ctx, "-skip_frame", "bidir", "-skip_loop_filter", "all", "-threads", "2", "-ss", ff(j.Start), "-t", ff(j.End-j.Start), "-i", "file:"+j.Source,
		"-an", "-vf", fmt.Sprintf("fps=%d,scale=%d:%d,format=gray", trackFPS, tw, th), "-f", "rawvideo", "pipe:1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrFFmpeg, err)
	}
	sampler := facetrack.Sampler{Faces: r.Faces}
	if mouths {
		sampler.Landmarks = r.Landmarks
	}
	scale := float64(j.SrcW) / float64(tw)
	var frames [][]facetrack.Face
	rd := bufio.NewReaderSize(out, tw*th)
	for {
		img := image.NewGray(image.Rect(0, 0, tw, th))
		if _, err := io.ReadFull(rd, img.Pix); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				_ = cmd.Wait()
				<-done
				return nil, nil, err
			}
			break
		}
		frames = append(frames, sampler.Frame(img, scale))
	}
	<-done
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("%w: sampling frames: %w", ErrFFmpeg, err)
	}
	return frames, db, dbErr
}

// speechLoudness is the clip's loudness at each tracking sample
// (media.SpeechMeter), from its audio decoded at 8 kHz mono.
func (r *Renderer) speechLoudness(ctx context.Context, j Job) ([]float64, error) {
	m := media.SpeechMeter(8000)
	if err := r.measure(ctx, j, m, "reading the sound"); err != nil {
		return nil, err
	}
	return m.Loudness(), nil
}

// measure decodes the clip's sound as mono PCM at m's rate into m.
func (r *Renderer) measure(ctx context.Context, j Job, m *media.Meter, what string) error {
	cmd := r.FFmpeg.Command(ctx, "-ss", ff(j.Start), "-t", ff(j.End-j.Start), "-i", "file:"+j.Source,
		"-vn", "-ac", "1", "-ar", strconv.Itoa(m.Rate), "-f", "s16le", "pipe:1")
	cmd.Stdout = m
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %s: %w", ErrFFmpeg, what, err)
	}
	return nil
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

// cropX is the crop window's left edge along path, an expression in t.
func cropX(path []CropPoint) string {
	ts, xs := make([]float64, len(path)), make([]int, len(path))
	for i, p := range path {
		ts[i], xs[i] = p.T, p.X
	}
	return pathExpr(ts, xs)
}

// pathExpr is ffmpeg's expression of a value that runs through vals at
// the times ts, piecewise linear between them (a step where consecutive
// points are closer than a frame, as at scene cuts).
func pathExpr(ts []float64, vals []int) string {
	if len(vals) == 0 {
		return "0"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", vals[0])
	for k := 1; k < len(vals); k++ {
		d := vals[k] - vals[k-1]
		if d == 0 {
			continue
		}
		fmt.Fprintf(&b, "+%d*clip((t-%.3f)/%.3f,0,1)", d, ts[k-1], ts[k]-ts[k-1])
	}
	return b.String()
}
