package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"hookline.dev/services/clips/internal/facetrack"
)

// Scene cut rule (see Analyze): a sampled frame differing from the
// previous one by at least sceneMinDiff (mean absolute difference, 0..255)
// and by sceneRatio times the median difference of the sceneContext
// frames either side.
const (
	sceneMinDiff = 12.0
	sceneRatio   = 3.0
	sceneContext = 4
	// progressFrames is how often scenes reports its progress: every ten
	// seconds of video.
	progressFrames = 10 * sceneFPS
)

// scenes decodes the first video stream as tiny frames and returns the
// times of its cuts and how many seconds of it decoded. The decoder skips
// the loop filter and uses two threads; every frame is still decoded, so
// no cut is missed. Given faces, the same decode also hands out a grey
// copy facetrack.Width pixels wide of each sampled frame, whose faces
// make faces.Frames. progress (nil: none) hears the share of
// info.Duration decoded every progressFrames frames.
func (t Tools) scenes(ctx context.Context, path string, info Info, faces *facetrack.Samples, progress func(done float64)) ([]float64, float64, error) {
	var diffs []float64 // diffs[i]: frame i+1 against frame i
	frames := 0
	tiny := fmt.Sprintf("scale=%d:%d:flags=area,format=yuv420p", sceneW, sceneH)
	args := []string{"-threads", "2", "-skip_loop_filter", "all", "-i", local(path), "-map", "0:v:0", "-vf", fmt.Sprintf("fps=%d,%s", sceneFPS, tiny), "-f", "rawvideo", "pipe:"}
	var more []func(io.Reader) error
	if faces != nil {
		// A source narrower than the sampling width is sampled as it is:
		// enlarging it would add pixels to search and no face.
		gw, gh := facetrack.Width, facetrack.Height(info.Width, info.Height)
		if info.Width < facetrack.Width {
			gw, gh = info.Width/2*2, info.Height/2*2
		}
		args = []string{"-threads", "2", "-skip_loop_filter", "all", "-i", local(path), "-filter_complex",
			fmt.Sprintf("[0:v:0]fps=%d,split[a][b];[a]%s[tiny];[b]scale=%d:%d,format=gray[grey]", sceneFPS, tiny, gw, gh),
			"-map", "[tiny]", "-f", "rawvideo", "pipe:1", "-map", "[grey]", "-f", "rawvideo", "pipe:3"}
		scale := float64(info.Width) / float64(gw)
		more = append(more, func(r io.Reader) error { return sampleFaces(r, gw, gh, scale, t.Faces, faces) })
	}
	err := t.pipe(ctx, args,
		func(r io.Reader) error {
			prev, cur := make([]byte, sceneFrame), make([]byte, sceneFrame)
			for n := 0; ; n++ {
				if _, err := io.ReadFull(r, cur); err != nil {
					if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
						return nil
					}
					return fmt.Errorf("reading frames: %w", err)
				}
				frames++
				if progress != nil && frames%progressFrames == 0 && info.Duration > 0 {
					progress(min(1, float64(frames)/sceneFPS/info.Duration))
				}
				if n > 0 {
					var sum int
					for i, v := range cur {
						d := int(v) - int(prev[i])
						sum += max(d, -d)
					}
					diffs = append(diffs, float64(sum)/sceneFrame)
				}
				prev, cur = cur, prev
			}
		}, more...)
	if err != nil {
		return nil, 0, fmt.Errorf("measuring scenes: %w", err)
	}
	return cuts(diffs), float64(frames) / sceneFPS, nil
}

// cuts applies the cut rule to frame differences.
func cuts(diffs []float64) []float64 {
	var out []float64
	near := make([]float64, 0, 2*sceneContext)
	for i, d := range diffs {
		if d < sceneMinDiff {
			continue
		}
		near = near[:0]
		for j := max(0, i-sceneContext); j < min(len(diffs), i+sceneContext+1); j++ {
			if j != i {
				near = append(near, diffs[j])
			}
		}
		slices.Sort(near)
		if len(near) > 0 && d < sceneRatio*near[len(near)/2] {
			continue
		}
		out = append(out, float64(i+1)/sceneFPS)
	}
	return out
}
