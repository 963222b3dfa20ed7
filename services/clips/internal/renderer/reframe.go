package renderer

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os/exec"
	"sort"
	"strings"

	"hookline.dev/pkg/vision"
	"hookline.dev/services/clips/internal/captions"
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

// Landmarker places the 68 landmarks on a face in a box found by another
// detector (*dlib.Model): the mouth openings that tell who is speaking.
type Landmarker interface {
	Landmarks(img image.Image, box image.Rectangle) *vision.Landmarks
}

// track finds the crop path of a portrait crop from a landscape source:
// every face is followed across samples, and the layout chooses which
// one the crop follows (or which two share a split frame); faces are
// also returned in the output's pixels, for the captions to avoid.
func (r *Renderer) track(ctx context.Context, j Job) ([]CropPoint, []captions.FaceBox, error) {
	tw := trackWidth
	th := int(math.Round(float64(j.SrcH)*float64(tw)/float64(j.SrcW)/2)) * 2
	bin := r.FFmpeg
	if bin == "" {
		bin = "ffmpeg"
	}
	layout := j.Layout
	if layout == "" {
		layout = Auto
	}
	// Who speaks is read from the mouths against the sound's energy,
	// decoded meanwhile.
	mouths := layout != Fill && r.Landmarks != nil
	var energy []float64
	var energyErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if mouths && j.HasAudio {
			energy, energyErr = r.speechEnergy(ctx, j)
		}
	}()
	// Faces are looked for 4 times a second on a small grey copy: the
	// decoder may skip B-frames and the loop filter, which the samples do
	// not need and which are much of a 1080p decode's cost.
	cmd := exec.CommandContext(ctx, bin, "-v", "error", "-nostdin", "-skip_frame", "bidir", "-skip_loop_filter", "all", "-threads", "2", "-ss", ff(j.Start), "-t", ff(j.End-j.Start), "-i", "file:"+j.Source, //nolint:gosec // G204: typed values and our own path
		"-an", "-vf", fmt.Sprintf("fps=%d,scale=%d:%d,format=gray", trackFPS, tw, th), "-f", "rawvideo", "pipe:1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrFFmpeg, err)
	}
	scale := float64(j.SrcW) / float64(tw)
	var frames [][]seen
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
		var faces []seen
		if r.Faces != nil {
			fs := r.Faces.Detect(img)
			for _, f := range fs {
				s := seen{box: scaleRect(f.Rect, scale), open: math.NaN()}
				// A lone face's mouth decides nothing.
				if mouths && len(fs) > 1 {
					if lm := r.Landmarks.Landmarks(img, f.Rect); lm != nil {
						s.open = lm.MouthOpening()
					}
				}
				faces = append(faces, s)
			}
		}
		frames = append(frames, faces)
	}
	<-done
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("%w: sampling frames: %w", ErrFFmpeg, err)
	}
	if energyErr != nil {
		return nil, nil, energyErr
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
	path := framing(j, tracks, shots, cuts, layout != Fill)
	for i := range path {
		path[i].Face = len(frames[i]) > 0
	}
	return path, faceBoxes(j, tracks, path), nil
}

// scaleRect is r scaled by k.
func scaleRect(r image.Rectangle, k float64) image.Rectangle {
	return image.Rect(int(math.Round(float64(r.Min.X)*k)), int(math.Round(float64(r.Min.Y)*k)),
		int(math.Round(float64(r.Max.X)*k)), int(math.Round(float64(r.Max.Y)*k)))
}

// energyWindow is the span around a sample over which the speech's
// loudness is measured: short, so that it moves with the syllables as
// the mouths do.
const energyWindow = 0.12

// speechEnergy is the clip's loudness at each tracking sample, 0..1 over
// the 40 dB below its loud parts, from its audio decoded at 8 kHz mono.
func (r *Renderer) speechEnergy(ctx context.Context, j Job) ([]float64, error) {
	const rate = 8000
	bin := r.FFmpeg
	if bin == "" {
		bin = "ffmpeg"
	}
	pcm, err := exec.CommandContext(ctx, bin, "-v", "error", "-nostdin", "-ss", ff(j.Start), "-t", ff(j.End-j.Start), "-i", "file:"+j.Source, //nolint:gosec // G204: typed values and our own path
		"-vn", "-ac", "1", "-ar", fmt.Sprint(rate), "-f", "s16le", "pipe:1").Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: reading the sound: %w", ErrFFmpeg, err)
	}
	n := len(pcm) / 2
	samples := int(math.Ceil(float64(n) / rate * trackFPS))
	db := make([]float64, samples)
	half := int(energyWindow / 2 * rate)
	for i := range db {
		c := i * rate / trackFPS
		sum, cnt := 0.0, 0
		for s := max(0, c-half); s < min(n, c+half); s++ {
			v := float64(int16(binary.LittleEndian.Uint16(pcm[2*s:]))) //nolint:gosec // PCM samples
			sum += v * v
			cnt++
		}
		db[i] = -100
		if cnt > 0 && sum > 0 {
			db[i] = 10 * math.Log10(sum/float64(cnt)/(32768*32768))
		}
	}
	sorted := append([]float64(nil), db...)
	sort.Float64s(sorted)
	if len(sorted) == 0 {
		return nil, nil
	}
	loud := sorted[len(sorted)*95/100]
	out := make([]float64, samples)
	for i, d := range db {
		out[i] = math.Max(0, math.Min(1, (d-loud+40)/40))
	}
	return out, nil
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
